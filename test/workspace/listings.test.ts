/**
 * Folder listings reused by the walk (src/workspace/checkpoints/listings.ts):
 * a walk that reuses what an earlier walk listed gives exactly what a walk
 * that reads every folder gives — after random changes made in the same
 * timestamp tick as the recording walk's clock or later, and while a real
 * process adds, removes and renames entries during the recording walks.
 * And the listings are used: an unchanged folder is not read again.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetListings } from '../../src/workspace/checkpoints/listings.js';
import type { FsClock } from '../../src/workspace/checkpoints/stat-cache.js';
import { walkWorkspace } from '../../src/workspace/checkpoints/walk.js';
import { doesNotFit, plainWalk, tempRoot, write } from './fixtures/checkpoint-helpers.js';

/** The file system's time now, read as the checkpoint service reads it: the mtime of a file just written there. */
function fsClock(root: string): FsClock {
  const at = path.join(root, '.editwarden', 'clock');
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(at, '');
  const st = fs.statSync(at);
  return { ms: st.mtimeMs, dev: st.dev };
}

/** A walk that records (it read a clock first), one that reuses, one that reads every folder: all on this thread. */
type Walked = ReturnType<typeof plainWalk>;
const recording = (root: string, clock: FsClock = fsClock(root)): Walked => plainWalk(walkWorkspace(root, undefined, undefined, { pool: null, clock }));
const reusing = (root: string): Walked => plainWalk(walkWorkspace(root, undefined, undefined, { pool: null }));
const cold = (root: string): Walked => plainWalk(walkWorkspace(root, undefined, undefined, { pool: null, reuseListings: false }));

/** Folders listed from disk while `fn` runs (relative to `root`). */
function foldersRead(root: string, fn: () => void): string[] {
  const read: string[] = [];
  const real = fs.readdirSync;
  const spy = ((dir: fs.PathLike, options?: unknown) => {
    // The walk lists through /proc/self/fd/N: the descriptor's target names the folder.
    const target = fs.readlinkSync(String(dir));
    read.push(path.relative(root, target));
    return (real as (d: fs.PathLike, o?: unknown) => unknown)(dir, options);
  }) as typeof fs.readdirSync;
  fs.readdirSync = spy;
  try {
    fn();
  } finally {
    fs.readdirSync = real;
  }
  return read.sort();
}

/** A word to wait on that nobody wakes: Atomics.wait on it is a synchronous sleep. */
const NEVER_WOKEN = new Int32Array(new SharedArrayBuffer(4));

/**
 * Waits past the file system's timestamp tick (the properties are synchronous: no timer) with the thread asleep, not
 * spinning: a few hundred waits of 15 ms each were seconds of CPU spent on nothing.
 */
function pastTick(): void {
  const until = Date.now() + 15;
  for (let left = 15; left > 0; left = until - Date.now()) Atomics.wait(NEVER_WOKEN, 0, 0, left);
}

type Op =
  | { kind: 'add'; dir: string; name: string }
  | { kind: 'remove'; path: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'rewrite'; path: string }
  | { kind: 'toDir'; path: string }
  | { kind: 'toLink'; path: string }
  | { kind: 'mkdir'; dir: string }
  | { kind: 'ignore'; dir: string; rules: string };

const DIRS = ['', 'a', 'a/b', 'c', 'c/d/e'];
const NAMES = ['x', 'y', 'z.log', 'ä', 'k k'];
const PATHS = DIRS.flatMap((d) => NAMES.map((n) => (d === '' ? n : `${d}/${n}`)));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), dir: fc.constantFrom(...DIRS), name: fc.constantFrom(...NAMES, 'new') }),
  fc.record({ kind: fc.constant('remove' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...PATHS), to: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('rewrite' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('toDir' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('toLink' as const), path: fc.constantFrom(...PATHS, 'a', 'c/d') }),
  fc.record({ kind: fc.constant('mkdir' as const), dir: fc.constantFrom('f', 'a/g', 'c/d/h') }),
  fc.record({ kind: fc.constant('ignore' as const), dir: fc.constantFrom('', 'a', 'c'), rules: fc.constantFrom('', '*.log\n', 'b/\n', 'x\n', '*\n!y\n') }),
);

/** Applies what fits the tree now (an op on nothing is skipped). */
function apply(root: string, o: Op): void {
  const abs = (rel: string): string => path.join(root, rel);
  try {
    switch (o.kind) {
      case 'add':
        fs.writeFileSync(abs(o.dir === '' ? o.name : `${o.dir}/${o.name}`), 'added\n');
        return;
      case 'remove':
        fs.rmSync(abs(o.path), { recursive: true });
        return;
      case 'rename':
        fs.renameSync(abs(o.from), abs(o.to));
        return;
      case 'rewrite':
        // Content only: the folder's key stays, the file's own lstat must show the change.
        fs.writeFileSync(abs(o.path), `rewritten ${Math.random()}\n`);
        return;
      case 'toDir':
        fs.rmSync(abs(o.path), { recursive: true });
        write(root, `${o.path}/inner`, 'inner\n');
        return;
      case 'toLink':
        fs.rmSync(abs(o.path), { recursive: true });
        fs.symlinkSync('x', abs(o.path));
        return;
      case 'mkdir':
        write(root, `${o.dir}/m`, 'm\n');
        return;
      case 'ignore':
        fs.writeFileSync(abs(o.dir === '' ? '.gitignore' : `${o.dir}/.gitignore`), o.rules);
        return;
      default: {
        const never: never = o;
        throw new Error(String(never));
      }
    }
  } catch (error) {
    if (!doesNotFit(error)) throw error;
  }
}

/** The tree, and the state folder the clock is read in (made now: making it later would change the root's key). */
function seed(root: string): void {
  for (const p of PATHS) write(root, p, `${p}\n`);
  fs.mkdirSync(path.join(root, '.editwarden'), { recursive: true });
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function root(prefix = 'ew-listings-'): string {
  const r = tempRoot(prefix);
  made.push(r);
  return r;
}

describe('a walk that reuses listings gives what a walk reading every folder gives', () => {
  it('after random changes (adds, removes, renames, rewrites, file ↔ folder ↔ link, new folders, .gitignore), made in the clock’s tick or after it', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 4 }), wait: fc.boolean() }), { minLength: 1, maxLength: 4 }), fc.boolean(), (rounds, settle) => {
        const r = tempRoot('ew-listings-prop-');
        try {
          seed(r);
          // Settled: every folder older than the first clock, so it is recorded (most of the time it must be).
          if (settle) pastTick();
          recording(r);
          for (const { ops, wait } of rounds) {
            // Straight after the recording walk (often its clock's tick) or past it.
            if (wait) pastTick();
            for (const o of ops) apply(r, o);
            const fresh = cold(r);
            expect(reusing(r)).toEqual(fresh);
            expect(recording(r)).toEqual(fresh);
          }
        } finally {
          fs.rmSync(r, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('is used: after a content change and an added file, only the folder the file was added to is read again', () => {
    const r = root();
    seed(r);
    pastTick();
    const first = foldersRead(r, () => recording(r));
    expect(first).toEqual(['', 'a', 'a/b', 'c', 'c/d', 'c/d/e']);
    fs.writeFileSync(path.join(r, 'a/b/x'), 'new content\n');
    fs.writeFileSync(path.join(r, 'c/added'), 'added\n');
    let walked: Walked | null = null;
    expect(foldersRead(r, () => (walked = reusing(r)))).toEqual(['c']);
    expect(walked).toEqual(cold(r));
  });

  it('a folder changed in the clock’s tick (or after it) is not recorded; one changed strictly before is', () => {
    const r = root();
    seed(r);
    pastTick();
    const key = fs.statSync(path.join(r, 'a'));
    // A clock equal to folder a's mtime: its listing could miss a change made later in that tick, so it is read again.
    // (Kernels with multigrain timestamps, 6.13+, give a change after a stat a new time, so the tick cannot be hit by a
    // real race there; older kernels and other file systems share a coarse tick. This pins the rule.)
    recording(r, { ms: key.mtimeMs, dev: key.dev });
    expect(foldersRead(r, () => reusing(r))).toContain('a');
    // A clock just after it: recorded, and reused.
    recording(r, { ms: Math.max(key.mtimeMs, key.ctimeMs) + 1, dev: key.dev });
    expect(foldersRead(r, () => reusing(r))).not.toContain('a');
    // A clock of another device records nothing (a listing still holding is carried over: forgotten first).
    forgetListings();
    recording(r, { ms: Date.now() + 1000, dev: key.dev + 1 });
    expect(foldersRead(r, () => reusing(r))).toEqual(['', 'a', 'a/b', 'c', 'c/d', 'c/d/e']);
  });

  it('a change landing while a folder is read (after its key was taken) leaves a key the next walk does not trust', () => {
    const r = root();
    seed(r);
    pastTick();
    const real = fs.readdirSync;
    let planted = false;
    // A writer at the worst moment: right after the folder's entries were read.
    fs.readdirSync = ((dir: fs.PathLike, options?: unknown) => {
      const out = (real as (d: fs.PathLike, o?: unknown) => unknown)(dir, options);
      if (!planted && fs.readlinkSync(String(dir)) === path.join(r, 'c')) {
        planted = true;
        fs.writeFileSync(path.join(r, 'c', 'late'), 'late\n');
      }
      return out;
    }) as typeof fs.readdirSync;
    try {
      // A clock far ahead: the racy-clock rule would keep this listing out on its own; here only the key's order is tested.
      recording(r, { ms: Date.now() + 60_000, dev: fs.statSync(r).dev });
    } finally {
      fs.readdirSync = real;
    }
    expect(planted).toBe(true);
    const walked = reusing(r);
    expect(walked.entries.map((e) => e.path)).toContain('c/late');
    expect(walked).toEqual(cold(r));
  });

  it('a walk given no clock records nothing and keeps what was recorded; reuseListings false reads every folder', () => {
    const r = root();
    seed(r);
    pastTick();
    recording(r);
    expect(foldersRead(r, () => reusing(r))).toEqual([]);
    expect(foldersRead(r, () => reusing(r))).toEqual([]);
    expect(foldersRead(r, () => cold(r))).toEqual(['', 'a', 'a/b', 'c', 'c/d', 'c/d/e']);
  });
});

/** A real process that adds, removes and renames entries in every folder of the tree, for `ms`. */
function churn(r: string, ms: number): Promise<void> {
  const script = `
    const fs = require('node:fs'), path = require('node:path');
    const dirs = ${JSON.stringify(DIRS)}.map((d) => path.join(${JSON.stringify(r)}, d));
    const until = Date.now() + ${ms};
    let i = 0;
    while (Date.now() < until) {
      const d = dirs[i % dirs.length];
      const n = path.join(d, 'churn' + (i % 7));
      try {
        if (i % 3 === 0) fs.writeFileSync(n, String(i));
        else if (i % 3 === 1) fs.renameSync(n, n + '.moved');
        else fs.rmSync(n + '.moved', { force: true });
      } catch {}
      i++;
    }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

describe('listings recorded while a real process changes the folders', () => {
  it('never leave a walk seeing a folder as it was: after the process stops, the reusing walk equals a fresh one', async () => {
    const r = root();
    seed(r);
    for (let trial = 0; trial < 5; trial++) {
      const done = churn(r, 300);
      let walks = 0;
      let finished = false;
      void done.then(() => (finished = true));
      while (!finished) {
        recording(r);
        walks++;
        await new Promise((res) => setImmediate(res));
      }
      await done;
      expect(walks).toBeGreaterThan(1);
      // No wait: the last recording walk may have listed a folder in the tick of its last change.
      const fresh = cold(r);
      expect(reusing(r)).toEqual(fresh);
      expect(recording(r)).toEqual(fresh);
    }
  });
});
