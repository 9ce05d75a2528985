/**
 * The write witness's program is looked for on the caller's PATH on every
 * command, and probed once per program file: a long-lived process (the warm
 * hook server) serves callers with other PATHs, each of which gets what its
 * own process would have found. Real strace, real files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { witnessProgram } from '../../src/sandbox/witness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-witness-probe-'));
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the witness program of a long-lived process', () => {
  it.runIf(fs.existsSync('/usr/bin/strace'))('follows each caller’s PATH and a program replaced in place', () => {
    const fake = path.join(dir, 'strace');
    fs.writeFileSync(fake, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    process.env.PATH = `${dir}:/usr/bin:/bin`;
    // A strace that cannot trace is no witness.
    expect(witnessProgram()).toBeNull();
    process.env.PATH = '/usr/bin:/bin';
    expect(witnessProgram()).toBe('/usr/bin/strace');
    process.env.PATH = `${dir}:/usr/bin:/bin`;
    expect(witnessProgram()).toBeNull();
    // Replaced in place by a working one: probed again.
    fs.copyFileSync('/usr/bin/strace', `${fake}.new`);
    fs.chmodSync(`${fake}.new`, 0o755);
    fs.renameSync(`${fake}.new`, fake);
    expect(witnessProgram()).toBe(fake);
  });
});
