/**
 * The one atomic file write of editwarden: a temp file in the same folder,
 * fsync, rename over the target, fsync the folder. A crash at any moment
 * leaves the old file or the new file, never a torn one; a failure leaves
 * the old file untouched and no temp file behind. What else must be on disk
 * before the rename (the checkpoint that makes the write undoable) is
 * fsynced together with the temp file (durable.ts): one disk round trip
 * before the rename, one after. A long-lived server's lone write may leave
 * the temp file's fsync for after its answer only where the file system
 * orders a replacing rename after the data (deferTempSync, replace-order.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { deferDurable, deferFileSync, observe, syncGroup } from './durable.js';
import { renameOrdersDataOf } from './replace-order.js';

export interface AtomicWriteOptions {
  /** File mode for the result (the old file's mode is kept when omitted). */
  mode?: number;
  /** Skip the fsyncs: the caller makes the file and its folder durable itself before anything relies on them (a deferred checkpoint manifest). */
  noSync?: boolean;
  /** Called after the temp file is durable and before the rename: a last check that the folder is still where it was validated. */
  beforeRename?: () => void;
  /** The folder's fsync after the rename is left to `settleDurable` (durable.ts): the rename is atomic either way; only its durability waits. */
  deferFolderSync?: boolean;
  /** Paths (files and folders) that must be durable before the rename: fsynced together with the temp file. */
  durableFirst?: readonly string[];
  /**
   * The temp file's own fsync may wait for `settleDurable` (a long-lived server's lone write in deferred
   * durability) — taken only where the rename replaces a regular file on a file system that orders the new
   * file's data before such a rename (ext4 in data=journal: replace-order.ts), so "old or new" holds without it; a new file, or
   * any other file system, keeps the fsync before the rename.
   */
  deferTempSync?: boolean;
}

export const TEMP_PREFIX = '.ew-tmp-';

/** Bytes to write: one buffer, or pieces written in order (spares copying a large file to splice one line). */
export type FileData = Uint8Array | readonly Uint8Array[];

/** Where an atomic write happens: a way to name entries of the target's folder, and to make its renames durable. */
export interface WriteFolder {
  at(name: string): string;
  fsync(): void;
  /** The folder's path, for messages and the protocol observer. */
  readonly display?: string;
}

/** Longest file name (bytes) on the file systems editwarden runs on (NAME_MAX). */
export const NAME_MAX = 255;
const TEMP_SUFFIX_BYTES = 13; // "." + 12 hex

/**
 * The temp name for `name`: `.ew-tmp-<stem>.<12 hex>`, where the stem is the
 * name cut (on a character boundary) so the whole never exceeds NAME_MAX —
 * a 250-byte name must still be writable and restorable.
 */
function tempStem(name: string): string {
  const budget = NAME_MAX - Buffer.byteLength(TEMP_PREFIX) - TEMP_SUFFIX_BYTES;
  if (Buffer.byteLength(name) <= budget) return name;
  let out = '';
  let used = 0;
  for (const ch of name) {
    const n = Buffer.byteLength(ch);
    if (used + n > budget) break;
    out += ch;
    used += n;
  }
  return out;
}

export function tempNameFor(name: string): string {
  return `${TEMP_PREFIX}${tempStem(name)}.${randomBytes(6).toString('hex')}`;
}

/** Whether `entry` is a temp file of an atomic write of `name` (a killed write's leftover). */
export function isTempFor(entry: string, name: string): boolean {
  const stem = `${TEMP_PREFIX}${tempStem(name)}.`;
  return entry.length === stem.length + 12 && entry.startsWith(stem) && /^[0-9a-f]{12}$/.test(entry.slice(stem.length));
}

export function atomicWriteFile(target: string, data: FileData, options: AtomicWriteOptions = {}): void {
  const dir = path.dirname(target);
  atomicWriteAt({ at: (name) => path.join(dir, name), fsync: () => fsyncDir(dir), display: dir }, path.basename(target), data, options);
}

export interface AtomicWriteAtOptions extends AtomicWriteOptions {
  /** Owner for the result (the old file's owner is kept when omitted); applied only where permitted. */
  owner?: { uid: number; gid: number };
}

/**
 * The atomic write relative to an opened folder: every name is looked up in
 * that folder (see resolver.ts), so a folder swapped for a symlink cannot
 * redirect the temp file or the rename.
 */
export function atomicWriteAt(folder: WriteFolder, name: string, data: FileData, options: AtomicWriteAtOptions = {}): void {
  const target = folder.at(name);
  let mode = options.mode;
  let owner = options.owner;
  if (mode === undefined || owner === undefined) {
    try {
      const st = fs.lstatSync(target);
      if (st.isFile()) {
        mode ??= st.mode & 0o7777;
        owner ??= { uid: st.uid, gid: st.gid };
      }
    } catch {
      // A new file.
    }
    mode ??= 0o666 & ~process.umask();
  }
  const temp = folder.at(tempNameFor(name));
  // "wx": exclusive create, so a symlink planted at the temp name is never followed.
  const fd = fs.openSync(temp, 'wx', mode);
  const shown = folder.display === undefined ? name : path.join(folder.display, name);
  observe({ op: 'temp', path: shown });
  // The temp file's fsync after the answer instead of before the rename (deferTempSync); its descriptor then stays open for the settle.
  let later = false;
  try {
    try {
      writeFully(fd, isPieces(data) ? data : [data]);
      // Owner first: a chown clears set-id bits, which the chmod then puts back.
      if (owner) keepOwner(fd, owner);
      // openSync's mode is filtered by the umask; set the exact mode the old file had.
      fs.fchmodSync(fd, mode);
      later = options.deferTempSync === true && !options.noSync && replacesRegularFile(target) && renameOrdersDataOf(fd);
      // The temp file and whatever must precede the rename, in one round trip.
      syncGroup(options.durableFirst ?? [], () => {
        if (options.noSync || later) return;
        fs.fsyncSync(fd);
        observe({ op: 'fsync', path: `${shown} (temp)` });
      });
    } finally {
      if (!later) fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(temp, target);
    observe({ op: 'rename', from: 'temp', to: shown });
  } catch (error) {
    if (later) fs.closeSync(fd);
    try {
      fs.unlinkSync(temp);
    } catch {
      // Already gone (renamed or never created): nothing to clean.
    }
    throw error;
  }
  if (later) deferFileSync(fd, shown);
  if (!options.noSync && options.deferFolderSync && folder.display !== undefined) {
    deferDurable([folder.display]);
  } else if (!options.noSync) {
    folder.fsync();
    observe({ op: 'fsync', path: folder.display ?? '(folder)' });
  }
}

/** Whether `target` is a regular file now: the rename will replace it (a new name keeps its temp file's fsync). */
function replacesRegularFile(target: string): boolean {
  try {
    return fs.lstatSync(target).isFile();
  } catch {
    return false;
  }
}

/** The replaced file's owner stays its owner where the OS lets us (root, or a group we belong to); elsewhere the new file is ours. */
function keepOwner(fd: number, owner: { uid: number; gid: number }): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : owner.uid;
  const gid = typeof process.getgid === 'function' ? process.getgid() : owner.gid;
  if (owner.uid === uid && owner.gid === gid) return;
  try {
    fs.fchownSync(fd, owner.uid, owner.gid);
  } catch {
    try {
      // Not root: a group we belong to can still be kept.
      if (owner.gid !== gid) fs.fchownSync(fd, uid, owner.gid);
    } catch {
      // Not permitted: the file becomes ours (documented).
    }
  }
}

/** Makes a rename or unlink in `dir` durable. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on folders; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** One writev for all pieces; short writes (rare, large files) continue piece by piece. */
function writeFully(fd: number, pieces: readonly Uint8Array[]): void {
  const total = pieces.reduce((n, p) => n + p.length, 0);
  let written = pieces.length > 1 ? fs.writevSync(fd, pieces as Uint8Array[]) : 0;
  if (written === total) return;
  for (const piece of pieces) {
    if (written >= piece.length) {
      written -= piece.length;
      continue;
    }
    let offset = written;
    written = 0;
    while (offset < piece.length) offset += fs.writeSync(fd, piece, offset, piece.length - offset);
  }
}

function isPieces(data: FileData): data is readonly Uint8Array[] {
  return Array.isArray(data);
}
