/**
 * The command index (command-index.ts) and its one-walk diff (index-diff.ts):
 * the diff a command's effects are charged and undone from is exactly the
 * full `diffManifest` of the index, whatever the command did — including a
 * same-size rewrite in the same timestamp tick — and the index is kept as the
 * next command's base instead of being dropped and re-read; over an
 * unchanged tree it is reused (no manifest written), exactly, under a lease.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { captureWorkspace } from '../../src/workspace/checkpoints/capture.js';
import { CommandIndex } from '../../src/workspace/checkpoints/command-index.js';
import { diffIndex } from '../../src/workspace/checkpoints/index-diff.js';
import type { ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';

const NAMES = ['a.txt', 'b.txt', 'src/c.ts', 'src/deep/d.ts', 'e.bin'];

type Op = { kind: 'write'; name: string; text: string } | { kind: 'delete'; name: string } | { kind: 'chmod'; name: string } | { kind: 'link'; name: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), name: fc.constantFrom(...NAMES, 'new.txt', 'src/new/n.ts'), text: fc.constantFrom('x\n', 'y\n', 'xy\n', '') }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('chmod' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('link' as const), name: fc.constantFrom('l1', 'src/l2') }),
);

function apply(root: string, o: Op): void {
  const abs = path.join(root, o.name);
  switch (o.kind) {
    case 'write':
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, o.text);
      return;
    case 'delete':
      fs.rmSync(abs, { force: true });
      return;
    case 'chmod':
      if (fs.existsSync(abs)) fs.chmodSync(abs, 0o700);
      return;
    case 'link':
      fs.rmSync(abs, { force: true });
      fs.symlinkSync('a.txt', abs);
      return;
    default: {
      const never: never = o;
      throw new Error(`unknown operation ${JSON.stringify(never)}`);
    }
  }
}

describe('the one-walk diff of a command index', () => {
  it('finds exactly what the full diff of the index finds, whatever a command did (same-size rewrites in the same tick included)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 0, maxLength: 6 }), (ops) => {
        const root = tempRoot();
        try {
          for (const n of NAMES) write(root, n, 'x\n');
          const { transactions } = openWorkspace(root);
          const cps = transactions.checkpoints;
          const index = new CommandIndex(cps).take('prop').manifest;
          for (const o of ops) apply(root, o);
          const rules = { only: 'checkpoint' as const, exclude: null };
          const fast = diffIndex(cps.ws.resolver, index, cps.blobs, rules, { patch: false });
          const full = cps.diff(index.id, { rules, patch: false });
          expect(fast).toEqual(full);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the one-walk diff merges in path order', () => {
  it('an index whose entries are not in path order (a manifest written by hand) is diffed exactly all the same', () => {
    const root = tempRoot();
    for (const n of NAMES) write(root, n, 'x\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const index = new CommandIndex(cps).take('order').manifest;
    write(root, 'src/c.ts', 'changed\n');
    fs.rmSync(path.join(root, 'a.txt'));
    write(root, 'new.txt', 'n\n');
    const rules = { only: 'checkpoint' as const, exclude: null };
    const shuffled = { ...index, entries: [...index.entries].reverse() };
    const fast = diffIndex(cps.ws.resolver, shuffled, cps.blobs, rules, { patch: false });
    expect(fast.map((c) => [c.path, c.change])).toEqual([
      ['a.txt', 'deleted'],
      ['new.txt', 'added'],
      ['src/c.ts', 'modified'],
    ]);
    expect(fast).toEqual(cps.diff(index.id, { rules, patch: false }));
  });
});

describe("the command index is kept as the next one's base", () => {
  it('after three commands exactly one index remains, and the second index read no file again (every blob reused)', () => {
    const root = tempRoot();
    for (let i = 0; i < 50; i++) write(root, `src/f${i}.ts`, `export const v${i} = ${i};\n`);
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const effects = new CommandEffects(cps);
    for (let i = 0; i < 3; i++) effects.after(effects.before(`call ${i}`));
    const indexes = cps.list().filter((c) => c.origin.kind === 'index');
    expect(indexes).toHaveLength(1);
    // Every file of the kept index is one blob of the store: nothing was copied twice or collected and re-stored.
    expect(cps.blobs.listAll().length).toBe(50);
  });

  it('a pointer edited to name another checkpoint never removes it', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const manual = cps.create('keep me', 'a person took it');
    fs.writeFileSync(path.join(root, '.editwarden/checkpoints/command-index'), `${manual}\n`);
    const index = new CommandIndex(cps);
    index.release(index.take('x').manifest.id);
    expect(cps.list().map((c) => c.id)).toContain(manual);
  });
});

/** Waits past the file system's timestamp tick, so files written before count as older than the next scan's clock (stat-cache.ts). */
const pastTick = (): Promise<void> => new Promise((r) => setTimeout(r, 30));

function manifestFiles(root: string): string[] {
  return fs.readdirSync(path.join(root, '.editwarden/checkpoints/manifests/workspace')).sort();
}

/** The fields a restore and the limits read from an entry (the stats are the cache's business). */
function content(entries: readonly ManifestEntry[]): unknown[] {
  return entries.map((e) => (e.type === 'file' ? [e.path, e.blob, e.size, e.mode] : e.type === 'symlink' ? [e.path, e.target] : [e.path, e.type]));
}

describe('an unchanged tree reuses the kept index', () => {
  it('writes no manifest for a command over an unchanged tree, and the effects and the undo step of the next command are still exact', async () => {
    const root = tempRoot();
    for (let i = 0; i < 20; i++) write(root, `src/f${i}.ts`, `export const v${i} = ${i};\n`);
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const effects = new CommandEffects(cps);
    await pastTick();
    const first = effects.before('ls', { command: 'ls', run: 'r' });
    expect(first.lease).toBeUndefined();
    effects.after(first);
    const written = manifestFiles(root);
    await pastTick();
    const second = effects.before('sed', { command: 'sed -i s/5/6/ src/f5.ts', run: 'r' });
    // The same index, under a lease, and no manifest written for it.
    expect(second.checkpoint).toBe(first.checkpoint);
    expect(second.lease).toMatch(new RegExp(`^${first.checkpoint}\\.${process.pid}\\.[0-9a-f]{8}$`));
    expect(manifestFiles(root)).toEqual(written);
    // Nor the pointer: a third command over the unchanged tree leaves the very same file (a rewrite is a new inode).
    const pointer = path.join(root, '.editwarden/checkpoints/command-index');
    const pointed = fs.statSync(pointer).ino;
    const third = effects.before('true', { command: 'true', run: 'r' });
    expect(third.checkpoint).toBe(first.checkpoint);
    expect(effects.after(third).changes).toEqual([]);
    expect(fs.statSync(pointer).ino).toBe(pointed);
    expect(fs.readFileSync(pointer, 'utf8')).toBe(`${first.checkpoint}\n`);
    const before = snapshotTree(root);
    fs.writeFileSync(path.join(root, 'src/f5.ts'), 'export const v5 = 6;\n');
    const found = effects.after(second);
    expect(found.changes).toEqual([{ path: 'src/f5.ts', added: 1, removed: 1 }]);
    expect(fs.readdirSync(path.join(root, '.editwarden/checkpoints/index-leases'))).toEqual([]);
    cps.restore(found.step as string);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('records exactly the tree on disk, whatever changed between commands (folders and links included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(treeOp, { maxLength: 3 }), { minLength: 2, maxLength: 4 }), async (rounds) => {
        const root = tempRoot();
        try {
          for (const n of NAMES) write(root, n, 'x\n');
          const { transactions } = openWorkspace(root);
          const cps = transactions.checkpoints;
          const index = new CommandIndex(cps);
          for (const ops of rounds) {
            for (const o of ops) applyTreeOp(root, o);
            await pastTick();
            const { manifest, lease } = index.take('prop');
            const fresh = captureWorkspace(cps.ws.resolver, cps.blobs, null);
            expect(content(manifest.entries)).toEqual(content(fresh.entries));
            expect(manifest.dirs).toEqual(fresh.dirs);
            // The index on disk (reused or new) is the same state: what a person restoring it, or a recovery reading it, gets.
            const stored = cps.get(manifest.id);
            expect(content(stored.entries)).toEqual(content(fresh.entries));
            expect(stored.dirs).toEqual(fresh.dirs);
            if (lease) index.endLease(lease);
            index.release(manifest.id);
          }
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('a reused index is leased while its command runs', () => {
  it("another process's release keeps a leased index; the lease's end removes it", async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const ours = new CommandIndex(cps);
    const first = ours.take('one').manifest.id;
    ours.release(first);
    await pastTick();
    const reused = ours.take('long-running');
    expect(reused.manifest.id).toBe(first);
    // Meanwhile another command (another process) changes the tree and replaces the index.
    write(root, 'b.txt', 'b\n');
    const other = new CommandIndex(cps);
    const next = other.take('other').manifest.id;
    expect(next).not.toBe(first);
    other.release(next);
    expect(cps.manifests.scopeOf(first)).toBe('workspace');
    ours.endLease(reused.lease as string);
    expect(cps.manifests.scopeOf(first)).toBeNull();
    expect(cps.manifests.scopeOf(next)).toBe('workspace');
  });

  it('a lease left by a process that is gone does not keep the index', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const index = new CommandIndex(cps);
    const first = index.take('one').manifest.id;
    index.release(first);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const leases = path.join(root, '.editwarden/checkpoints/index-leases');
    fs.mkdirSync(leases, { recursive: true });
    fs.writeFileSync(path.join(leases, `${first}.${gone.stdout}.0badc0de`), '');
    write(root, 'b.txt', 'b\n');
    const next = index.take('two').manifest.id;
    index.release(next);
    expect(cps.manifests.scopeOf(first)).toBeNull();
    expect(fs.readdirSync(leases)).toEqual([]);
  });
});

type TreeOp = Op | { kind: 'mkdir'; name: string } | { kind: 'rmdir'; name: string };

const treeOp: fc.Arbitrary<TreeOp> = fc.oneof(op, fc.record({ kind: fc.constantFrom('mkdir' as const, 'rmdir' as const), name: fc.constantFrom('empty', 'src/deep/empty') }));

function applyTreeOp(root: string, o: TreeOp): void {
  if (o.kind === 'mkdir') fs.mkdirSync(path.join(root, o.name), { recursive: true });
  else if (o.kind === 'rmdir') fs.rmSync(path.join(root, o.name), { recursive: true, force: true });
  else apply(root, o);
}
