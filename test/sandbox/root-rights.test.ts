/**
 * A sandboxed command does not hold root's rights. Run as root (CI does),
 * `editwarden exec` of `cat /etc/shadow` used to print it: capabilities were
 * dropped, but uid 0 still owns the file. Now what only root may read is
 * masked, `/root` stays hidden, and a real build in a root-owned project
 * still passes (writes into the root work). The scanner's rule is pinned on a
 * tree of its own, which needs root to chown; anywhere but root those
 * tests are skipped, saying so (test/needs-root.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../src/sandbox/bwrap.js';
import { isRootOnly, rootOnlyMasks, scanRootOnly } from '../../src/sandbox/root-only.js';
import { skipUnlessRoot } from '../needs-root.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

function exec(root: string, commands: string[]) {
  const calls = commands.map((command) => JSON.stringify({ tool: 'execute_command', args: { command } })).join('\n');
  const r = spawnSync(process.execPath, [BIN, 'exec', '-', '--root', root, '--json', '--show-output'], { encoding: 'utf8', input: calls, timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stderr: r.stderr, calls: (JSON.parse(r.stdout) as { calls: Array<{ ok: boolean; output: string; data: { sandbox: string; exit_code?: number } }> }).calls };
}

describe('run as root, a sandboxed command reads nothing only root may read', () => {
  it('cat /etc/shadow, /etc/gshadow and a 0600 file under /root fail; a make + cc build in a root-owned project passes', (context) => {
    skipUnlessRoot(context, 'proves what a sandbox run by root hides from it');
    expect(fs.statSync('/etc/shadow').uid).toBe(0);
    // Outside the sandbox, root reads it (the test would prove nothing otherwise).
    expect(fs.readFileSync('/etc/shadow', 'utf8')).toMatch(/^root:/);
    const root = tempDir('ew-root-rights-');
    fs.writeFileSync(path.join(root, 'Makefile'), 'all: hello\n\t./hello > built.txt\nhello: hello.c\n\tcc -o hello hello.c\n');
    fs.writeFileSync(path.join(root, 'hello.c'), '#include <stdio.h>\nint main(void){puts("built-ok");return 0;}\n');
    fs.writeFileSync(path.join(root, 'owned.txt'), 'mine\n', { mode: 0o600 });
    expect(fs.statSync(path.join(root, 'owned.txt')).uid).toBe(0);
    const r = exec(root, ['cat /etc/shadow', 'cat /etc/gshadow', 'ls -A /root; cat /root/.bashrc /root/.profile', 'make && cat built.txt && echo more >> owned.txt && cat owned.txt']);
    const [shadow, gshadow, home, build] = r.calls;
    for (const c of [shadow, gshadow, home]) {
      expect(c?.data.sandbox).toBe('bwrap');
      expect(c?.output).not.toMatch(/^root:/m);
    }
    // /dev/null is bound in its place on a nodev mount: the open itself is refused.
    expect(shadow?.output).toContain('cat: /etc/shadow: Permission denied');
    expect(gshadow?.output).toContain('cat: /etc/gshadow: Permission denied');
    expect(home?.output).not.toContain('PS1');
    expect(build?.ok, build?.output).toBe(true);
    expect(build?.output).toContain('built-ok');
    expect(fs.readFileSync(path.join(root, 'owned.txt'), 'utf8')).toBe('mine\nmore\n');
    expect(fs.readFileSync(path.join(root, 'built.txt'), 'utf8')).toBe('built-ok\n');
  });
});

describe('the root-only scan', () => {
  it('finds what is root-owned and closed to others, masks a closed folder whole, follows no link, and never masks around an exposed path', (context) => {
    skipUnlessRoot(context, 'chowns its made-up system tree to root and to other uids');
    const sys = tempDir('ew-root-only-');
    const put = (rel: string, mode: number, owner?: [number, number]) => {
      const p = path.join(sys, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      if (rel.endsWith('/')) fs.mkdirSync(p, { recursive: true });
      else fs.writeFileSync(p, 'x');
      fs.chmodSync(p, mode);
      if (owner) fs.chownSync(p, owner[0], owner[1]);
      return p.replace(/\/$/, '');
    };
    const shadow = put('etc/shadow', 0o640, [0, 42]);
    const key = put('etc/ssh/host_key', 0o600);
    const open = put('etc/hosts', 0o644);
    const other = put('etc/nobodys', 0o600, [65534, 65534]);
    const closed = put('var/private/', 0o700);
    put('var/private/inner', 0o600);
    const deep = put('var/a/b/c/d/secret', 0o600);
    const project = put('srv/closed/', 0o700);
    fs.symlinkSync(shadow, path.join(sys, 'etc/link-to-shadow'));
    const found = scanRootOnly([
      { dir: path.join(sys, 'etc'), depth: 8 },
      { dir: path.join(sys, 'var'), depth: 3 },
      { dir: path.join(sys, 'srv'), depth: 3 },
    ]).map((e) => e.path);
    expect(found).toEqual(expect.arrayContaining([shadow, key, closed, project]));
    for (const p of [open, other, path.join(closed, 'inner'), deep, path.join(sys, 'etc/link-to-shadow')]) expect(found).not.toContain(p);
    // A closed folder that holds the project (or a path inside the project) is never masked; the rest is.
    const entries = found.map((p) => ({ path: p, dir: fs.statSync(p).isDirectory() }));
    const masks = rootOnlyMasks([path.join(project, 'proj')], () => entries).map((e) => e.path);
    expect(masks).not.toContain(project);
    expect(masks).toContain(shadow);
    expect(isRootOnly(fs.statSync(open))).toBe(false);
  });

  it('bwrap masks a file with /dev/null and a folder with a read-only tmpfs, before the root is bound', () => {
    const policy = {
      enabled: true,
      root: '/work/p',
      readOnly: [],
      gitDirs: [],
      absentState: null,
      hidden: [],
      home: '/home/x',
      readable: [],
      writable: [],
      secrets: [],
      sockets: [],
      networkAccess: { mode: 'off' as const },
      envAllow: [],
      envDeny: [],
    };
    const a = bwrapArgs(policy, '/work/p', ['true'], () => false, [
      { path: '/etc/shadow', dir: false },
      { path: '/var/private', dir: true },
    ]);
    const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
    expect(at('--ro-bind', '/dev/null', '/etc/shadow')).toBeGreaterThan(at('--ro-bind', '/', '/'));
    expect(at('--tmpfs', '/var/private', '--remount-ro', '/var/private')).toBeGreaterThan(0);
    expect(at('--ro-bind', '/dev/null', '/etc/shadow')).toBeLessThan(at('--bind', '/work/p', '/work/p'));
  });
});
