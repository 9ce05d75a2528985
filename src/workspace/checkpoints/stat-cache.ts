/**
 * The stat cache of workspace checkpoints, like git's index: the newest
 * workspace manifest itself. Its folder chunks (chunks.ts) hold, for every
 * file, the stat it had when its bytes were read (device, inode, size,
 * mtime, ctime, mode, owner) and its blob; its top record holds the root it
 * was taken in and the file system's clock before its scan. The next
 * workspace checkpoint records a file whose lstat is identical by that
 * entry without reading it, and a folder whose entries are all its base's
 * by the base's chunk, without writing it.
 *
 * It must never make a checkpoint record bytes a file does not hold:
 * - racily clean entries (git's "racy git" problem): a file changed in the
 *   same timestamp tick as the stat we recorded keeps that stat. So an entry
 *   is trusted only when its ctime and mtime are strictly older than a clock
 *   read FROM THE FILE SYSTEM (the mtime of a file created in the state
 *   folder) before the scan that recorded it began: any later change gets a
 *   later ctime, whatever the file system's granularity, and `touch -d` back
 *   in time still moves ctime. Files on another device than that clock are
 *   never trusted (their file system's granularity may be coarser). An
 *   entry carried over unchanged was trusted under an older clock, so the
 *   newer one holds for it too.
 * - a planted, corrupt or torn base only costs speed, or fails loudly: a top
 *   record that does not parse, names another root or a clock in the future
 *   is passed over; a chunk that does not hash to its name or names another
 *   folder is never read as rows (chunks.ts). The blobs a base names exist
 *   as long as the base does (the garbage collector keeps them), and the
 *   base is read under the root lock, in the same hold as the capture.
 * It is trusted as far as the manifests are: someone who can write
 * editwarden's own state folder can lie in either (docs/checkpoints.md).
 */
import fs from 'node:fs';
import type { Resolver } from '../resolver.js';
import { StateFolder } from '../state-dir.js';
import { tempNameFor } from '../atomic.js';
import type { Chunk, FolderChunk } from './chunks.js';
import type { ManifestStore } from './manifest-store.js';
import { AT, statShows } from './stat-batch.js';
import type { ManifestEntry } from './types.js';

type FileEntry = Extract<ManifestEntry, { type: 'file' }>;

/** The file system's own time at a moment, and the device it was read on. */
export interface FsClock {
  ms: number;
  dev: number;
}

/** How many of the newest workspace manifests are tried as the base before every file is read. */
const BASE_TRIES = 3;

export class StatCache {
  private readonly byDir: Map<string, FolderChunk>;

  constructor(
    /** The file system's time before the scan that recorded these stats began. */
    readonly clock: FsClock,
    folders: readonly FolderChunk[],
    /** The workspace checkpoint whose entries these are ('' for a cache in memory). */
    readonly manifest = '',
    /** That manifest's folders and absent folders (an unchanged tree reuses it: service.ts). */
    readonly dirs: readonly string[] = [],
    readonly absentDirs: readonly string[] = [],
    /** Chunks of that manifest never fsynced (it was a command's index): a durable manifest reusing one fsyncs it. */
    readonly unsynced: ReadonlySet<string> = new Set(),
  ) {
    this.byDir = new Map(folders.map((f) => [f.chunk.dir, f]));
  }

  /** A cache of a capture's folders in memory (tests). */
  static of(clock: FsClock, folders: readonly FolderChunk[] | undefined): StatCache {
    return new StatCache(clock, folders ?? []);
  }

  /** Files and links recorded. */
  get size(): number {
    let n = 0;
    for (const f of this.byDir.values()) n += f.chunk.entries.length;
    return n;
  }

  /** The folders, in path order. */
  get folders(): FolderChunk[] {
    return [...this.byDir.values()].sort((a, b) => (a.chunk.dir < b.chunk.dir ? -1 : a.chunk.dir > b.chunk.dir ? 1 : 0));
  }

  folder(dir: string): FolderChunk | undefined {
    return this.byDir.get(dir);
  }

  /**
   * Whether the stat numbers at `s[o …]` (stat-batch.ts `AT`; NaN first: none) prove the file of `entry` (its stat read
   * on device `dev`) unchanged since its bytes were read.
   */
  trusts(entry: FileEntry, dev: number, s: Float64Array, o: number): boolean {
    // Racily clean: changed in the tick of the clock or later, so an equal stat proves nothing.
    if (dev !== this.clock.dev || !(entry.ctimeMs < this.clock.ms) || !(entry.mtimeMs < this.clock.ms)) return false;
    // A NaN device (no key) equals nothing.
    return s[o + AT.dev] === dev && statShows(s, o, entry) && s[o + AT.uid] === entry.uid && s[o + AT.gid] === entry.gid;
  }
}

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
   * when that cannot be done: then the manifest records no clock and is no
   * base for the next scan.
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

  /**
   * The base of the next workspace checkpoint: the newest workspace manifest
   * (of the last few) that records a clock, of this root, not in the future,
   * whose chunks all read back exactly; null: every file is read. Under the
   * root lock (the base must not be collected while the capture uses it).
   */
  load(manifests: ManifestStore): StatCache | null {
    const ids = manifests.ids('workspace');
    const identity = this.resolver.identity;
    for (let i = ids.length - 1; i >= 0 && i >= ids.length - BASE_TRIES; i--) {
      const id = (ids[i] as { id: string }).id;
      try {
        const top = manifests.readTop(id);
        if (top === null) continue; // Written by an older version: a whole JSON, no clock.
        const c = top.cache;
        if (c === null || c.root.dev !== identity.dev || c.root.ino !== identity.ino) continue;
        // A clock from the future would make every later change look old.
        if (c.clock.ms > Date.now() + 1000) continue;
        const folders: FolderChunk[] = [];
        const chunks = new Map<string, Chunk>();
        const read = manifests.chunks.getAll(top.chunks, id, top.held);
        top.chunks.forEach(([, hash], k) => {
          const chunk = read[k] as Chunk;
          chunks.set(hash, chunk);
          folders.push({ hash, chunk });
        });
        manifests.chunks.remember(chunks);
        return new StatCache(c.clock, folders, id, top.dirs, top.absentDirs, top.unsynced);
      } catch {
        // Unreadable or damaged: no base of ours; try an older one.
      }
    }
    return null;
  }
}
