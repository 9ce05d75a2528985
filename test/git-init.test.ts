/**
 * test/git-init.ts writes what `git init -q` writes: the same tree (names,
 * kinds, modes, bytes) as a real `git init -q` in a folder beside it, and a
 * repository git itself then works in (status, add, commit, a nested
 * repository found as one).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitInit } from './git-init.js';
import { tempDir } from './temp-dirs.js';

/** Every entry under `root`: its kind, mode and (for a file) bytes. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const child = path.join(rel, name);
      const stat = fs.lstatSync(path.join(root, child));
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        out[child] = `dir ${mode}`;
        walk(child);
      } else out[child] = `${stat.isFile() ? 'file' : 'other'} ${mode} ${fs.readFileSync(path.join(root, child), 'base64')}`;
    }
  };
  walk('');
  return out;
}

function git(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t.invalid' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gitInit', () => {
  it('writes the tree a real `git init -q` writes: names, kinds, modes and bytes', () => {
    const real = tempDir('ew-git-real-');
    const ours = tempDir('ew-git-ours-');
    expect(git(real, 'init', '-q').status).toBe(0);
    gitInit(ours);
    expect(Object.keys(tree(ours)).length).toBeGreaterThan(5);
    expect(tree(ours)).toEqual(tree(real));
    // A second project gets the same tree again (what is kept is not used up or changed by a write).
    const again = tempDir('ew-git-again-');
    gitInit(again);
    expect(tree(again)).toEqual(tree(real));
  });

  it('makes a repository git works in: status, add, commit; and one below another is a repository of its own', () => {
    const root = tempDir('ew-git-work-');
    gitInit(root);
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
    expect(git(root, 'status', '--porcelain').stdout).toBe('?? a.txt\n');
    expect(git(root, 'add', 'a.txt').status).toBe(0);
    const commit = git(root, 'commit', '-qm', 'first');
    expect(commit.status, commit.stderr).toBe(0);
    expect(git(root, 'log', '--format=%s').stdout).toBe('first\n');
    fs.mkdirSync(path.join(root, 'vendor'));
    gitInit(path.join(root, 'vendor'));
    expect(git(path.join(root, 'vendor'), 'rev-parse', '--show-toplevel').stdout.trim()).toBe(path.join(root, 'vendor'));
  });

  it('refuses a folder that is a repository already, changing nothing in it', () => {
    const root = tempDir('ew-git-twice-');
    gitInit(root);
    const before = tree(root);
    expect(() => gitInit(root)).toThrow(/EEXIST/);
    expect(tree(root)).toEqual(before);
  });
});
