/**
 * Reads the state of paths into manifest entries, storing file bytes as
 * blobs. Two ways: exactly the named paths (files scope: cost grows with the
 * edit), or the whole non-ignored tree (workspace scope), reusing the blobs
 * of the previous workspace checkpoint for files the stat cache proves
 * unchanged (stat-cache.ts). Never writes a project file.
 */
import fs from 'node:fs';
import { DirCache, READ_FLAGS } from '../resolver.js';
import { sha256 } from '../workspace.js';
import type { BlobStore, Durability } from './blob-store.js';
import type { StatCache, StatRows } from './stat-cache.js';
import { parentDirs, type ManifestEntry } from './types.js';
import { asResolver, walkWorkspace, type IgnoreSource, type RootArg } from './walk.js';

export interface Captured {
  entries: ManifestEntry[];
  dirs: string[];
  absentDirs: string[];
  /** Workspace scope: the files the walk found, with the device each was read on, for the stat cache (stat-cache.ts). */
  rows?: StatRows;
  /** Workspace scope: how many files were read rather than reused by their stat (0: the cache vouched for every file). */
  read?: number;
}

/** Files up to this size are kept inside a files-scope manifest (see ManifestEntry.inline). */
const INLINE_MAX_BYTES = 16 * 1024;
/** Files above this size are streamed into the blob store instead of read whole. */
export const STREAM_MIN_BYTES = 32 * 1024 * 1024;

/** Reads one regular file through a single descriptor, so the bytes and the stat belong together. */
function readFileEntry(abs: string, rel: string, blobs: BlobStore, durability: Durability, inlineMax = 0, device?: { dev: number }): Extract<ManifestEntry, { type: 'file' }> | null {
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
    const bytes = readAll(fd, stat.size);
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

function captureOne(dirs: DirCache, rel: string, blobs: BlobStore, durability: Durability, inlineMax: number, tries = 0): ManifestEntry | 'dir' {
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
  const entry = readFileEntry(abs, rel, blobs, durability, inlineMax);
  if (entry) return entry;
  if (tries > 3) return { path: rel, type: 'absent' };
  return captureOne(dirs, rel, blobs, durability, inlineMax, tries + 1);
}

/** Files scope: exactly `paths` (relative to the root, already checked by the workspace), plus the folders on their way. */
export function captureFiles(root: RootArg, paths: Iterable<string>, blobs: BlobStore, durability: Durability = 'each', inlineMax = INLINE_MAX_BYTES): Captured {
  const dirCache = new DirCache(asResolver(root));
  try {
    return captureFilesWith(dirCache, paths, blobs, durability, inlineMax);
  } finally {
    dirCache.closeAll();
  }
}

function captureFilesWith(dirCache: DirCache, paths: Iterable<string>, blobs: BlobStore, durability: Durability, inlineMax: number): Captured {
  const entries: ManifestEntry[] = [];
  const dirs = new Set<string>();
  const absentDirs = new Set<string>();
  for (const rel of new Set(paths)) {
    const entry = captureOne(dirCache, rel, blobs, durability, inlineMax);
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
 * will overwrite).
 */
export function captureWorkspace(root: RootArg, blobs: BlobStore, cache: StatCache | null, extra: Iterable<string> = [], sources?: IgnoreSource[]): Captured {
  const resolver = asResolver(root);
  const dirCache = new DirCache(resolver);
  try {
    return captureWorkspaceWith(resolver, dirCache, blobs, cache, extra, sources);
  } finally {
    dirCache.closeAll();
  }
}

function captureWorkspaceWith(resolver: ReturnType<typeof asResolver>, dirCache: DirCache, blobs: BlobStore, cache: StatCache | null, extra: Iterable<string>, sources: IgnoreSource[] | undefined): Captured {
  const walked = walkWorkspace(resolver, sources);
  const entries: ManifestEntry[] = [];
  const rows: StatRows = { entries: [], devs: [] };
  const wanted = [...new Set(extra)];
  // Only extras need to know what the walk saw: no set of every path otherwise.
  const seen = wanted.length > 0 ? new Set<string>() : null;
  const device = { dev: -1 };
  let read = 0;
  for (const w of walked.entries) {
    seen?.add(w.path);
    if (w.type === 'symlink') {
      // Read through the walk's opened folder; null: vanished since readdir.
      if (w.target !== null) entries.push({ path: w.path, type: 'symlink', target: w.target });
      continue;
    }
    // Unchanged by its stat: the recorded blob, which the cache's checkpoint keeps from the garbage collector.
    const reused = cache !== null && w.stat !== null ? cache.reuse(w.path, w.stat) : null;
    if (reused !== null) {
      entries.push(reused);
      rows.entries.push(reused);
      rows.devs.push(w.stat?.dev ?? -1);
      continue;
    }
    // Every read goes through the parent folder opened exactly (resolver.ts), never through the walk's path string.
    const { parent, name } = dirCache.tryParentOf(w.path);
    if (parent === null) continue; // Its folder was replaced since the walk: nothing of it can be read safely.
    device.dev = -1;
    read++;
    const entry = readFileEntry(parent.at(name), w.path, blobs, 'batch', 0, device);
    if (entry === null) continue;
    entries.push(entry);
    rows.entries.push(entry);
    rows.devs.push(device.dev);
  }
  const dirs = new Set(walked.dirs);
  const absentDirs = new Set<string>();
  const extras = seen === null ? [] : wanted.filter((p) => !seen.has(p));
  if (extras.length > 0) {
    read += extras.length;
    const more = captureFilesWith(dirCache, extras, blobs, 'batch', 0);
    entries.push(...more.entries);
    for (const d of more.dirs) dirs.add(d);
    for (const d of more.absentDirs) absentDirs.add(d);
  }
  blobs.flush();
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, dirs: [...dirs].sort(), absentDirs: [...absentDirs].sort(), rows, read };
}
