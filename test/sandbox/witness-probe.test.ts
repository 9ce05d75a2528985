/**
 * The write witness's program: strace runs outside the sandbox and starts
 * bubblewrap itself, so it is taken from a system location only — never
 * through PATH, where a hostile repository's node_modules/.bin comes first —
 * and probed once per program file (an upgrade in place is probed again).
 * Real strace, real files, and a real guarded command under a planted PATH.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { witnessProgram } from '../../src/sandbox/witness.js';
import { cleanup, editwarden, project, tempDir } from '../integrations/helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-witness-probe-'));
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  cleanup();
});

/** A "strace" that leaves a mark and runs what follows `--` as it is: unconfined, if it were ever used. */
function plantedStrace(folder: string, mark: string): string {
  const fake = path.join(folder, 'strace');
  fs.writeFileSync(fake, `#!/bin/sh\necho ran >> '${mark}'\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n`, { mode: 0o755 });
  return fake;
}

describe('the witness program', () => {
  it('is the system strace whatever PATH holds: a strace planted first on PATH is never run', () => {
    const mark = path.join(dir, 'mark');
    plantedStrace(dir, mark);
    process.env.PATH = `${dir}:/usr/bin:/bin`;
    expect(witnessProgram()).toBe('/usr/bin/strace');
    expect(fs.existsSync(mark)).toBe(false);
  });

  it('EDITWARDEN_STRACE names another program; one that cannot trace is no witness, and one replaced in place is probed again', () => {
    const own = tempDir('ew-witness-own-');
    const program = path.join(own, 'strace');
    fs.writeFileSync(program, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    expect(witnessProgram({ EDITWARDEN_STRACE: program })).toBeNull();
    expect(witnessProgram({ EDITWARDEN_STRACE: path.join(own, 'missing') })).toBeNull();
    fs.copyFileSync('/usr/bin/strace', `${program}.new`);
    fs.chmodSync(`${program}.new`, 0o755);
    fs.renameSync(`${program}.new`, program);
    expect(witnessProgram({ EDITWARDEN_STRACE: program })).toBe(program);
  });

  it('a guarded command run with a planted strace first on PATH is still confined: its write outside the root fails, the fake never ran', () => {
    const root = project({});
    const bin = tempDir('ew-planted-bin-');
    const mark = path.join(tempDir('ew-planted-mark-'), 'mark');
    plantedStrace(bin, mark);
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, EDITWARDEN_HOOK_SERVER: 'off' };
    const r = editwarden(['shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--', `echo out > ${outside}`], { cwd: root, env });
    expect(r.code, r.stderr).not.toBe(0);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync(mark)).toBe(false);
    // And the command did run, witnessed: a write inside the root lands.
    const ok = editwarden(['shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--', 'echo in > inside.txt'], { cwd: root, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(fs.existsSync(mark)).toBe(false);
  });
});
