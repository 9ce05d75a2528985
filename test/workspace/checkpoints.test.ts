import { openWorkspace } from '../../src/workspace/open.js';
import { Resolver } from '../../src/workspace/resolver.js';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/workspace/workspace.js';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import { BlobStore, type Durability } from '../../src/workspace/checkpoints/blob-store.js';
import { captureWorkspace, STREAM_MIN_BYTES } from '../../src/workspace/checkpoints/capture.js';
import { StatCache, StatCacheStore, type FsClock } from '../../src/workspace/checkpoints/stat-cache.js';
import { parseDuration, selectForPrune } from '../../src/workspace/checkpoints/prune.js';
import { EditwardenError } from '../../src/errors.js';
import { hashTree, snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';
import type { ManifestEntry } from '../../src/workspace/checkpoints/types.js';

function service(root: string, now?: () => Date): CheckpointService {
  return new CheckpointService(openWorkspace(root).ws, now ? { now } : {});
}

/** A small project with modes, nested folders, an empty folder and inside-root symlinks. */
function project(): string {
  const root = tempRoot();
  write(root, 'README.md', '# project\n');
  write(root, 'bin/run.sh', '#!/bin/sh\necho run\n', 0o755);
  write(root, 'secret.key', 'k3y\n', 0o600);
  write(root, 'src/a.ts', 'export const a = 1;\n');
  write(root, 'src/deep/b.ts', 'export const b = 2;\n');
  fs.mkdirSync(path.join(root, 'empty'));
  fs.symlinkSync('src/a.ts', path.join(root, 'link-a'));
  fs.symlinkSync('deep', path.join(root, 'src/link-deep'));
  return root;
}

/** Every kind of change a restore must undo. */
function mess(root: string): void {
  write(root, 'README.md', '# changed\n');
  fs.chmodSync(path.join(root, 'bin/run.sh'), 0o644);
  fs.chmodSync(path.join(root, 'secret.key'), 0o644);
  fs.rmSync(path.join(root, 'src/deep'), { recursive: true });
  fs.rmSync(path.join(root, 'empty'), { recursive: true });
  write(root, 'new/nested/file.txt', 'created since\n');
  write(root, 'src/c.ts', 'export const c = 3;\n');
  fs.mkdirSync(path.join(root, 'new-empty/inner'), { recursive: true });
  fs.rmSync(path.join(root, 'link-a'));
  fs.symlinkSync('README.md', path.join(root, 'link-a'));
  fs.rmSync(path.join(root, 'src/link-deep'));
  write(root, 'src/link-deep', 'now a file\n');
  fs.symlinkSync('src', path.join(root, 'new-link'));
}

describe('a workspace checkpoint restores the root exactly', () => {
  it('puts back bytes and modes, removes created files and folders, brings back deleted ones, restores symlinks as links', () => {
    const root = project();
    const before = snapshotTree(root);
    const cps = service(root);
    const id = cps.create('before mess', 'test');
    mess(root);
    expect(snapshotTree(root)).not.toEqual(before);
    const result = cps.restore(id);
    expect(snapshotTree(root)).toEqual(before);
    expect(fs.lstatSync(path.join(root, 'link-a')).isSymbolicLink()).toBe(true);
    expect(fs.statSync(path.join(root, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    expect(result.removed).toEqual(expect.arrayContaining(['new/nested/file.txt', 'src/c.ts', 'new-link']));
    expect(result.dirsRemoved).toEqual(expect.arrayContaining(['new', 'new/nested', 'new-empty', 'new-empty/inner']));
    expect(result.dirsCreated).toEqual(expect.arrayContaining(['empty', 'src/deep']));
  });

  it('restores a restore: the safety checkpoint brings back the state the restore overwrote', () => {
    const root = project();
    const clean = snapshotTree(root);
    const cps = service(root);
    const id = cps.create('clean', 'test');
    mess(root);
    const messy = snapshotTree(root);
    const first = cps.restore(id);
    expect(first.safety).toBeDefined();
    const second = cps.restore(first.safety as string);
    expect(snapshotTree(root)).toEqual(messy);
    // And the undo of the undo: back to the clean state.
    cps.restore(second.safety as string);
    expect(snapshotTree(root)).toEqual(clean);
  });

  it('does nothing to a tree that has not changed', () => {
    const root = project();
    const cps = service(root);
    const id = cps.create('x', 'y');
    const result = cps.restore(id);
    expect(result.written).toEqual([]);
    expect(result.removed).toEqual([]);
    expect(result.unchanged).toBeGreaterThan(0);
  });
});

describe('a files checkpoint records only the named paths', () => {
  it('restores a modified file and removes a file created since, with the folders made for it', () => {
    const root = project();
    const cps = service(root);
    const before = snapshotTree(root);
    const id = cps.create('edit', 'test', 'files', { paths: ['src/a.ts', 'brand/new/dir/x.ts'] });
    const manifest = cps.get(id);
    expect(manifest.entries.map((e) => e.path)).toEqual(['brand/new/dir/x.ts', 'src/a.ts']);
    expect(manifest.absentDirs).toEqual(['brand', 'brand/new', 'brand/new/dir']);
    write(root, 'src/a.ts', 'export const a = 99;\n', 0o700);
    write(root, 'brand/new/dir/x.ts', 'x\n');
    write(root, 'README.md', 'not recorded, so not restored\n');
    cps.restore(id);
    const after = snapshotTree(root);
    expect(after['README.md']).not.toEqual(before['README.md']);
    delete after['README.md'];
    const expected = { ...before };
    delete expected['README.md'];
    expect(after).toEqual(expected);
  });

  it('brings back a deleted file and its deleted folder', () => {
    const root = project();
    const cps = service(root);
    const id = cps.create('del', 'test', 'files', { paths: ['src/deep/b.ts'] });
    fs.rmSync(path.join(root, 'src/deep'), { recursive: true });
    cps.restore(id);
    expect(fs.readFileSync(path.join(root, 'src/deep/b.ts'), 'utf8')).toBe('export const b = 2;\n');
  });

  it('keeps small files inside the manifest and large ones as blobs, and restores both', () => {
    const root = tempRoot();
    const big = 'x'.repeat(64 * 1024);
    write(root, 'small.txt', 'small\n');
    write(root, 'big.txt', big);
    const cps = service(root);
    const id = cps.create('mixed', 'test', 'files', { paths: ['small.txt', 'big.txt'] });
    const entries = cps.get(id).entries;
    const small = entries.find((e) => e.path === 'small.txt');
    const large = entries.find((e) => e.path === 'big.txt');
    expect(small?.type === 'file' && small.inline !== undefined && !fs.existsSync(cps.blobs.pathOf(small.blob))).toBe(true);
    expect(large?.type === 'file' && large.inline === undefined && fs.existsSync(cps.blobs.pathOf(large.blob))).toBe(true);
    expect(cps.list()[0]).toMatchObject({ bytes: 6 + big.length, uniqueBytes: 6 + big.length });
    write(root, 'small.txt', 'changed\n');
    write(root, 'big.txt', 'changed\n');
    expect(cps.diff(id).map((c) => c.path)).toEqual(['big.txt', 'small.txt']);
    cps.restore(id);
    expect(fs.readFileSync(path.join(root, 'small.txt'), 'utf8')).toBe('small\n');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(big);
  });

  it('refuses paths outside the root', () => {
    const root = project();
    expect(() => service(root).create('x', 'y', 'files', { paths: ['../escape.txt'] })).toThrow(/outside the workspace root/);
  });
});

describe('ignored files are never recorded and never deleted', () => {
  it('skips .gitignore matches (nested and negated), .git/ and .editwarden/, and keeps them through a restore', () => {
    const root = tempRoot();
    write(root, '.gitignore', 'build/\n*.log\n.env\n');
    write(root, 'pkg/.gitignore', '*.tmp\n!keep.tmp\n');
    write(root, 'src/main.ts', 'main\n');
    write(root, 'build/out.js', 'built\n');
    write(root, 'debug.log', 'log\n');
    write(root, 'pkg/x.tmp', 'tmp\n');
    write(root, 'pkg/keep.tmp', 'kept\n');
    write(root, 'sub/.git/HEAD', 'ref: refs/heads/main\n');
    const cps = service(root);
    const id = cps.create('w', 'test');
    const recorded = cps.get(id).entries.map((e) => e.path);
    expect(recorded).toEqual(['.gitignore', 'pkg/.gitignore', 'pkg/keep.tmp', 'src/main.ts']);
    write(root, '.env', 'SECRET=1\n');
    write(root, 'build/new.js', 'new build output\n');
    write(root, 'created.ts', 'created\n');
    cps.restore(id);
    expect(fs.existsSync(path.join(root, 'created.ts'))).toBe(false);
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(fs.existsSync(path.join(root, 'build/new.js'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'sub/.git/HEAD'))).toBe(true);
  });

  it('never deletes a file that was ignored when the checkpoint was taken, even if the ignore rule is gone now', () => {
    const root = tempRoot();
    write(root, '.gitignore', '.env\n');
    write(root, '.env', 'SECRET=1\n');
    write(root, 'a.txt', 'a\n');
    const cps = service(root);
    const id = cps.create('w', 'test');
    write(root, '.gitignore', '# nothing ignored any more\n');
    cps.restore(id);
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(fs.readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('.env\n');
  });
});

describe('workspace checkpoints are incremental', () => {
  class CountingBlobs extends BlobStore {
    reads = 0;
    override put(bytes: Uint8Array, durability: Durability): string {
      this.reads++;
      return super.put(bytes, durability);
    }
  }

  it('reads again only files whose size, mtime, ctime or inode changed', async () => {
    const root = tempRoot();
    for (let i = 0; i < 20; i++) write(root, `f${i}.txt`, `file ${i}\n`);
    const past = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < 20; i++) fs.utimesSync(path.join(root, `f${i}.txt`), past, past);
    // The clock is read from the file system after the last change, one timestamp tick later.
    await new Promise((r) => setTimeout(r, 30));
    const clock = new StatCacheStore(new Resolver(root), 'checkpoints').clock() as FsClock;
    const blobs = new CountingBlobs(new Resolver(root), 'checkpoints/blobs');
    const first = captureWorkspace(root, blobs, null);
    expect(blobs.reads).toBe(20);
    write(root, 'f3.txt', 'changed\n');
    blobs.reads = 0;
    const second = captureWorkspace(root, blobs, StatCache.of(clock, first.folders));
    expect(second.read).toBe(1);
    // The one file read is small: kept inline in its folder's chunk, no blob stored (capture.ts WORKSPACE_INLINE_FILES).
    expect(blobs.reads).toBe(0);
    expect(second.entries.find((e) => e.path === 'f3.txt')).toMatchObject({ type: 'file', size: 8 });
    // The same entries as a full capture, but for where the bytes are kept (inline or a blob of the same hash).
    const where = (entries: ManifestEntry[]) => entries.map((e) => (e.type === 'file' ? { ...e, inline: undefined } : e));
    expect(where(second.entries)).toEqual(where(captureWorkspace(root, blobs, null).entries));
  });

  it('does not trust the stat of files changed in or after the clock tick the previous scan began at (racy git)', () => {
    const root = tempRoot();
    const clock = new StatCacheStore(new Resolver(root), 'checkpoints').clock() as FsClock;
    write(root, 'racy.txt', 'aaaa\n');
    const blobs = new CountingBlobs(new Resolver(root), 'checkpoints/blobs');
    const first = captureWorkspace(root, blobs, null);
    expect(captureWorkspace(root, blobs, StatCache.of(clock, first.folders)).read).toBe(1);
  });

  it('a second checkpoint through the service reuses blobs and stores only the changed file', () => {
    const root = tempRoot();
    for (let i = 0; i < 10; i++) write(root, `f${i}.txt`, `file ${i}\n`);
    const cps = service(root);
    cps.create('one', 'test');
    write(root, 'f0.txt', 'changed content\n');
    const id = cps.create('two', 'test');
    const list = cps.list();
    expect(list.find((c) => c.id === id)?.uniqueBytes).toBe('changed content\n'.length);
  });
});

describe('diff shows what changed since a checkpoint', () => {
  it('lists added, deleted, modified, mode and type changes with unified diffs', () => {
    const root = project();
    const cps = service(root);
    const id = cps.create('d', 'test');
    mess(root);
    const changes = cps.diff(id);
    const byPath = Object.fromEntries(changes.map((c) => [c.path, c.change]));
    expect(byPath).toMatchObject({
      'README.md': 'modified',
      'bin/run.sh': 'mode',
      'secret.key': 'mode',
      'src/deep/b.ts': 'deleted',
      'src/c.ts': 'added',
      'new/nested/file.txt': 'added',
      'link-a': 'modified',
      'src/link-deep': 'type',
      'new-link': 'added',
    });
    const readme = changes.find((c) => c.path === 'README.md');
    expect(readme?.patch).toContain('-# project');
    expect(readme?.patch).toContain('+# changed');
    expect(cps.diff(id, { patch: false }).every((c) => c.patch === undefined)).toBe(true);
  });

  it('is empty right after a restore', () => {
    const root = project();
    const cps = service(root);
    const id = cps.create('d', 'test');
    mess(root);
    cps.restore(id);
    expect(cps.diff(id)).toEqual([]);
  });
});

describe('list, drop and prune', () => {
  it('lists checkpoints oldest first with their sizes', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'aaaa');
    write(root, 'b.txt', 'bb');
    const cps = service(root);
    const one = cps.create('one', 'first');
    write(root, 'a.txt', 'AAAAAA');
    const two = cps.create('two', 'second');
    const list = cps.list();
    expect(list.map((c) => c.id)).toEqual([one, two]);
    expect(list[0]).toMatchObject({ name: 'one', reason: 'first', scope: 'workspace', files: 2, bytes: 6, uniqueBytes: 4 });
    expect(list[1]).toMatchObject({ files: 2, bytes: 8, uniqueBytes: 6 });
  });

  it('drop removes the manifest and the blobs only it used, keeps shared blobs', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'shared');
    write(root, 'b.txt', 'only in one');
    const cps = service(root);
    const one = cps.create('one', 'x');
    write(root, 'b.txt', 'only in two');
    const two = cps.create('two', 'x');
    const bBlob = (id: string): string => {
      const e = cps.get(id).entries.find((x) => x.path === 'b.txt');
      return e && e.type === 'file' ? e.blob : '';
    };
    const oneBlob = bBlob(one);
    const freed = cps.drop(one);
    expect(freed.freedBytes).toBe('only in one'.length);
    expect(fs.existsSync(cps.blobs.pathOf(oneBlob))).toBe(false);
    expect(cps.list().map((c) => c.id)).toEqual([two]);
    cps.restore(two);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('shared');
    expect(() => cps.drop(one)).toThrow(EditwardenError);
  });

  it('prune keeps the newest N, or drops those older than a duration, or both', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a');
    let clock = Date.parse('2025-01-01T00:00:00Z');
    const cps = service(root, () => new Date(clock));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      write(root, 'a.txt', `version ${i}`);
      ids.push(cps.create(`c${i}`, 'x'));
      clock += 86_400_000; // One day apart.
    }
    // now = day 5; checkpoints at days 0..4.
    expect(cps.prune({ keepLast: 4, olderThanMs: parseDuration('3d') }).dropped).toEqual([ids[0]]);
    expect(cps.prune({ olderThanMs: parseDuration('2d') }).dropped).toEqual([ids[1], ids[2]]);
    const last = cps.prune({ keepLast: 1 });
    expect(last.dropped).toEqual([ids[3]]);
    expect(last.kept).toBe(1);
    cps.restore(ids[4] as string);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('version 4');
  });

  it('prune needs a rule and never drops checkpoints an unfinished transaction needs', () => {
    const list = [
      { id: '20250101-000000-000-aaaa', createdAt: '2025-01-01T00:00:00Z' },
      { id: '20250102-000000-000-bbbb', createdAt: '2025-01-02T00:00:00Z' },
    ];
    expect(() => selectForPrune(list, {}, new Date(), new Set())).toThrow(/needs a rule/);
    expect(selectForPrune(list, { keepLast: 0 }, new Date(), new Set(['20250101-000000-000-aaaa']))).toEqual(['20250102-000000-000-bbbb']);
    expect(() => parseDuration('7 days')).toThrow(/not a duration/);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
  });

  it('refuses an unknown id with E_NOT_FOUND', () => {
    const root = tempRoot();
    try {
      service(root).restore('20250101-000000-000-abcd');
      expect.unreachable();
    } catch (error) {
      expect((error as EditwardenError).code).toBe('E_NOT_FOUND');
    }
  });
});

describe('git state is never touched', () => {
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

  it('leaves .git (index, stash, refs) byte-identical and untracked files alone through checkpoint, diff, restore and drop', () => {
    const root = tempRoot('ew-git-');
    git(root, 'init', '-q', '-b', 'main');
    write(root, 'tracked.txt', 'v1\n');
    write(root, 'other.txt', 'other\n');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'one');
    write(root, 'tracked.txt', 'stashed change\n');
    git(root, 'stash', '-q');
    write(root, 'other.txt', 'staged\n');
    git(root, 'add', 'other.txt');
    write(root, 'untracked.txt', 'user work in progress\n');
    const status = git(root, 'status', '--porcelain');
    const gitBefore = hashTree(path.join(root, '.git'));
    const treeBefore = snapshotTree(root, ['.editwarden', '.git']);

    const cps = service(root);
    const id = cps.create('g', 'test');
    write(root, 'tracked.txt', 'agent edit\n');
    fs.rmSync(path.join(root, 'untracked.txt'));
    write(root, 'agent-new.txt', 'new\n');
    cps.diff(id);
    const restored = cps.restore(id);
    cps.restore(restored.safety as string);
    cps.restore(id);
    cps.drop(restored.safety as string);

    expect(hashTree(path.join(root, '.git'))).toBe(gitBefore);
    expect(snapshotTree(root, ['.editwarden', '.git'])).toEqual(treeBefore);
    expect(git(root, 'status', '--porcelain')).toBe(status);
    expect(git(root, 'stash', 'list')).toContain('stash@{0}');
  });

  it('keeps .editwarden/ out of git status', () => {
    const root = tempRoot('ew-git-');
    git(root, 'init', '-q');
    write(root, 'a.txt', 'a\n');
    service(root).create('g', 'test');
    expect(git(root, 'status', '--porcelain')).toBe('?? a.txt\n');
  });
});

describe('a restore that cannot finish changes nothing', () => {
  it('puts back the files it had already restored when it meets a folder it may not remove', () => {
    const root = tempRoot();
    write(root, '.gitignore', '*.log\n');
    write(root, 'a.txt', 'a1\n');
    write(root, 'z.txt', 'z1\n');
    const cps = service(root);
    const id = cps.create('w', 'test');
    write(root, 'a.txt', 'a2\n');
    fs.rmSync(path.join(root, 'z.txt'));
    // An ignored file is never deleted, so this folder cannot make way for z.txt.
    write(root, 'z.txt/keep.log', 'a folder with an ignored file stands where z.txt was\n');
    const before = snapshotTree(root);
    expect(() => cps.restore(id)).toThrow(/a folder with files in it stands where the file was/);
    expect(snapshotTree(root)).toEqual(before);
    expect(fs.readdirSync(path.join(root, '.editwarden/journal'))).toEqual([]);
  });
});

describe('large files are streamed into the store', () => {
  it('records and restores a file above the streaming threshold byte for byte', () => {
    const root = tempRoot();
    const big = Buffer.alloc(STREAM_MIN_BYTES + 12345);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    fs.writeFileSync(path.join(root, 'asset.bin'), big);
    const cps = service(root);
    const id = cps.create('big', 'test');
    const entry = cps.get(id).entries[0];
    expect(entry).toMatchObject({ path: 'asset.bin', type: 'file', size: big.length, blob: sha256(big) });
    fs.writeFileSync(path.join(root, 'asset.bin'), 'replaced');
    cps.restore(id);
    expect(fs.readFileSync(path.join(root, 'asset.bin')).equals(big)).toBe(true);
    expect(fs.readdirSync(cps.blobs.dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });
});
