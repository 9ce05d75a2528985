/**
 * Ignored files in a command's checkpoint. Git cannot bring back what it
 * ignores (`.env`, a local database, notes), so before a guarded command
 * the ignored files outside the rebuildable folders (node_modules/,
 * target/, …) are made to hold in the store, and after it the ones it
 * deleted, truncated, overwrote or renamed away join its undo step with
 * their bytes and modes as they were.
 *
 * Incremental as the tracked files are: the table (ignored-table.ts) keeps
 * each file's lstat and blob, so a file is read and stored once, and again
 * only when its stat changes (a file changed within RACY_MS of the scan
 * that last read it is hashed again, never trusted by its stat: git's racy
 * clean; a hash equal to the stored one stores nothing). Bounded: a file
 * over `checkpoints.ignored.max_file_bytes`, or past the project's
 * `max_total_bytes` of ignored bytes, is recorded by its stat only, and
 * when the command changes it, it is named as NOT kept — in the command's
 * result and in its undo step — never silently missing. So is a rebuildable
 * folder the command removed or replaced (its files are never walked).
 * Large files go into the store by reflink where the file system can
 * (blob-store.ts `putByClone`).
 *
 * Not covered: ignored files a command creates (undo leaves them), empty
 * ignored folders, FIFOs and sockets, changes inside rebuildable folders.
 * Reads project files only through folders opened without following a link;
 * writes only under the state folder.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import { READ_FLAGS, DirCache, type Resolver } from '../resolver.js';
import { sha256 } from '../workspace.js';
import type { BlobStore } from './blob-store.js';
import { IgnoredTable, type IgnoredRecord, type NotKeptWhy } from './ignored-table.js';
import { AT, keyAt } from './stat-batch.js';
import type { ManifestEntry } from './types.js';
import { walkWorkspace, type IgnoreSource, type WalkResult } from './walk.js';
import { witnessed, type WitnessLog } from '../../sandbox/witness.js';

/** What a command's checkpoint covers of the ignored files (config `checkpoints.ignored`). */
export interface IgnoredCoverage {
  enabled: boolean;
  /** Largest file kept (bytes). */
  maxFileBytes: number;
  /** Largest total of ignored files' bytes kept for the project. */
  maxTotalBytes: number;
  /** gitignore patterns of folders added to (or, `!name/`, taken from) REBUILDABLE. */
  rebuildable: readonly string[];
}

/** Dependency and build folders that can be rebuilt: their ignored files are never walked nor kept. */
const REBUILDABLE: readonly string[] = [
  'node_modules/',
  'bower_components/',
  'jspm_packages/',
  'target/',
  'dist/',
  'build/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '.pytest_cache/',
  '.mypy_cache/',
  '.ruff_cache/',
  '.tox/',
  '.gradle/',
  '.next/',
  '.nuxt/',
  '.svelte-kit/',
  '.angular/',
  '.turbo/',
  '.parcel-cache/',
  '.vite/',
  '.cache/',
  'coverage/',
  '.terraform/',
  '.dart_tool/',
  'Pods/',
  'DerivedData/',
  '.zig-cache/',
  'zig-out/',
];

export const DEFAULT_IGNORED_COVERAGE: IgnoredCoverage = { enabled: true, maxFileBytes: 16 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024, rebuildable: [] };

/** Files from this size on go into the store by reflink (copy-free where the file system can) rather than through memory. */
const CLONE_FROM = 1024 * 1024;
/** Margin for the file system's coarse clock against the wall clock a scan start was read from (index-diff.ts). */
const RACY_MS = 2000;

/** An ignored file a command changed whose old state cannot be given back, and why. */
export interface NotKept {
  path: string;
  why: NotKeptWhy | 'rebuildable';
}

/** The ignored files as they were before a command: what its `after` compares with. */
export interface IgnoredSnapshot {
  scanStartedMs: number;
  /** Sorted by path. */
  records: IgnoredRecord[];
  /** Rebuildable folders the walk passed over, with their inode (one removed or replaced is named). */
  rebuildable: Array<{ path: string; ino: number }>;
}

/** What a command did to the covered ignored files. */
export interface IgnoredEffects {
  /** Their state before the command, as a step's entries (files with their blobs, symlinks), sorted by path. */
  entries: ManifestEntry[];
  notKept: NotKept[];
}

type Walked = WalkResult['entries'][number];

export class IgnoredCapture {
  private readonly table: IgnoredTable;
  private readonly skip: (rel: string) => boolean;

  constructor(
    private readonly resolver: Resolver,
    private readonly blobs: BlobStore,
    sub: string,
    private readonly coverage: IgnoredCoverage,
  ) {
    this.table = new IgnoredTable(resolver, sub);
    const rules = ignore().add([...REBUILDABLE, ...coverage.rebuildable]);
    this.skip = (rel) => rules.ignores(`${rel}/`);
  }

  /** What decides which ignored files are covered (the config's caps and rebuildable list): a snapshot made under another is not this one's. */
  get key(): string {
    this.coverageKey ??= JSON.stringify(this.coverage);
    return this.coverageKey;
  }

  private coverageKey: string | undefined;

  /**
   * Makes the store hold every ignored file as it is now (reading only those
   * whose stat changed since the table recorded them) and returns the
   * snapshot `after` compares with. Call under the root lock; the blobs are
   * durable on return.
   */
  before(exclude: string | null): IgnoredSnapshot {
    const scanStartedMs = Date.now();
    const walked = this.walk(undefined, exclude);
    const old = this.table.read();
    const records: IgnoredRecord[] = [];
    const toRead: Array<{ at: number; walked: Extract<Walked, { type: 'file' }>; old: IgnoredRecord | undefined }> = [];
    const kept = new Map<string, number>();
    let dirty = false;
    let j = 0;
    for (const w of walked.entries) {
      while (j < old.length && (old[j] as IgnoredRecord).path < w.path) {
        j++;
        dirty = true; // Gone since the table was written.
      }
      const o = j < old.length && (old[j] as IgnoredRecord).path === w.path ? (old[j++] as IgnoredRecord) : undefined;
      if (w.type === 'symlink') {
        if (w.target === null) continue;
        const same = o?.kind === 'symlink' && o.target === w.target;
        dirty ||= !same;
        records.push(same ? o : linkRecord(w.path, w.target, scanStartedMs));
        continue;
      }
      if (o !== undefined && o.kind === 'file' && showsRecord(w, o) && (o.blob === null || trusted(o))) {
        records.push(o);
        if (o.blob !== null) kept.set(o.blob, o.size);
        continue;
      }
      if (keyAt(w.stats, w.at) === null) continue; // Gone or no longer a regular file since the listing.
      dirty = true;
      toRead.push({ at: records.length, walked: w, old: o });
      records.push(o as IgnoredRecord); // Replaced below.
    }
    if (j < old.length) dirty = true;
    let stored = sum(kept);
    const dirs = new DirCache(this.resolver);
    let wrote = false;
    try {
      // Files kept before are read first: one unchanged since (only its stat moved) keeps its place in the total before a new one takes it.
      toRead.sort((a, b) => Number(a.old?.blob == null) - Number(b.old?.blob == null));
      for (const item of toRead) {
        const record = this.capture(dirs, item.walked, item.old, scanStartedMs, stored, kept);
        records[item.at] = record;
        if (record.blob !== null && !kept.has(record.blob)) {
          kept.set(record.blob, record.size);
          stored += record.size;
        }
        wrote ||= record.blob !== null && record.blob !== item.old?.blob;
      }
    } finally {
      dirs.closeAll();
    }
    const final = records.filter((r) => r !== undefined);
    if (wrote) this.blobs.flush();
    if (dirty) this.table.write(final, old);
    return { scanStartedMs, records: final, rebuildable: this.identities(walked.rebuildable) };
  }

  /**
   * What the command did to the ignored files, measured with the rules as they
   * were before it (`sources`, `exclude`): the old state of every covered file
   * it deleted or changed, and the files and rebuildable folders it changed
   * that were not kept.
   */
  after(snapshot: IgnoredSnapshot, sources: IgnoreSource[], exclude: string | null, witness: WitnessLog | null = null): IgnoredEffects {
    const entries: ManifestEntry[] = [];
    const notKept: NotKept[] = [];
    const changed = (r: IgnoredRecord): void => {
      if (r.kind === 'symlink') entries.push({ path: r.path, type: 'symlink', target: r.target as string });
      else if (r.blob === null) notKept.push({ path: r.path, why: r.why ?? 'unreadable' });
      else entries.push({ path: r.path, type: 'file', blob: r.blob, size: r.size, mode: r.mode, mtimeMs: r.mtimeMs, ctimeMs: r.ctimeMs, ino: r.ino, uid: r.uid, gid: r.gid });
    };
    const records = snapshot.records;
    const dirs = new DirCache(this.resolver);
    try {
      if (witness !== null) {
        // The write witness's log (sandbox/witness.ts): only the paths the command's processes named (opened for writing,
        // truncated, removed, renamed, chmodded) can be its, so only those are looked at — no walk, no stat of the rest.
        for (const r of records) {
          if (!witnessed(witness, r.path)) continue;
          const now = this.lstatNow(dirs, r.path);
          if (now === null || !this.unchanged(dirs, now, r)) changed(r);
        }
        return { entries, notKept: [...notKept, ...this.rebuildableGone(snapshot)] };
      }
      const walked = this.walk(sources, exclude);
      let j = 0;
      for (const w of walked.entries) {
        while (j < records.length && (records[j] as IgnoredRecord).path < w.path) changed(records[j++] as IgnoredRecord);
        const r = j < records.length && (records[j] as IgnoredRecord).path === w.path ? (records[j++] as IgnoredRecord) : undefined;
        if (r === undefined) continue; // Created by the command: undo leaves it.
        if (!this.unchanged(dirs, w, r)) changed(r);
      }
      for (; j < records.length; j++) changed(records[j] as IgnoredRecord);
    } finally {
      dirs.closeAll();
    }
    return { entries, notKept: [...notKept, ...this.rebuildableGone(snapshot)] };
  }

  /** The rebuildable folders the snapshot passed over that are gone or replaced now. */
  private rebuildableGone(snapshot: IgnoredSnapshot): NotKept[] {
    return snapshot.rebuildable.filter((folder) => this.identity(folder.path) !== folder.ino).map((folder) => ({ path: `${folder.path}/`, why: 'rebuildable' as const }));
  }

  /** The blobs the table names (and those it replaced within the hour): the garbage collector keeps them. */
  liveBlobs(): Set<string> {
    return this.table.liveBlobs();
  }

  /** A file or symlink as a walk would list it now, through its opened folder; null when nothing (or a folder) is there. */
  private lstatNow(dirs: DirCache, rel: string): Walked | null {
    const { parent, name } = dirs.tryParentOf(rel);
    if (parent === null) return null;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(parent.at(name));
    } catch {
      return null;
    }
    if (st.isFile()) return { path: rel, type: 'file', stats: new Float64Array([st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, st.mode, st.uid, st.gid]), at: 0 };
    if (!st.isSymbolicLink()) return null;
    try {
      return { path: rel, type: 'symlink', target: fs.readlinkSync(parent.at(name)) };
    } catch {
      return null;
    }
  }

  private walk(sources: IgnoreSource[] | undefined, exclude: string | null): WalkResult & { rebuildable: string[] } {
    const rebuildable: string[] = [];
    const result = walkWorkspace(this.resolver, sources, exclude, { ignoredOnly: { skip: this.skip, skipped: (rel) => rebuildable.push(rel) } });
    return { ...result, rebuildable };
  }

  /** Whether a walked entry still is what the record says: by its stat when that can be trusted, else by its bytes. */
  private unchanged(dirs: DirCache, w: Walked, r: IgnoredRecord): boolean {
    if (w.type === 'symlink' || r.kind === 'symlink') return w.type === 'symlink' && r.kind === 'symlink' && w.target === r.target;
    if (showsRecord(w, r) && (r.blob === null || trusted(r))) return true;
    if (r.blob === null || keyAt(w.stats, w.at) === null) return false;
    const now = readAt(dirs, w.path, this.limit);
    return now !== null && now.hash === r.blob && now.mode === r.mode;
  }

  private get limit(): number {
    return Math.min(this.coverage.maxFileBytes, this.blobs.budget?.limits.maxFileBytes ?? Number.POSITIVE_INFINITY);
  }

  /** Reads one ignored file and keeps its bytes when the caps allow; its record either way. */
  private capture(dirs: DirCache, walked: Extract<Walked, { type: 'file' }>, old: IgnoredRecord | undefined, scanStartedMs: number, stored: number, kept: ReadonlyMap<string, number>): IgnoredRecord {
    const rel = walked.path;
    const { parent, name } = dirs.tryParentOf(rel);
    const base = { path: rel, kind: 'file' as const, verifiedMs: scanStartedMs };
    // Not readable (no permission, gone): recorded by the walk's stat, so it is named only if the command changes it.
    const key = keyAt(walked.stats, walked.at);
    const walkedStat = key === null ? NO_STAT : { size: key.size, mtimeMs: key.mtimeMs, ctimeMs: key.ctimeMs, ino: key.ino, mode: key.mode & 0o7777, uid: key.uid, gid: key.gid };
    const unreadable: IgnoredRecord = { ...base, ...walkedStat, blob: null, why: 'unreadable' };
    if (parent === null) return unreadable;
    let fd: number;
    try {
      fd = fs.openSync(parent.at(name), READ_FLAGS);
    } catch {
      return unreadable;
    }
    try {
      // The stat before the read: a change while it is read leaves a newer stat than the one recorded.
      const st = fs.fstatSync(fd);
      const stat = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
      if (!st.isFile()) return { ...base, ...stat, blob: null, why: 'unreadable' };
      if (st.size > this.limit) return { ...base, ...stat, blob: null, why: 'file-cap' };
      const small = st.size < CLONE_FROM;
      const bytes = small ? fs.readFileSync(fd) : null;
      const hash = bytes !== null ? sha256(bytes) : hashFd(fd);
      if (hash === old?.blob || kept.has(hash)) return { ...base, ...stat, blob: hash };
      if (stored + st.size > this.coverage.maxTotalBytes) return { ...base, ...stat, blob: null, why: 'store-cap' };
      if (this.blobs.has(hash)) return { ...base, ...stat, blob: hash };
      try {
        if (bytes !== null) return { ...base, ...stat, blob: this.blobs.put(bytes, 'batch') };
        const cloned = this.blobs.putByClone(fd, 'batch') ?? this.blobs.putFromFd(fd, 'batch');
        // The clone's hash is of the bytes it holds (the file may have changed since it was hashed above).
        return { ...base, ...stat, blob: cloned.hash, size: cloned.size };
      } catch {
        // The whole store is full (checkpoints.max_total_bytes) or the disk is: named as not kept if the command changes it.
        return { ...base, ...stat, blob: null, why: 'store-cap' };
      }
    } catch {
      return unreadable;
    } finally {
      fs.closeSync(fd);
    }
  }

  private identities(rels: readonly string[]): Array<{ path: string; ino: number }> {
    return rels.map((rel) => ({ path: rel, ino: this.identity(rel) }));
  }

  /** The inode of a rebuildable folder (a report only: nothing is read through it); -1 when it is gone or no folder. */
  private identity(rel: string): number {
    try {
      const st = fs.lstatSync(path.join(this.resolver.root, ...rel.split('/')));
      return st.isDirectory() ? st.ino : -1;
    } catch {
      return -1;
    }
  }
}

const NO_STAT = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, mode: 0, uid: 0, gid: 0 };

/** Whether the walk's stat of a file shows the record (inode, size, times, permission bits). */
function showsRecord(w: Walked, r: IgnoredRecord): boolean {
  if (w.type !== 'file') return false;
  const s = w.stats;
  const o = w.at;
  return !Number.isNaN(s[o + AT.dev]) && s[o + AT.ino] === r.ino && s[o + AT.size] === r.size && s[o + AT.mtimeMs] === r.mtimeMs && s[o + AT.ctimeMs] === r.ctimeMs && ((s[o + AT.mode] as number) & 0o7777) === r.mode;
}

/** A record whose stat may stand for its bytes: last changed well before the scan that read them. */
function trusted(r: IgnoredRecord): boolean {
  return r.mtimeMs < r.verifiedMs - RACY_MS && r.ctimeMs < r.verifiedMs - RACY_MS;
}

function linkRecord(rel: string, target: string, scanStartedMs: number): IgnoredRecord {
  return { path: rel, kind: 'symlink', ...NO_STAT, verifiedMs: scanStartedMs, blob: null, target };
}

function sum(sizes: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const size of sizes.values()) total += size;
  return total;
}

/** The sha256 and mode of a file, read through its opened folder; null when it is gone, not a regular file or over `limit`. */
function readAt(dirs: DirCache, rel: string, limit: number): { hash: string; mode: number } | null {
  const { parent, name } = dirs.tryParentOf(rel);
  if (parent === null) return null;
  let fd: number;
  try {
    fd = fs.openSync(parent.at(name), READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > limit) return null;
    return { hash: hashFd(fd), mode: st.mode & 0o7777 };
  } finally {
    fs.closeSync(fd);
  }
}

/** sha256 of an open file from its start, 1 MiB at a time. */
function hashFd(fd: number): string {
  const hasher = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  let position = 0;
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, position);
    if (n === 0) break;
    hasher.update(chunk.subarray(0, n));
    position += n;
  }
  return hasher.digest('hex');
}

/** One not-kept file as a person (or a model) reads it: the path and why undo cannot bring it back. */
function describeNotKept(n: { path: string; why: string }): string {
  switch (n.why) {
    case 'file-cap':
      return `${n.path} (over checkpoints.ignored.max_file_bytes)`;
    case 'store-cap':
      return `${n.path} (the store of ignored files was full: checkpoints.ignored.max_total_bytes)`;
    case 'rebuildable':
      return `${n.path} (a rebuildable folder, never kept: rebuild it, or take it off with checkpoints.ignored.rebuildable)`;
    default:
      return `${n.path} (could not be read before the command)`;
  }
}

/** The line a command's result and `undo` print for ignored files whose old state was not kept; null when there are none. */
export function notKeptLine(notKept: ReadonlyArray<{ path: string; why: string }>): string | null {
  if (notKept.length === 0) return null;
  return `not kept, undo cannot bring back: ${notKept.map(describeNotKept).join(', ')}`;
}
