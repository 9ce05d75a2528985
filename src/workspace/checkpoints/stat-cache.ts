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
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Resolver } from '../resolver.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import { tempNameFor } from '../atomic.js';
import type { ManifestEntry, StatKey } from './types.js';

export const STAT_CACHE_FILE = 'stat-cache.bin';

type FileEntry = Extract<ManifestEntry, { type: 'file' }>;

/** Numbers per cached file: dev, ino, size, mtimeMs, ctimeMs, mode (& 0o7777), uid, gid. */
const FIELDS = 8;
const MAGIC = 'editwarden stat cache 1\n';

/** The file system's own time at a moment, and the device it was read on. */
export interface FsClock {
  ms: number;
  dev: number;
}

/** What a scan hands over for the cache: its file entries and the device each was read on. */
export interface StatRows {
  entries: FileEntry[];
  devs: number[];
}

interface Header {
  root: { dev: number; ino: number };
  /** The workspace checkpoint whose entries these are (its manifest keeps the blobs alive). */
  manifest: string;
  clock: FsClock;
  count: number;
  /** Byte lengths of the paths text (NUL-separated) and of the blobs text (64 hex digits each). */
  pathBytes: number;
  /** The manifest's shape (shapeOf): lets an unchanged tree reuse it as a command's index (command-index.ts). Absent in older caches. */
  shape?: string;
}

/**
 * The digest of everything in a workspace manifest the cache rows do not
 * hold: its entries other than files (symlinks with their targets), the
 * number of file entries, its folders and absent folders. Equal rows and an
 * equal shape mean equal manifest entries (paths are unique).
 */
export function shapeOf(entries: readonly ManifestEntry[], dirs: readonly string[], absentDirs: readonly string[]): string {
  const hash = createHash('sha256');
  let files = 0;
  for (const e of entries) {
    if (e.type === 'file') files++;
    else hash.update(`${JSON.stringify(e)}\n`);
  }
  hash.update(JSON.stringify([files, dirs, absentDirs]));
  return hash.digest('hex');
}

export class StatCache {
  private readonly index = new Map<string, number>();

  constructor(
    /** The file system's time before the scan that recorded these stats began. */
    readonly clock: FsClock,
    private readonly paths: string[],
    /** FIELDS numbers per path. */
    private readonly nums: Float64Array,
    /** 64 hex digits per path. */
    private readonly blobs: string,
    /** The workspace checkpoint whose file entries these are. */
    readonly manifest = '',
    /** That manifest's shape (shapeOf); null when the cache does not record it. */
    readonly shape: string | null = null,
  ) {
    for (let i = 0; i < paths.length; i++) this.index.set(paths[i] as string, i);
  }

  /** A cache of rows in memory (tests). */
  static of(clock: FsClock, rows: StatRows): StatCache {
    const { paths, nums, blobs } = encodeRows(rows);
    return new StatCache(clock, paths, nums, blobs);
  }

  get size(): number {
    return this.paths.length;
  }

  /** The recorded entry of `rel` when `stat` proves the file unchanged since its bytes were read; null otherwise. */
  reuse(rel: string, stat: StatKey): FileEntry | null {
    const i = this.index.get(rel);
    if (i === undefined) return null;
    const n = this.nums;
    const o = i * FIELDS;
    const dev = n[o] as number;
    const mtimeMs = n[o + 3] as number;
    const ctimeMs = n[o + 4] as number;
    // Racily clean: changed in the tick of the clock or later, so an equal stat proves nothing.
    if (dev !== this.clock.dev || !(ctimeMs < this.clock.ms) || !(mtimeMs < this.clock.ms)) return null;
    if (stat.dev !== dev || stat.ino !== n[o + 1] || stat.size !== n[o + 2] || stat.mtimeMs !== mtimeMs || stat.ctimeMs !== ctimeMs) return null;
    const mode = n[o + 5] as number;
    if ((stat.mode & 0o7777) !== mode || stat.uid !== n[o + 6] || stat.gid !== n[o + 7]) return null;
    const blob = this.blobs.slice(i * 64, i * 64 + 64);
    return { path: rel, type: 'file', blob, size: stat.size, mode, mtimeMs, ctimeMs, ino: stat.ino, uid: stat.uid, gid: stat.gid };
  }
}

function encodeRows(rows: StatRows): { paths: string[]; nums: Float64Array; blobs: string } {
  const count = rows.entries.length;
  const nums = new Float64Array(count * FIELDS);
  const paths: string[] = new Array<string>(count);
  const blobs: string[] = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const e = rows.entries[i] as FileEntry;
    const o = i * FIELDS;
    paths[i] = e.path;
    blobs[i] = e.blob;
    nums[o] = rows.devs[i] ?? -1;
    nums[o + 1] = e.ino;
    nums[o + 2] = e.size;
    nums[o + 3] = e.mtimeMs;
    nums[o + 4] = e.ctimeMs;
    nums[o + 5] = e.mode;
    nums[o + 6] = e.uid ?? -1;
    nums[o + 7] = e.gid ?? -1;
  }
  return { paths, nums, blobs: blobs.join('') };
}

/**
 * The stat cache file of one workspace, `.editwarden/checkpoints/stat-cache.bin`:
 * a magic line, a JSON header line, the numbers (FIELDS float64 per file,
 * little-endian, at an offset that is a multiple of 8), then the paths
 * (NUL-separated) and the blob ids (64 hex digits each). Binary, so a 50,000-file
 * cache loads without building 50,000 objects.
 */
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
    let bytes: Buffer;
    try {
      bytes = this.folder.with(false, Buffer.alloc(0), (dir) => readStateFile(dir, STAT_CACHE_FILE));
    } catch {
      return null; // Missing, a symlink, not a regular file, or unreadable.
    }
    try {
      return this.decode(bytes, exists);
    } catch {
      return null; // Corrupt in a way the checks below did not name.
    }
  }

  private decode(bytes: Buffer, exists: (manifestId: string) => boolean): StatCache | null {
    if (bytes.length < MAGIC.length || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    const eol = bytes.indexOf(0x0a, MAGIC.length);
    if (eol === -1) return null;
    const h = JSON.parse(bytes.toString('utf8', MAGIC.length, eol)) as Header;
    if (typeof h !== 'object' || h === null || typeof h.manifest !== 'string') return null;
    if (!Number.isSafeInteger(h.count) || h.count < 0 || !Number.isSafeInteger(h.pathBytes) || h.pathBytes < 0) return null;
    const id = this.resolver.identity;
    if (typeof h.root !== 'object' || h.root === null || h.root.dev !== id.dev || h.root.ino !== id.ino) return null;
    if (typeof h.clock !== 'object' || h.clock === null || !Number.isFinite(h.clock.ms) || !Number.isFinite(h.clock.dev)) return null;
    // A clock from the future would make every later change look old.
    if (h.clock.ms > Date.now() + 1000) return null;
    const numStart = Math.ceil((eol + 1) / 8) * 8;
    const numBytes = h.count * FIELDS * 8;
    const pathStart = numStart + numBytes;
    const blobStart = pathStart + h.pathBytes;
    if (bytes.length !== blobStart + h.count * 64) return null;
    const nums = new Float64Array(h.count * FIELDS);
    Buffer.from(nums.buffer).set(bytes.subarray(numStart, pathStart));
    for (let i = 0; i < nums.length; i++) if (!Number.isFinite(nums[i])) return null;
    const paths = h.count === 0 ? [] : bytes.toString('utf8', pathStart, blobStart).split('\0');
    if (paths.length !== h.count) return null;
    const blobs = bytes.toString('latin1', blobStart);
    if (!/^[0-9a-f]*$/.test(blobs)) return null;
    if (!exists(h.manifest)) return null;
    const shape = typeof h.shape === 'string' && /^[0-9a-f]{64}$/.test(h.shape) ? h.shape : null;
    return new StatCache(h.clock, paths, nums, blobs, h.manifest, shape);
  }

  /** Replaces the cache (temp file + rename, no fsync: a torn or lost cache only costs speed). */
  save(manifestId: string, clock: FsClock, rows: StatRows, shape?: string): void {
    const { paths, nums, blobs } = encodeRows(rows);
    const pathText = Buffer.from(paths.join('\0'), 'utf8');
    const header: Header = { root: this.resolver.identity, manifest: manifestId, clock, count: paths.length, pathBytes: pathText.length, ...(shape ? { shape } : {}) };
    const head = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`, 'utf8');
    const pad = Buffer.alloc(Math.ceil(head.length / 8) * 8 - head.length);
    // Float64Array is in the machine's byte order; the cache is read on the machine that wrote it (the root's dev/ino).
    const pieces = [head, pad, Buffer.from(nums.buffer, nums.byteOffset, nums.byteLength), pathText, Buffer.from(blobs, 'latin1')];
    try {
      this.folder.with(true, undefined, (dir) => {
        const temp = dir.at(tempNameFor(STAT_CACHE_FILE));
        // "wx": a planted file or link at the temp name is never written through.
        const fd = fs.openSync(temp, 'wx', 0o644);
        try {
          try {
            for (const piece of pieces) {
              let off = 0;
              while (off < piece.length) off += fs.writeSync(fd, piece, off, piece.length - off);
            }
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
