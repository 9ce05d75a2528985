/**
 * Reads the state of paths into manifest entries, storing file bytes as
 * blobs. Two ways: exactly the named paths (files scope: cost grows with the
 * edit), or the whole non-ignored tree (workspace scope), reusing the blobs
 * of the previous workspace checkpoint for files the stat cache proves
 * unchanged (stat-cache.ts). Never writes a project file.
 */
import type { GitRefsPart } from './git-refs.js';
import fs from 'node:fs';
import { DirCache, READ_FLAGS } from '../resolver.js';
import { sha256 } from '../workspace.js';
import type { BlobStore, Durability } from './blob-store.js';
import type { Chunk, FolderChunk } from './chunks.js';
import type { StatCache } from './stat-cache.js';
import { heldBytes, type HeldRead } from './held-read.js';
import { compareByPath, parentDirs, type ManifestEntry } from './types.js';
import { asResolver, startWalk, type IgnoreSource, type RootArg, type WalkOptions } from './walk.js';

export interface Captured {
  entries: ManifestEntry[];
  dirs: string[];
  absentDirs: string[];
  /**
   * Workspace scope: the entries again, per folder (folders in path order), each with the device a file was read on, and
   * the name of its chunk when it is the base's unchanged (chunks.ts): what the manifest store writes and the next
   * capture's stat cache reads.
   */
  folders?: FolderChunk[];
  /** Workspace scope: how many files were read rather than reused by their stat (0: the cache vouched for every file). */
  read?: number;
  /** Files scope: the root repository's ref files, for a restore's capture of a step that holds them (git-refs.ts). */
  git?: GitRefsPart;
}

/** Files up to this size are kept inside a files-scope manifest (see ManifestEntry.inline), or inside a folder chunk. */
const INLINE_MAX_BYTES = 16 * 1024;
/**
 * An incremental workspace checkpoint keeps the first few small files it
 * reads inside their folders' chunks instead of storing a blob of each: a
 * blob costs two fsyncs (the file, its fan-out folder), a third of what a
 * checkpoint after a 1-file edit fsyncs. The next checkpoint that cuts such
 * a folder anew stores a blob of every file it carries over inline, so a
 * chunk never accumulates the bytes of many files (docs/checkpoints.md).
 */
const WORKSPACE_INLINE_FILES = 8;
/** Files above this size are streamed into the blob store instead of read whole. */
export const STREAM_MIN_BYTES = 32 * 1024 * 1024;

/** Reads one regular file through a single descriptor, so the bytes and the stat belong together. */
function readFileEntry(abs: string, rel: string, blobs: BlobStore, durability: Durability, inlineMax = 0, device?: { dev: number }, held?: HeldRead): Extract<ManifestEntry, { type: 'file' }> | null {
  let fd: number;
  try {
    // Through the opened parent (abs is a resolver path), never following a link, never blocking on a FIFO.
    fd = fs.openSync(abs, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return null; // Gone, or became a link, since the walk.
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return null;
    if (device) device.dev = stat.dev;
    // Before a byte is read: a huge (or sparse) file must not be copied into every checkpoint.
    blobs.admit(rel, stat.size);
    const meta = { mode: stat.mode & 0o7777, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, uid: stat.uid, gid: stat.gid };
    if (stat.size >= STREAM_MIN_BYTES && stat.size > inlineMax) {
      const { hash, size } = blobs.putFromFd(fd, durability);
      return { path: rel, type: 'file', blob: hash, size, ...meta };
    }
    const bytes = heldBytes(held, rel, stat) ?? readAll(fd, stat.size);
    const inline = bytes.length <= inlineMax;
    const blob = inline ? sha256(bytes) : blobs.put(bytes, durability);
    const entry: Extract<ManifestEntry, { type: 'file' }> = { path: rel, type: 'file', blob, size: bytes.length, ...meta };
    if (inline) entry.inline = bytes.toString('base64');
    return entry;
  } finally {
    fs.closeSync(fd);
  }
}

function readAll(fd: number, sizeHint: number): Buffer {
  // One byte more than the size: the read that returns 0 proves EOF without a second buffer.
  let buf = Buffer.allocUnsafe(sizeHint + 1);
  let total = 0;
  // Read until EOF rather than trusting the size: the file may grow while we read.
  for (;;) {
    if (total === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2 + 64 * 1024);
      buf.copy(bigger, 0, 0, total);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, total, buf.length - total, null);
    if (n === 0) break;
    total += n;
  }
  return buf.subarray(0, total);
}

function captureOne(dirs: DirCache, rel: string, blobs: BlobStore, durability: Durability, inlineMax: number, held: HeldRead | undefined, tries = 0): ManifestEntry | 'dir' {
  // Every path is read relative to its parent folder opened without following a symlink (resolver.ts).
  const { parent, name } = dirs.tryParentOf(rel);
  if (parent === null) return { path: rel, type: 'absent' };
  const abs = parent.at(name);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(abs);
  } catch {
    return { path: rel, type: 'absent' };
  }
  if (stat.isSymbolicLink()) return { path: rel, type: 'symlink', target: fs.readlinkSync(abs) };
  if (stat.isDirectory()) return 'dir';
  // A FIFO, socket or device: recorded as nothing; restore never deletes or replaces one (restore.ts).
  if (!stat.isFile()) return { path: rel, type: 'absent' };
  const entry = readFileEntry(abs, rel, blobs, durability, inlineMax, undefined, held);
  if (entry) return entry;
  if (tries > 3) return { path: rel, type: 'absent' };
  return captureOne(dirs, rel, blobs, durability, inlineMax, undefined, tries + 1);
}

/**
 * Files scope: exactly `paths` (relative to the root, already checked by the workspace), plus the folders on their way.
 * `held`: a file the workspace read in this hold of the lock (see HeldRead).
 */
export function captureFiles(root: RootArg, paths: Iterable<string>, blobs: BlobStore, durability: Durability = 'each', inlineMax = INLINE_MAX_BYTES, held?: HeldRead): Captured {
  const dirCache = new DirCache(asResolver(root));
  try {
    return captureFilesWith(dirCache, paths, blobs, durability, inlineMax, held);
  } finally {
    dirCache.closeAll();
  }
}

function captureFilesWith(dirCache: DirCache, paths: Iterable<string>, blobs: BlobStore, durability: Durability, inlineMax: number, held?: HeldRead): Captured {
  const entries: ManifestEntry[] = [];
  const dirs = new Set<string>();
  const absentDirs = new Set<string>();
  for (const rel of new Set(paths)) {
    const entry = captureOne(dirCache, rel, blobs, durability, inlineMax, held);
    if (entry === 'dir') {
      dirs.add(rel);
      continue;
    }
    entries.push(entry);
    for (const dir of parentDirs(rel)) {
      if (dirs.has(dir) || absentDirs.has(dir)) continue;
      const isDir = dirCache.tryGet(dir) !== null;
      (isDir ? dirs : absentDirs).add(dir);
    }
  }
  blobs.flush();
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, dirs: [...dirs].sort(), absentDirs: [...absentDirs].sort() };
}

/**
 * Workspace scope. `cache` is the stat cache of the last workspace
 * checkpoint (or null: every file is read); `extra` are paths to record even
 * if ignored (a restore's safety checkpoint must hold everything the restore
 * will overwrite). `walk`: how the tree is walked (its clock, to record the
 * folders' listings for the next walk: walk.ts).
 */
export function captureWorkspace(root: RootArg, blobs: BlobStore, cache: StatCache | null, extra: Iterable<string> = [], sources?: IgnoreSource[], walk: WalkOptions = {}): Captured {
  const resolver = asResolver(root);
  const dirCache = new DirCache(resolver);
  try {
    return captureWorkspaceWith(resolver, dirCache, blobs, cache, extra, sources, walk);
  } finally {
    dirCache.closeAll();
  }
}

/** A folder during the capture: the base's chunk of it (if any), how far the walk has come through it, and what it holds now. */
interface FolderState {
  base: FolderChunk | undefined;
  /** Next row of the base's chunk not yet met by the walk. */
  at: number;
  /** Every entry so far is the base's own, in order. */
  same: boolean;
  out: FolderChunk;
}

function captureWorkspaceWith(resolver: ReturnType<typeof asResolver>, dirCache: DirCache, blobs: BlobStore, cache: StatCache | null, extra: Iterable<string>, sources: IgnoreSource[] | undefined, walk: WalkOptions): Captured {
  // Each file's stat is made final as the loop below reaches it, so this pass runs beside the threads' stats.
  const walked = startWalk(resolver, sources, undefined, walk);
  let file = 0;
  const entries: ManifestEntry[] = [];
  const wanted = [...new Set(extra)];
  // A stat thread failed: nothing of this pass is used; the whole capture again, its walk on this thread alone.
  const again = (): Captured => captureWorkspaceWith(resolver, dirCache, blobs, cache, wanted, sources, { ...walk, pool: null });
  // Only extras need to know what the walk saw: no set of every path otherwise.
  const seen = wanted.length > 0 ? new Set<string>() : null;
  const device = { dev: -1 };
  let read = 0;
  // A first checkpoint reads every file: blobs, as always. An incremental one keeps its first few small files inline.
  let inlineLeft = cache === null ? 0 : WORKSPACE_INLINE_FILES;
  // The entries made inline by this capture (any other inline entry was carried over from the base).
  const inlinedNow = new Set<ManifestEntry>();
  const states = new Map<string, FolderState>();
  const stateOf = (dir: string): FolderState => {
    let st = states.get(dir);
    if (st === undefined) {
      const base = cache?.folder(dir);
      st = { base, at: 0, same: base !== undefined, out: { hash: null, chunk: { dir, entries: [], devs: [] } } };
      states.set(dir, st);
    }
    return st;
  };
  let dir = '\0';
  let st: FolderState | null = null;
  // The walk is in path order, so each folder's entries come in name order (interleaved with its subfolders'): one
  // cursor per folder through the base's chunk, no map of every path.
  for (const w of walked.entries) {
    if (w.type === 'file' && !walked.ready(file++)) return again();
    seen?.add(w.path);
    const slash = w.path.lastIndexOf('/');
    // Still in the folder of the last entry (most are): no slice of the path.
    if (st === null || (slash === -1 ? dir !== '' : slash !== dir.length || !w.path.startsWith(dir))) {
      dir = slash === -1 ? '' : w.path.slice(0, slash);
      st = stateOf(dir);
    }
    let recorded: ManifestEntry | undefined;
    let recordedDev = -1;
    const base = st.base?.chunk;
    if (base !== undefined) {
      // Rows of the base before this path are gone from the folder (most often the next row is this path).
      while (st.at < base.entries.length && (base.entries[st.at] as ManifestEntry).path < w.path) {
        st.at++;
        st.same = false;
      }
      if (st.at < base.entries.length && (base.entries[st.at] as ManifestEntry).path === w.path) {
        recorded = base.entries[st.at];
        recordedDev = base.devs[st.at] ?? -1;
        st.at++;
      }
    }
    const out = st.out.chunk;
    if (w.type === 'symlink') {
      // Read through the walk's opened folder; null: vanished since readdir.
      if (w.target === null) {
        st.same = false;
        continue;
      }
      const entry = recorded?.type === 'symlink' && recorded.target === w.target ? recorded : { path: w.path, type: 'symlink' as const, target: w.target };
      if (entry !== recorded) st.same = false;
      entries.push(entry);
      out.entries.push(entry);
      out.devs.push(-1);
      continue;
    }
    // Unchanged by its stat: the recorded entry, whose blob the base's checkpoint keeps from the garbage collector.
    if (recorded?.type === 'file' && cache?.trusts(recorded, recordedDev, w.stats, w.at)) {
      entries.push(recorded);
      out.entries.push(recorded);
      out.devs.push(recordedDev);
      continue;
    }
    st.same = false;
    // Every read goes through the parent folder opened exactly (resolver.ts), never through the walk's path string.
    const { parent, name } = dirCache.tryParentOf(w.path);
    if (parent === null) continue; // Its folder was replaced since the walk: nothing of it can be read safely.
    device.dev = -1;
    read++;
    const entry = readFileEntry(parent.at(name), w.path, blobs, 'batch', inlineLeft > 0 ? INLINE_MAX_BYTES : 0, device);
    if (entry === null) continue;
    if (entry.inline !== undefined && entry.size > 0) {
      inlineLeft--;
      inlinedNow.add(entry);
    }
    entries.push(entry);
    out.entries.push(entry);
    out.devs.push(device.dev);
  }
  if (!walked.end()) return again();
  const dirs = new Set(walked.dirs);
  const absentDirs = new Set<string>();
  const extras = seen === null ? [] : wanted.filter((p) => !seen.has(p));
  if (extras.length > 0) {
    read += extras.length;
    const more = captureFilesWith(dirCache, extras, blobs, 'batch', 0);
    for (const d of more.dirs) dirs.add(d);
    for (const d of more.absentDirs) absentDirs.add(d);
    // A restore's safety checkpoint: the extras join their folders' chunks (those folders are cut anew; the rest keep the base's).
    for (const e of more.entries) {
      const slash = e.path.lastIndexOf('/');
      const s = stateOf(slash === -1 ? '' : e.path.slice(0, slash));
      s.same = false;
      s.out.chunk.entries.push(e);
      s.out.chunk.devs.push(-1);
      entries.push(e);
    }
    entries.sort(compareByPath);
  }
  const folders: FolderChunk[] = [];
  // Carried inline entries stored as blobs: the base's entry → the one naming the blob.
  const stored = new Map<ManifestEntry, ManifestEntry>();
  for (const s of states.values()) {
    const chunk = s.out.chunk;
    if (chunk.entries.length === 0) continue;
    if (s.same && s.base !== undefined && s.at === s.base.chunk.entries.length) s.out.hash = s.base.hash;
    else {
      if (extras.length > 0) sortChunk(chunk);
      // Cut anew: the files it carries over inline from the base become blobs (in this flush), so inline bytes stay few.
      storeCarried(chunk, inlinedNow, blobs, stored);
    }
    folders.push(s.out);
  }
  // Before the manifest is written: it never names a blob a crash could lose.
  blobs.flush();
  const all = stored.size === 0 ? entries : entries.map((e) => stored.get(e) ?? e);
  folders.sort((a, b) => (a.chunk.dir < b.chunk.dir ? -1 : a.chunk.dir > b.chunk.dir ? 1 : 0));
  return { entries: all, dirs: [...dirs].sort(), absentDirs: [...absentDirs].sort(), folders, read };
}

/**
 * Stores a blob of every file entry of `chunk` that is inline and was not
 * made inline by this capture, and puts an entry naming the blob in its
 * place (the base's entry object is shared with the base: never changed),
 * adding each replacement (old entry → new) to `stored`.
 * An inline entry whose bytes do not hash to its blob (a damaged base would
 * have failed its chunk's hash already) is left as it is: carried, it is
 * still exactly what the base recorded.
 */
function storeCarried(chunk: Chunk, inlinedNow: ReadonlySet<ManifestEntry>, blobs: BlobStore, stored: Map<ManifestEntry, ManifestEntry>): void {
  for (let i = 0; i < chunk.entries.length; i++) {
    const e = chunk.entries[i] as ManifestEntry;
    // An empty file is inline everywhere (no blob of nothing is kept): nothing to store.
    if (e.type !== 'file' || e.inline === undefined || e.inline === '' || inlinedNow.has(e)) continue;
    const bytes = Buffer.from(e.inline, 'base64');
    if (sha256(bytes) !== e.blob) continue;
    blobs.put(bytes, 'batch');
    const { inline: _inline, ...asBlob } = e;
    chunk.entries[i] = asBlob;
    stored.set(e, asBlob);
  }
}

/** Puts a chunk's entries (and their devices) in path order. */
function sortChunk(chunk: Chunk): void {
  const order = chunk.entries.map((_, i) => i).sort((a, b) => compareByPath(chunk.entries[a] as ManifestEntry, chunk.entries[b] as ManifestEntry));
  chunk.entries = order.map((i) => chunk.entries[i] as ManifestEntry);
  chunk.devs = order.map((i) => chunk.devs[i] ?? -1);
}
