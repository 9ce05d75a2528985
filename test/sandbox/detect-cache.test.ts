/**
 * The bubblewrap check is kept by a long-lived process (the warm hook
 * server asks on every guarded command) only while what it depends on is
 * the same: a program replaced at the same path (an upgrade, a broken
 * install) is checked again. Real bwrap, real files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src/sandbox/detect.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-detect-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Puts `source`'s bytes at `target` as a new file (a new inode, as a package manager's install does). */
function install(source: string | Buffer, target: string): void {
  const tmp = `${target}.new`;
  fs.writeFileSync(tmp, typeof source === 'string' ? fs.readFileSync(source) : source, { mode: 0o755 });
  fs.renameSync(tmp, target);
}

describe('the bubblewrap check of a long-lived process', () => {
  it('is made again when the program at the same path is replaced, either way', () => {
    const real = detectSandbox();
    expect(real.kind).toBe('bwrap');
    const program = path.join(dir, 'bwrap');
    const env = { EDITWARDEN_BWRAP: program };
    install(Buffer.from('#!/bin/sh\nexit 1\n'), program);
    expect(detectSandbox({ env }).kind).toBe('none');
    install(real.program as string, program);
    expect(detectSandbox({ env })).toMatchObject({ kind: 'bwrap', program });
    // Kept while nothing changed: the same answer.
    expect(detectSandbox({ env })).toMatchObject({ kind: 'bwrap', program });
    install(Buffer.from('#!/bin/sh\nexit 1\n'), program);
    expect(detectSandbox({ env }).kind).toBe('none');
  });
});
