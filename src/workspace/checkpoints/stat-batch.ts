/**
 * The shared-memory protocol between a walk's calling thread (stat-run.ts)
 * and the stat pool's threads (stat-pool.ts): the layout of a walk's control
 * array and result regions, the messages, and the stat of one batch, which
 * both sides run. Pure layout and the lstat calls; no thread is started here.
 */
import fs from 'node:fs';
import type { StatKey } from './types.js';

/** Numbers per file in a batch's result: dev, ino, size, mtimeMs, ctimeMs, mode, uid, gid; dev NaN: no key. */
export const FIELDS = 8;
/** Control slots: batches settled (done or failed), a failure flag, then one claim slot per batch. */
export const SETTLED = 0;
export const FAILED = 1;
export const CLAIMS = 2;
/** Batches one walk may hand out; past it the calling thread stats the rest itself. */
export const MAX_BATCHES = 1 << 14;
/** Claim states. */
export const FREE = 0;
export const TAKEN = 1;
export const DONE = 2;
/** Files per result region: one shared buffer per 4,096 files, posted once, not one per batch. */
export const REGION_FILES = 4096;

/**
 * What a thread is sent, in order on its port: a region of a walk's results
 * (the first of a walk carries its control array), then the batches that
 * write into it: folder prefixes, and the names NUL-separated, "" switching
 * to the next prefix.
 */
export type ToWorker =
  | { kind: 'region'; walk: number; control: SharedArrayBuffer; region: number; out: SharedArrayBuffer }
  | { kind: 'batch'; walk: number; batch: number; region: number; offset: number; count: number; dirs: string[]; names: string };

/** lstat of every file of a batch into `out` (FIELDS numbers each); a "" name switches to the next prefix. Both sides run it. */
export function statBatch(dirs: readonly string[], names: readonly string[], out: Float64Array): void {
  let d = -1;
  let prefix = '';
  let o = 0;
  for (const name of names) {
    if (name === '') {
      prefix = dirs[++d] as string;
      continue;
    }
    statInto(prefix + name, out, o);
    o += FIELDS;
  }
}

function statInto(file: string, out: Float64Array, o: number): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    st = undefined; // The capture reads it through the folder's descriptor and sees what is there.
  }
  if (st === undefined || !st.isFile()) {
    out[o] = Number.NaN;
    return;
  }
  out[o] = st.dev;
  out[o + 1] = st.ino;
  out[o + 2] = st.size;
  out[o + 3] = st.mtimeMs;
  out[o + 4] = st.ctimeMs;
  out[o + 5] = st.mode;
  out[o + 6] = st.uid;
  out[o + 7] = st.gid;
}

/** Where each number of a file's stat sits among its FIELDS (statInto's order). */
export const AT = { dev: 0, ino: 1, size: 2, mtimeMs: 3, ctimeMs: 4, mode: 5, uid: 6, gid: 7 } as const;

/**
 * Whether the stat at `s[o …]` shows the file `entry` recorded, as far as a
 * walk's lstat can: a regular file (the stat did not fail), same inode, size,
 * mtime, ctime and permission bits. The one comparison the stat cache and a
 * command's diff share (each adds its own conditions).
 */
export function statShows(s: Float64Array, o: number, entry: Pick<StatKey, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'mode'>): boolean {
  return !Number.isNaN(s[o + AT.dev]) && s[o + AT.ino] === entry.ino && s[o + AT.size] === entry.size && s[o + AT.mtimeMs] === entry.mtimeMs && s[o + AT.ctimeMs] === entry.ctimeMs && ((s[o + AT.mode] as number) & 0o7777) === entry.mode;
}

/** A walked file's stat before its batch is done: no key (a file the walk never statted is never trusted). */
export const NO_STAT = new Float64Array([Number.NaN]);

/** The cache key of the file whose numbers start at `o`; null when its lstat failed or found no regular file. */
export function keyAt(out: Float64Array, o: number): StatKey | null {
  const dev = out[o] as number;
  if (Number.isNaN(dev)) return null;
  return { dev, ino: out[o + 1] as number, size: out[o + 2] as number, mtimeMs: out[o + 3] as number, ctimeMs: out[o + 4] as number, mode: out[o + 5] as number, uid: out[o + 6] as number, gid: out[o + 7] as number };
}
