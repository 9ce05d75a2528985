/**
 * The write witness (src/sandbox/witness.ts): which files a command's own
 * processes changed, from strace's log. The parser over generated names
 * (quotes, angle brackets, newlines, non-ASCII: every byte hex-escaped), and
 * a real command under the real witness inside the real sandbox, beside a
 * process outside it writing another file at the same time.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandSandbox } from '../../src/sandbox/for-workspace.js';
import { parseWitness, WitnessFile, witnessed, witnessProgram } from '../../src/sandbox/witness.js';
import { runCommand } from '../../src/verify/runner.js';
import { tempDir } from '../temp-dirs.js';

const ROOT = '/w/project';
const hex = (text: string): string => [...Buffer.from(text, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
const str = (text: string): string => `"${hex(text)}"`;
const fd = (n: string, p: string): string => `${n}<${hex(p)}>`;

/** A path component: any characters but `/` and NUL, never `.` or `..`. */
const component = fc
  .string({ minLength: 1, maxLength: 8, unit: fc.oneof(fc.constantFrom('"', '<', '>', '\n', ' ', ',', '(', ')', '=', 'é', '\\', 'x'), fc.string({ minLength: 1, maxLength: 1 })) })
  .filter((s) => !s.includes('/') && !s.includes('\0') && s !== '.' && s !== '..');
const relPath = fc.array(component, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));

describe('the witness log is parsed exactly, whatever bytes a name holds', () => {
  it('an open for writing names the returned descriptor’s path; an open for reading names nothing', () => {
    fc.assert(
      fc.property(relPath, relPath, (written, read) => {
        const log = [
          `101 openat(${fd('AT_FDCWD', ROOT)}, ${str(written)}, O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3${`<${hex(`${ROOT}/${written}`)}>`}`,
          `101 openat(${fd('AT_FDCWD', ROOT)}, ${str(read)}, O_RDONLY|O_CLOEXEC) = 4<${hex(`${ROOT}/${read}`)}>`,
        ].join('\n');
        const seen = parseWitness(log, ROOT);
        expect([...seen.paths]).toEqual([written]);
        expect(witnessed(seen, written)).toBe(true);
        if (read !== written && !written.startsWith(`${read}/`)) expect(seen.paths.has(read)).toBe(false);
      }),
    );
  });

  it('folder-relative calls join the folder’s path; a rename credits both names and everything below them', () => {
    fc.assert(
      fc.property(relPath, component, component, component, (dir, a, b, inner) => {
        const folder = `${ROOT}/${dir}`;
        const log = [
          `7 renameat2(${fd('AT_FDCWD', folder)}, ${str(a)}, ${fd('5', folder)}, ${str(b)}, RENAME_NOREPLACE) = 0`,
          `7 unlinkat(${fd('AT_FDCWD', ROOT)}, ${str(inner)}, 0) = 0`,
          `7 symlinkat(${str('/etc/passwd')}, ${fd('AT_FDCWD', ROOT)}, ${str(`${inner}-link`)}) = 0`,
          `7 linkat(${fd('AT_FDCWD', ROOT)}, ${str(`${inner}-src`)}, ${fd('AT_FDCWD', ROOT)}, ${str(`${inner}-hard`)}, 0) = 0`,
          `7 utimensat(${fd('0', `${ROOT}/${inner}-t`)}, NULL, NULL, 0) = 0`,
          `7 fchmod(${fd('3', `${ROOT}/${inner}-m`)}, 0644) = 0`,
        ].join('\n');
        const seen = parseWitness(log, ROOT);
        // A hard link's source too: a write through the new name changes its bytes.
        for (const p of [`${dir}/${a}`, `${dir}/${b}`, inner, `${inner}-link`, `${inner}-t`, `${inner}-m`, `${inner}-src`, `${inner}-hard`]) expect(witnessed(seen, p)).toBe(true);
        expect(witnessed(seen, `${dir}/${b}/${inner}`)).toBe(true);
        // A symlink's target is not a path it changed.
        expect(seen.paths.has('etc/passwd')).toBe(false);
      }),
    );
  });

  it('never credits a path outside the root, nor one no call named', () => {
    fc.assert(
      fc.property(relPath, relPath, (named, other) => {
        fc.pre(named !== other && !other.startsWith(`${named}/`) && !other.endsWith(`/${named}`));
        const log = [
          `9 openat(${fd('AT_FDCWD', '/tmp')}, ${str('x')}, O_WRONLY|O_CREAT, 0666) = 3<${hex('/tmp/x')}>`,
          `9 unlink(${str(`${ROOT}/${named}`)}) = 0`,
          `9 openat(${fd('AT_FDCWD', ROOT)}, ${str('..')}, O_RDONLY) = 3<${hex('/w')}>`,
        ].join('\n');
        const seen = parseWitness(log, ROOT);
        expect([...seen.paths]).toEqual([named]);
        expect(witnessed(seen, other)).toBe(false);
      }),
    );
  });

  it('a relative name given without a folder (Node’s rename) is matched by its tail', () => {
    const seen = parseWitness(`5 rename(${str('out.txt')}, ${str('sub/o2')}) = 0`, ROOT);
    expect(witnessed(seen, 'out.txt')).toBe(true);
    expect(witnessed(seen, 'a/sub/o2')).toBe(true);
    expect(witnessed(seen, 'notes.md')).toBe(false);
  });

  it('a command that sets up io_uring (opens and renames no traced call shows) makes the log incomplete', () => {
    expect(parseWitness(`5 io_uring_setup(8, 0x7ffd) = 3<${hex('anon_inode:[io_uring]')}>`, ROOT).complete).toBe(false);
    expect(parseWitness(`5 unlink(${str(`${ROOT}/a`)}) = 0`, ROOT).complete).toBeUndefined();
  });

  it('lines that are not calls (signals, exits, a torn last line) are passed over', () => {
    const seen = parseWitness(['5 --- SIGCHLD {si_signo=SIGCHLD} ---', '5 +++ exited with 0 +++', `5 unlinkat(${fd('AT_FDCWD', ROOT)}, ${str('a')}`].join('\n'), ROOT);
    expect(seen.paths.size).toBe(0);
  });
});

describe.runIf(witnessProgram() !== null)('the real witness in the real sandbox', () => {
  it('credits the command with exactly the files its processes changed, not a file another process wrote meanwhile', async () => {
    const root = tempDir('ew-witness-');
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(root, 'notes.md'), 'mine\n');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/old.js'), 'x\n');
    fs.writeFileSync(path.join(root, 'src/keep.js'), 'k\n');
    const sandbox = commandSandbox({ root, stateDir: path.join(root, '.editwarden') }, {});
    const witness = new WitnessFile();
    try {
      const command = "sleep 0.6; echo x > out.txt; mv a.txt b.txt; rm src/old.js; node -e \"require('fs').renameSync('out.txt', 'out2.txt')\"; mkdir -p d && touch d/z; ln src/keep.js h && echo evil >> h && rm h";
      const running = runCommand({ command, cwd: root, sandbox, timeoutMs: 20_000, witness: witness.path });
      // Another process, outside the sandbox, writes the person's file while the command sleeps.
      await new Promise((r) => setTimeout(r, 150));
      await new Promise<void>((resolve) => spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(path.join(root, 'notes.md'))}, 'person\\n')`]).once('exit', () => resolve()));
      const result = await running;
      expect(result.exit_code).toBe(0);
      expect(result.witness).toBe('strace');
      const seen = witness.read(root);
      expect(seen).not.toBeNull();
      // src/keep.js was written through a hard link, removed again: the link's source is credited.
      for (const p of ['out.txt', 'out2.txt', 'a.txt', 'b.txt', 'src/old.js', 'd/z', 'src/keep.js']) expect(witnessed(seen as NonNullable<typeof seen>, p), p).toBe(true);
      expect(witnessed(seen as NonNullable<typeof seen>, 'notes.md')).toBe(false);
      expect(fs.readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('person\n');
    } finally {
      witness.dispose();
    }
    // Its private folder goes with it.
    expect(fs.existsSync(path.dirname(witness.path))).toBe(false);
  });
});
