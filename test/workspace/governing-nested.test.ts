/**
 * The command-effects revert (workspace/governing.ts) watches nested
 * repositories' `.git` like the root's: a change under one (where no
 * read-only bind stopped it: no sandbox, or a sandbox without binds) is put
 * back, a `.git` that appeared is removed, and the object store of a nested
 * gitdir is not watched (adding objects changes no behaviour).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findNestedGitDirs } from '../../src/config/nested-repos.js';
import { governingChanges, revertGoverning, snapshotGoverning } from '../../src/workspace/governing.js';
import { tempDir } from '../temp-dirs.js';

function gitInit(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('git', ['init', '-q', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

describe('nested repositories in the command-effects revert', () => {
  it('puts back a changed hook and config, removes a planted one and a new repository, and ignores new objects', () => {
    const root = tempDir('ew-governing-nested-');
    gitInit(root);
    gitInit(path.join(root, 'vendor/lib'));
    const config = path.join(root, 'vendor/lib/.git/config');
    const before = fs.readFileSync(config, 'utf8');
    const snapshot = snapshotGoverning(root, ['.git'], () => findNestedGitDirs(root));

    fs.appendFileSync(config, '[core]\n\tfsmonitor = /tmp/evil\n');
    fs.writeFileSync(path.join(root, 'vendor/lib/.git/hooks/pre-commit'), '#!/bin/sh\nevil\n');
    fs.mkdirSync(path.join(root, 'vendor/lib/.git/objects/ab'));
    fs.writeFileSync(path.join(root, 'vendor/lib/.git/objects/ab/cdef'), 'blob');
    gitInit(path.join(root, 'made/repo'));

    const changes = governingChanges(snapshot);
    const paths = changes.map((c) => c.path);
    expect(paths).toContain('vendor/lib/.git/config');
    expect(paths).toContain('vendor/lib/.git/hooks/pre-commit');
    expect(paths).toContain('made/repo/.git');
    expect(paths.some((p) => p.startsWith('vendor/lib/.git/objects/'))).toBe(false);
    const reverted = revertGoverning(snapshot, changes);
    expect(
      reverted.every((c) => c.reverted),
      JSON.stringify(reverted.filter((c) => !c.reverted)),
    ).toBe(true);

    expect(fs.readFileSync(config, 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(root, 'vendor/lib/.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'made/repo/.git'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'vendor/lib/.git/objects/ab/cdef'))).toBe(true);
  });
});
