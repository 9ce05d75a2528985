/**
 * The stat cache of workspace checkpoints, like git's index: for every file
 * of the last workspace checkpoint, the stat it had when its bytes were read
 * (device, inode, size, mtime, ctime, mode, owner) and its blob, in
 * `.editwarden/checkpoints/stat-cache.json`. The next workspace checkpoint
 * records a file whose lstat is identical by that blob without reading it.
 *
 * It must never make a checkpoint record bytes a file does not hold:
 * - racily clean entries (git's "racy git" problem): a file changed in the
 *   same timestamp tick as the stat we recorded keeps that stat. So an entry
 *   is trusted only when its ctime and mtime are strictly older than a clock
 *   read FROM THE FILE SYSTEM (the mtime of a file created in the state
 *   folder) before the scan began: any later change gets a later ctime,
 *   whatever the file system's granularity, and `touch -d` back in time
 *   still moves ctime. Files on another device than that clock are never
 *   trusted (their file system's granularity may be coarser).
 * - a planted, corrupt, truncated or symlinked cache only costs speed: it is
 *   read without following a symlink, must be well-formed in every field,
 *   name this root (device and inode) and a workspace checkpoint that still
 *   exists (whose manifest keeps its blobs from the garbage collector);
 *   anything else and the cache is ignored and every file is read.
 * It is trusted as far as the manifests next to it are: someone who can
 * write editwarden's own state folder can lie in either (docs/checkpoints.md).
 * Written without fsync (it is only a cache); never read by restore or diff.
 */
import fs from 'node:fs';
import type { Resolver } from '../resolver.js';
import { BLOB_ID, readStateFile, StateFolder } from '../state-dir.js';
import { tempNameFor } from '../atomic.js';
import type { ManifestEntry } from './types.js';

export const STAT_CACHE_FILE = 'stat-cache.json';

type FileEntry = Extract<ManifestEntry, { type: 'file' }>;

/** One cached file: [path, dev, ino, size, mtimeMs, ctimeMs, mode (& 0o7777), uid, gid, blob]. */
export type StatRow = [string, number, number, number, number, number, number, number, number, string];

/** The file system's own time at a moment, and the device it was read on. */
export interface FsClock {
  ms: number;
  dev: number;
}

interface CacheFile {
  format: 1;
  root: { dev: number; ino: number };
  /** The workspace checkpoint whose entries these are (its manifest keeps the blobs alive). */
  manifest: string;
  clock: FsClock;
  rows: StatRow[];
}

export class StatCache {
  private readonly byPath: Map<string, StatRow>;

  constructor(
    /** The file system's time before the scan that recorded these stats began. */
    readonly clock: FsClock,
    rows: readonly StatRow[],
  ) {
    this.byPath = new Map(rows.map((r) => [r[0], r]));
  }

  get size(): number {
    return this.byPath.size;
  }

  /** The recorded entry of `rel` when `stat` proves the file unchanged since its bytes were read; null otherwise. */
  reuse(rel: string, stat: fs.Stats): FileEntry | null {
    const r = this.byPath.get(rel);
    if (r === undefined || !stat.isFile()) return null;
    const [, dev, ino, size, mtimeMs, ctimeMs, mode, uid, gid, blob] = r;
    // Racily clean: changed in the tick of the clock or later, so an equal stat proves nothing.
    if (dev !== this.clock.dev || !(ctimeMs < this.clock.ms) || !(mtimeMs < this.clock.ms)) return null;
    if (stat.dev !== dev || stat.ino !== ino || stat.size !== size || stat.mtimeMs !== mtimeMs || stat.ctimeMs !== ctimeMs) return null;
    if ((stat.mode & 0o7777) !== mode || stat.uid !== uid || stat.gid !== gid) return null;
    return { path: rel, type: 'file', blob, size, mode, mtimeMs, ctimeMs, ino, uid, gid };
  }
}

/** The row of a file entry read just now, with the device of the descriptor it was read through. */
export function rowOf(entry: FileEntry, dev: number): StatRow {
  return [entry.path, dev, entry.ino, entry.size, entry.mtimeMs, entry.ctimeMs, entry.mode, entry.uid ?? -1, entry.gid ?? -1, entry.blob];
}

/** The stat cache file of one workspace, in `.editwarden/checkpoints/`. */
export class StatCacheStore {
  private readonly folder: StateFolder;

  constructor(
    private readonly resolver: Resolver,
    sub: string,
  ) {
    this.folder = new StateFolder(resolver, sub);
  }

  /**
   * The file system's time now: the mtime of a file created (exclusively,
   * so nothing planted is written) and removed in the state folder. Null
   * when that cannot be done: then no cache is written.
   */
  clock(): FsClock | null {
    try {
      return this.folder.with(true, null, (dir) => {
        const temp = dir.at(tempNameFor('stat-clock'));
        const fd = fs.openSync(temp, 'wx', 0o600);
        try {
          const st = fs.fstatSync(fd);
          return { ms: st.mtimeMs, dev: st.dev };
        } finally {
          fs.closeSync(fd);
          fs.rmSync(temp, { force: true });
        }
      });
    } catch {
      return null;
    }
  }

  /** The cache, when it is well-formed, of this root, and its checkpoint still exists (`exists`); null otherwise. */
  load(exists: (manifestId: string) => boolean): StatCache | null {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.folder.with(false, Buffer.from('null'), (dir) => readStateFile(dir, STAT_CACHE_FILE)).toString('utf8'));
    } catch {
      return null; // Missing, a symlink, not a regular file, unreadable or not JSON.
    }
    const c = parsed as CacheFile;
    if (typeof c !== 'object' || c === null || c.format !== 1 || typeof c.manifest !== 'string' || !Array.isArray(c.rows)) return null;
    const id = this.resolver.identity;
    if (typeof c.root !== 'object' || c.root === null || c.root.dev !== id.dev || c.root.ino !== id.ino) return null;
    if (typeof c.clock !== 'object' || c.clock === null || !Number.isFinite(c.clock.ms) || !Number.isFinite(c.clock.dev)) return null;
    // A clock from the future would make every later change look old.
    if (c.clock.ms > Date.now() + 1000) return null;
    if (!c.rows.every(validRow)) return null;
    if (!exists(c.manifest)) return null;
    return new StatCache(c.clock, c.rows);
  }

  /** Replaces the cache (temp file + rename, no fsync: a torn or lost cache only costs speed). */
  save(manifestId: string, clock: FsClock, rows: readonly StatRow[]): void {
    const body: CacheFile = { format: 1, root: this.resolver.identity, manifest: manifestId, clock, rows: rows as StatRow[] };
    const data = Buffer.from(JSON.stringify(body));
    try {
      this.folder.with(true, undefined, (dir) => {
        const temp = dir.at(tempNameFor(STAT_CACHE_FILE));
        // "wx": a planted file or link at the temp name is never written through.
        const fd = fs.openSync(temp, 'wx', 0o644);
        try {
          try {
            let off = 0;
            while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
          } finally {
            fs.closeSync(fd);
          }
          // The rename replaces whatever entry was there (a planted hard link's target is never written).
          fs.renameSync(temp, dir.at(STAT_CACHE_FILE));
        } catch (error) {
          fs.rmSync(temp, { force: true });
          throw error;
        }
      });
    } catch {
      // No cache this time: the next workspace checkpoint reads every file.
    }
  }
}

function validRow(r: unknown): boolean {
  if (!Array.isArray(r) || r.length !== 10 || typeof r[0] !== 'string' || typeof r[9] !== 'string' || !BLOB_ID.test(r[9])) return false;
  for (let i = 1; i < 9; i++) if (!Number.isFinite(r[i])) return false;
  return true;
}
