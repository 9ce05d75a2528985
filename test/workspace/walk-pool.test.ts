/**
 * The walk's stats on worker threads (stat-pool.ts): the threaded walk gives
 * exactly what the walk on the calling thread alone gives, and a thread that
 * fails or stalls costs a second walk, never a partial result. Worker threads
 * run compiled code, so these tests load the build in dist/ (brought up to
 * date by the suite's global setup).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyAt } from '../../src/workspace/checkpoints/stat-batch.js';
import { compareByPath } from '../../src/workspace/checkpoints/types.js';
import type { PendingWalk } from '../../src/workspace/checkpoints/walk.js';
import { plainWalk, tempRoot } from './fixtures/checkpoint-helpers.js';

type WalkModule = typeof import('../../src/workspace/checkpoints/walk.js');
type PoolModule = typeof import('../../src/workspace/checkpoints/stat-pool.js');

/**
 * A pipelined walk read as the capture reads it: each file's numbers taken right after `ready` said they are final,
 * before any later file is asked for. Null when a `ready` or the `end` said a thread failed.
 */
function readInOrder(w: PendingWalk): ReturnType<typeof plainWalk> | null {
  let n = 0;
  const entries: ReturnType<typeof plainWalk>['entries'] = [];
  for (const e of w.entries) {
    if (e.type !== 'file') {
      entries.push(e);
      continue;
    }
    if (!w.ready(n++)) return null;
    entries.push({ path: e.path, type: e.type, stat: keyAt(e.stats, e.at) });
  }
  return w.end() ? { entries, dirs: w.dirs } : null;
}

const DIST = path.resolve(__dirname, '../../dist/workspace/checkpoints');
let walk: WalkModule;
let poolMod: PoolModule;

beforeAll(async () => {
  if (!fs.existsSync(path.join(DIST, 'stat-pool.js'))) throw new Error('run `npm run build` first: the worker threads load compiled code');
  walk = (await import(path.join(DIST, 'walk.js'))) as WalkModule;
  poolMod = (await import(path.join(DIST, 'stat-pool.js'))) as PoolModule;
});

/** Names that sort in every interesting way: "a" < "a-b" < "a.b" < "a/…", case, non-ASCII, spaces, astral characters. */
const NAMES = ['a', 'a-b', 'a.b', 'A', 'b c', 'ä', 'é', 'z😀', 'keep.log', 'x.log', 'build', 'node_modules', '.env', 'n', '.hidden'];
const RULES = ['*.log', '!keep.log', 'build/', 'a*', '!a.b', '/a-b', '**/n', 'é', 'b c', '# a comment', 'node_modules/', '*', '!*/', '.env'];

type Op = { kind: 'file'; at: string[]; text: string } | { kind: 'dir'; at: string[] } | { kind: 'link'; at: string[]; target: string } | { kind: 'ignore'; at: string[]; rules: string[] };

const at = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('file' as const), at, text: fc.string({ maxLength: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dir' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('link' as const), at, target: fc.constantFrom('a', 'missing', '../a', 'build', '/etc', 'a-b/n') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('ignore' as const), at: fc.array(fc.constantFrom(...NAMES), { maxLength: 2 }), rules: fc.array(fc.constantFrom(...RULES), { maxLength: 4 }) }) },
);

/** Whether every folder on the way to `parts` is a real folder or missing (never a symlink: nothing is written outside the root). */
function realWay(root: string, parts: readonly string[]): boolean {
  let cur = root;
  for (const part of parts) {
    cur = path.join(cur, part);
    const st = fs.lstatSync(cur, { throwIfNoEntry: false });
    if (st === undefined) return true;
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** Applies what fits (a file where a folder is wanted is skipped, as a person's mkdir would fail). */
function build(root: string, ops: readonly Op[]): void {
  for (const o of ops) {
    if (!realWay(root, o.kind === 'ignore' ? o.at : o.at.slice(0, -1))) continue;
    // Nor through a symlink at the end.
    if (o.kind === 'file' && fs.lstatSync(path.join(root, ...o.at), { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    try {
      const dir = path.join(root, ...(o.kind === 'ignore' ? o.at : o.at.slice(0, -1)));
      fs.mkdirSync(dir, { recursive: true });
      const abs = path.join(root, ...o.at);
      if (o.kind === 'file') fs.writeFileSync(abs, o.text);
      else if (o.kind === 'dir') fs.mkdirSync(abs, { recursive: true });
      else if (o.kind === 'link') fs.symlinkSync(o.target, abs);
      else fs.writeFileSync(path.join(dir, '.gitignore'), `${o.rules.join('\n')}\n`);
    } catch {
      // Does not apply to this tree.
    }
  }
}

describe('the threaded walk gives exactly what the walk on one thread gives', () => {
  let root: string;
  let threads: InstanceType<PoolModule['StatPool']>;
  let threadsOnly: InstanceType<PoolModule['StatPool']>;
  beforeAll(() => {
    root = tempRoot();
    // Tiny batches: even a tree of a few files is spread over the threads. One pool where the calling thread takes
    // part, one where it leaves every posted batch to the threads (so their results are the ones compared).
    threads = new poolMod.StatPool({ threads: 2, batchFiles: 2, leadFiles: 0 });
    threadsOnly = new poolMod.StatPool({ threads: 1, batchFiles: 3, callerStats: false, graceMs: 10_000, leadFiles: 0 });
    expect(threads.start() && threadsOnly.start()).toBe(true);
    expect(threads.waitReady(20_000) && threadsOnly.waitReady(20_000)).toBe(true);
  });
  afterAll(() => {
    threads.close();
    threadsOnly.close();
  });

  it('on random trees: files, folders, symlinks, nested .gitignore with negations, ignored folders, odd names; with several ignore sources and .git/info/exclude', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.option(fc.array(fc.constantFrom(...RULES), { maxLength: 3 })), fc.array(fc.constantFrom(...RULES), { maxLength: 3 }), (ops, exclude, recordedRules) => {
        fs.rmSync(root, { recursive: true, force: true });
        fs.mkdirSync(root);
        build(root, ops);
        fs.mkdirSync(path.join(root, '.git', 'info'), { recursive: true });
        fs.writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: x\n');
        const excludeText = exclude === null ? null : `${exclude.join('\n')}\n`;
        if (excludeText !== null) fs.writeFileSync(path.join(root, '.git', 'info', 'exclude'), excludeText);
        else fs.rmSync(path.join(root, '.git', 'info', 'exclude'), { force: true });
        // A second source: rules "as recorded" for the root and for "a".
        const recorded = new Map([
          ['', recordedRules.join('\n')],
          ['a', 'x.log\n'],
        ]);
        const both = [walk.diskIgnoreSource(root), (dir: string) => recorded.get(dir) ?? null];
        for (const [sources, excl] of [[undefined, undefined] as const, [both, excludeText] as const]) {
          const one = walk.walkWorkspace(root, sources, excl, { pool: null });
          expect([...one.entries].sort(compareByPath)).toEqual(one.entries);
          expect([...one.dirs].sort()).toEqual(one.dirs);
          expect(one.entries.every((e) => !e.path.split('/').includes('.git'))).toBe(true);
          expect(plainWalk(walk.walkWorkspace(root, sources, excl, { pool: threads }))).toEqual(plainWalk(one));
          expect(plainWalk(walk.walkWorkspace(root, sources, excl, { pool: threadsOnly }))).toEqual(plainWalk(one));
          // Pipelined (the capture's way): the same numbers, each final when it is read.
          expect(readInOrder(walk.startWalk(root, sources, excl, { pool: threads }))).toEqual(plainWalk(one));
          expect(readInOrder(walk.startWalk(root, sources, excl, { pool: threadsOnly }))).toEqual(plainWalk(one));
        }
      }),
      { numRuns: 100 },
    );
    // The threads did stat (the comparison was not of the calling thread with itself), and none failed.
    expect(threadsOnly.counts.threadBatches).toBeGreaterThan(50);
    expect(threads.counts.threadBatches + threads.counts.callerBatches).toBeGreaterThan(50);
    expect(threads.broken || threadsOnly.broken).toBe(false);
    expect(threadsOnly.counts.retaken).toBe(0);
  });

  it('on a tree of 3,000 files in 30 folders, with ordinary batches', () => {
    fs.rmSync(root, { recursive: true, force: true });
    for (let i = 0; i < 3000; i++) {
      const dir = path.join(root, `d${i % 30}`, i % 2 === 0 ? 'even' : 'odd');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `f${i}.ts`), `${i}\n`);
    }
    const pool = new poolMod.StatPool({ threads: 1 });
    try {
      expect(pool.start() && pool.waitReady(20_000)).toBe(true);
      const one = walk.walkWorkspace(root, undefined, undefined, { pool: null });
      expect(one.entries).toHaveLength(3000);
      expect(plainWalk(one).entries.every((e) => e.type === 'file' && e.stat !== null && e.stat.size > 0)).toBe(true);
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
      expect(pool.counts.threadBatches + pool.counts.callerBatches + pool.counts.retaken).toBe(Math.ceil(3000 / pool.batchFiles));
    } finally {
      pool.close();
    }
  });
});

describe('a thread that fails or stalls costs a second walk on the calling thread, never a partial result', () => {
  let root: string;
  beforeAll(() => {
    root = tempRoot();
    for (let i = 0; i < 40; i++) {
      fs.mkdirSync(path.join(root, `d${i % 4}`), { recursive: true });
      fs.writeFileSync(path.join(root, `d${i % 4}`, `f${i}`), 'x'.repeat(i));
    }
    fs.symlinkSync('d0', path.join(root, 'link'));
  });

  it('a thread that throws on its batch: the walk is done again on the calling thread alone, equal to the one-thread walk, and the pool is given up', () => {
    const pool = new poolMod.StatPool({ threads: 1, batchFiles: 4, callerStats: false, fault: 'throw', graceMs: 10_000, leadFiles: 0 });
    try {
      expect(pool.start() && pool.waitReady(20_000)).toBe(true);
      const one = walk.walkWorkspace(root, undefined, undefined, { pool: null });
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
      expect(pool.counts.fallbacks).toBe(1);
      expect(pool.counts.threadBatches).toBe(0);
      expect(pool.broken).toBe(true);
      expect(pool.usable).toBe(false);
      // Given up: the next walk stays on the calling thread, and is still right.
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
      expect(pool.counts.fallbacks).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('pipelined, a thread that throws: a ready or the end says so, the pool is given up, and a capture is done again whole without threads, equal to one without', async () => {
    const open = (await import(path.resolve(DIST, '../open.js'))) as typeof import('../../src/workspace/open.js');
    const cap = (await import(path.join(DIST, 'capture.js'))) as typeof import('../../src/workspace/checkpoints/capture.js');
    const faulty = (): InstanceType<PoolModule['StatPool']> => new poolMod.StatPool({ threads: 1, batchFiles: 4, callerStats: false, fault: 'throw', graceMs: 10_000, leadFiles: 0 });
    const pool = faulty();
    try {
      expect(pool.start() && pool.waitReady(20_000)).toBe(true);
      expect(readInOrder(walk.startWalk(root, undefined, undefined, { pool }))).toBeNull();
      expect(pool.counts.fallbacks).toBe(1);
      expect(pool.broken).toBe(true);
    } finally {
      pool.close();
    }
    const again = faulty();
    try {
      expect(again.start() && again.waitReady(20_000)).toBe(true);
      const blobs = open.openWorkspace(root).transactions.checkpoints.blobs;
      const without = cap.captureWorkspace(root, blobs, null, [], undefined, { pool: null, reuseListings: false });
      const threaded = cap.captureWorkspace(root, blobs, null, [], undefined, { pool: again });
      expect(again.counts.fallbacks).toBe(1);
      expect(threaded.entries).toEqual(without.entries);
      expect(threaded.entries.length).toBe(41); // 40 files and the link.
    } finally {
      again.close();
    }
  });

  it('a thread that ends while it holds a batch: the calling thread stats what it held (and what it never took) after the grace; the walk equals the one-thread walk; the pool is given up once the exit is seen', async () => {
    const pool = new poolMod.StatPool({ threads: 1, batchFiles: 4, callerStats: false, fault: 'exit', graceMs: 300, leadFiles: 0 });
    try {
      expect(pool.start() && pool.waitReady(20_000)).toBe(true);
      const one = walk.walkWorkspace(root, undefined, undefined, { pool: null });
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
      expect(pool.counts.retaken).toBe(10); // 40 files in batches of 4, none finished by the thread.
      expect(pool.counts.threadBatches).toBe(0);
      // Pipelined, the same: each batch the dead thread holds is statted here once the grace is over.
      expect(readInOrder(walk.startWalk(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
      expect(pool.counts.retaken).toBe(20);
      for (let i = 0; i < 200 && !pool.broken; i++) await new Promise((r) => setTimeout(r, 10));
      expect(pool.broken).toBe(true);
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(one));
    } finally {
      pool.close();
    }
  });

  it('a walk of no more files than the lead (1,024) never hands a batch to a thread', () => {
    // Batches of 4 that only threads may take once posted: none is posted, so this thread stats all ten.
    const pool = new poolMod.StatPool({ threads: 1, batchFiles: 4, callerStats: false });
    try {
      expect(pool.start() && pool.waitReady(20_000)).toBe(true);
      expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool: null })));
      expect(pool.counts).toEqual({ threadBatches: 0, callerBatches: 10, retaken: 0, fallbacks: 0 });
    } finally {
      pool.close();
    }
  });

  it('the threads start after the second walk of 2,000 files, not before', () => {
    const pool = new poolMod.StatPool({ threads: 1 });
    try {
      pool.noteWalk(1999);
      pool.noteWalk(1999);
      pool.noteWalk(2000);
      expect(pool.usable).toBe(false);
      pool.noteWalk(5000);
      expect(pool.usable).toBe(true);
    } finally {
      pool.close();
    }
  });

  it('a worker that cannot start (no compiled module): the walk runs on the calling thread', () => {
    const pool = new poolMod.StatPool({ threads: 1, workerFile: path.join(root, 'missing.js') });
    expect(pool.start()).toBe(false);
    expect(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool }))).toEqual(plainWalk(walk.walkWorkspace(root, undefined, undefined, { pool: null })));
    expect(pool.counts.threadBatches).toBe(0);
  });
});
