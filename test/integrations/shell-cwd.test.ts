/**
 * The folder a guarded command leaves a client session in (shell-cwd.ts):
 * never outside the root, whatever the shell reports — `..`, symlinks in
 * and out, folders removed since, files, editwarden's own state folder —
 * and the command run as Claude Code runs its own (`eval … && pwd -P`),
 * with its output and exit code unchanged.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { carriedFolderFile, carryShellFolder, cdBackLine, folderInRoot } from '../../src/integrations/shell-cwd.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { cleanup, tempDir } from './helpers.js';

afterAll(cleanup);

/** root/{a/b, link-in -> a, link-out -> outside, up -> .., f, .editwarden/x}, outside/{c}; `gone` made and removed. */
function tree(): { root: string; outside: string } {
  const root = tempDir('ew-cwd-root-');
  const outside = tempDir('ew-cwd-out-');
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  fs.mkdirSync(path.join(root, '.editwarden', 'x'), { recursive: true });
  fs.mkdirSync(path.join(outside, 'c'));
  fs.symlinkSync(path.join(root, 'a'), path.join(root, 'link-in'));
  fs.symlinkSync(outside, path.join(root, 'link-out'));
  fs.symlinkSync('..', path.join(root, 'up'));
  fs.symlinkSync(path.join(root, 'a'), path.join(outside, 'into-root'));
  fs.writeFileSync(path.join(root, 'f'), 'x');
  fs.mkdirSync(path.join(root, 'gone'));
  fs.rmdirSync(path.join(root, 'gone'));
  return { root, outside };
}

function kernelDir(p: string): string | null {
  try {
    // realpath(3), as the kernel walks: `a/missing/..` does not exist (Node's JS realpathSync reads `..` as text first).
    const real = fs.realpathSync.native(p);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** Every prefix of `p` the kernel reaches lies under the root (no step of the walk leaves it). */
function staysInside(root: string, p: string): boolean {
  const parts = p.split('/').filter((x) => x !== '');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = `/${parts.slice(0, i).join('/')}`;
    if (!inside(root, path.resolve(prefix)) && path.resolve(prefix).length >= root.length) return false;
    let real: string;
    try {
      real = fs.realpathSync.native(prefix);
    } catch {
      return true;
    }
    if (prefix.length > root.length && !inside(root, real)) return false;
  }
  return true;
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(`${root}${path.sep}`);
}

describe('the carried folder is the root or a real folder under it', () => {
  const { root, outside } = tree();
  const ws = openWorkspace(root).ws;
  const segment = fc.constantFrom('a', 'b', 'c', '..', '.', 'link-in', 'link-out', 'up', 'into-root', 'f', 'gone', '.editwarden', 'x');
  const asked = fc.tuple(fc.constantFrom(root, outside, '/', path.dirname(root)), fc.array(segment, { maxLength: 6 })).map(([base, parts]) => [base, ...parts].join('/'));

  it('never hands out a folder outside the root; hands out exactly the kernel folder when it is a folder under the root', () => {
    fc.assert(
      fc.property(asked, (p) => {
        const d = folderInRoot(ws, p);
        expect(inside(root, d.dir)).toBe(true);
        expect(kernelDir(d.dir)).toBe(d.dir);
        if (d.note === null) {
          expect(d.dir).toBe(kernelDir(p));
        } else {
          expect(d.dir).toBe(root);
          expect(d.note).toContain(root);
        }
        // A folder the kernel reaches under the root, spelled inside it, never passing outside on the way (a link out
        // that comes back in is refused: the resolver never follows a hop out), outside editwarden's state: kept.
        const real = kernelDir(p);
        if (real !== null && inside(root, path.resolve(p)) && staysInside(root, p) && !real.includes(`${path.sep}.editwarden`)) expect(d).toEqual({ dir: real, note: null });
      }),
      { numRuns: 1000 },
    );
  });

  it('a symlink out, a removed folder, a file, the state folder and a relative path each fall back to the root with a note', () => {
    for (const p of [path.join(root, 'link-out'), path.join(root, 'link-out', 'c'), path.join(root, 'up'), path.join(root, 'gone'), path.join(root, 'f'), path.join(root, '.editwarden', 'x'), 'a/b', '', outside]) {
      const d = folderInRoot(ws, p);
      expect(d.dir, p).toBe(root);
      expect(d.note, p).not.toBeNull();
    }
    expect(folderInRoot(ws, path.join(root, 'link-in', 'b'))).toEqual({ dir: path.join(root, 'a', 'b'), note: null });
  });
});

/** Runs `line` as the client's shell would: /bin/sh -c, in `cwd`. */
function sh(line: string, cwd: string): { status: number | null; stdout: string } {
  const r = spawnSync('/bin/sh', ['-c', line], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout };
}

describe("the command runs as Claude Code runs its own, and the client's shell follows it", () => {
  it('keeps output and exit code of any command, and records the folder only when it succeeded', () => {
    const { root } = tree();
    const ws = openWorkspace(root).ws;
    const session = { client: 'claude', session: 's1' };
    const step = fc.constantFrom('cd a', 'cd a/b', 'cd ..', 'cd /', 'echo "it\'s $((1+1))"', 'false', 'exit 3', 'exit 0', 'true', "printf '%s' '`x`'", 'cd link-in');
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 3 }), (steps) => {
        const command = steps.join(' && ');
        const plain = sh(command, root);
        const carried = carryShellFolder(command, { ws, stateDir: ws.stateDir, session, carries: true, tmpDir: tempDir('ew-cwd-tmp-') });
        try {
          // An older record (another command's): it must never be what the client's shell follows now.
          fs.mkdirSync(path.dirname(carriedFolderFile(ws.stateDir, session)), { recursive: true });
          fs.writeFileSync(carriedFolderFile(ws.stateDir, session), `${path.join(root, 'a', 'b')}\n`);
          const ran = sh(carried.command, root);
          expect(ran).toEqual(plain);
          const note = carried.settle(ran.status);
          const file = carriedFolderFile(ws.stateDir, session);
          if (plain.status !== 0) {
            expect(fs.existsSync(file)).toBe(false);
            return;
          }
          const ended = sh(
            `{ ${command}
} >/dev/null 2>&1 && pwd -P`,
            root,
          ).stdout.trim();
          // Ended with `exit`: nothing recorded, nothing for the client's shell to follow.
          if (ended === '') {
            expect(fs.existsSync(file)).toBe(false);
            return;
          }
          const kept = fs.readFileSync(file, 'utf8');
          expect(kept).toBe(`${inside(root, ended) ? ended : root}\n`);
          expect(note === null).toBe(inside(root, ended));
          // The client's own shell, after the rewritten line, stands where the command ended (its tracking reads `pwd -P`).
          const after = sh(`(exit ${ran.status}); ${cdBackLine(file)}; echo "$?"; pwd -P`, root).stdout.split('\n');
          expect(after[0]).toBe('0');
          expect(after[1]).toBe(kept.trim());
        } finally {
          carried.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the line after a failed command keeps its exit code and leaves the folder alone', () => {
    const { root } = tree();
    const file = path.join(tempDir('ew-cwd-f-'), 'cwd');
    fs.writeFileSync(file, `${path.join(root, 'a')}\n`);
    const out = sh(`(exit 7); ${cdBackLine(file)}; echo "$?"; pwd -P`, root).stdout.split('\n');
    expect(out.slice(0, 2)).toEqual(['7', root]);
    const missing = sh(`true; ${cdBackLine(path.join(root, 'nope'))}; echo "$?"; pwd -P`, root).stdout.split('\n');
    expect(missing.slice(0, 2)).toEqual(['0', root]);
  });

  it('a folder already carried is not written again; a new one is; the capture folder is removed', () => {
    const { root } = tree();
    const ws = openWorkspace(root).ws;
    const session = { client: 'claude', session: 'same' };
    const file = carriedFolderFile(ws.stateDir, session);
    const settle = (command: string): string | null => {
      const tmpDir = tempDir('ew-cwd-tmp-');
      const carried = carryShellFolder(command, { ws, stateDir: ws.stateDir, session, carries: true, tmpDir });
      try {
        expect(sh(carried.command, root).status).toBe(0);
        return carried.settle(0);
      } finally {
        carried.dispose();
        expect(fs.readdirSync(tmpDir)).toEqual([]);
      }
    };
    expect(settle('cd a')).toBeNull();
    const first = fs.statSync(file);
    // The same folder again: the very same file (an atomic write would be a new inode).
    expect(settle('cd a')).toBeNull();
    expect(fs.statSync(file).ino).toBe(first.ino);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${path.join(root, 'a')}\n`);
    expect(settle('cd a/b')).toBeNull();
    expect(fs.statSync(file).ino).not.toBe(first.ino);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${path.join(root, 'a', 'b')}\n`);
  });

  it("the client's shell follows the carried folder without starting a program (nothing found through PATH)", () => {
    const { root } = tree();
    const file = path.join(tempDir('ew-cwd-f-'), 'cwd');
    fs.writeFileSync(file, `${path.join(root, 'a', 'b')}\n`);
    const r = spawnSync('/bin/sh', ['-c', `true; ${cdBackLine(file)}; echo "$?"; pwd -P`], { cwd: root, encoding: 'utf8', env: { PATH: '' } });
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['0', path.join(root, 'a', 'b')]);
  });

  it.runIf(fs.existsSync('/usr/bin/strace'))('the line after a command that succeeded starts no process (a subshell or cat after every command)', () => {
    const { root } = tree();
    const file = path.join(tempDir('ew-cwd-f-'), 'cwd');
    fs.writeFileSync(file, `${path.join(root, 'a')}\n`);
    const log = path.join(tempDir('ew-cwd-trace-'), 'log');
    const traced = (status: number): string => {
      const r = spawnSync('/usr/bin/strace', ['-f', '-qq', '-e', 'trace=clone,clone3,fork,vfork', '-o', log, '/bin/sh', '-c', `(exit ${status}); ${cdBackLine(file)}; echo "$?"; pwd -P`], { cwd: root, encoding: 'utf8' });
      expect(r.stdout.split('\n')[0]).toBe(String(status));
      return fs.readFileSync(log, 'utf8');
    };
    // The command's own `(exit …)` of this test is the one clone; the line adds none.
    expect(traced(0).match(/clone|fork/g)?.length).toBe(1);
    // A failed command's code is set again by a subshell (one clone more): the exit code is what counts there.
    expect(traced(3).match(/clone|fork/g)?.length).toBe(2);
  });

  it('a folder whose path holds a line break is not carried (the shell reads one line)', () => {
    const root = tempDir('ew-cwd-line\nbreak-');
    const ws = openWorkspace(root).ws;
    const session = { client: 'claude', session: 'nl' };
    const file = carriedFolderFile(ws.stateDir, session);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${root}\n`);
    const carried = carryShellFolder('cd /', { ws, stateDir: ws.stateDir, session, carries: true, tmpDir: tempDir('ew-cwd-tmp-') });
    try {
      expect(sh(carried.command, root).status).toBe(0);
      expect(carried.settle(0)).toMatch(/line break/);
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      carried.dispose();
    }
  });

  it('a client whose own shell does not carry its folder gets its command unchanged', () => {
    const { root } = tree();
    const ws = openWorkspace(root).ws;
    const carried = carryShellFolder('cd a', { ws, stateDir: ws.stateDir, session: { client: 'gemini', session: 's' }, carries: false, tmpDir: tempDir('ew-cwd-tmp-') });
    expect(carried.command).toBe('cd a');
    expect(carried.capture).toBeNull();
    expect(carried.settle(0)).toBeNull();
  });
});
