/**
 * The one atomic file write of editwarden: a temp file in the same folder,
 * fsync, rename over the target, fsync the folder. A crash at any moment
 * leaves the old file or the new file, never a torn one; a failure leaves
 * the old file untouched and no temp file behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWriteOptions {
  /** File mode for the result (the old file's mode is kept when omitted). */
  mode?: number;
  /** Skip fsync (tests of throughput only; never for real writes). */
  noSync?: boolean;
  /** Called after the temp file is durable and before the rename: a last check that the folder is still where it was validated. */
  beforeRename?: () => void;
}

export const TEMP_PREFIX = '.ew-tmp-';

/** Bytes to write: one buffer, or pieces written in order (spares copying a large file to splice one line). */
export type FileData = Uint8Array | readonly Uint8Array[];

export function atomicWriteFile(target: string, data: FileData, options: AtomicWriteOptions = {}): void {
  const dir = path.dirname(target);
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = fs.statSync(target).mode & 0o7777;
    } catch {
      mode = 0o666 & ~process.umask();
    }
  }
  const temp = path.join(dir, `${TEMP_PREFIX}${path.basename(target)}.${randomBytes(6).toString('hex')}`);
  // "wx": exclusive create, so a symlink planted at the temp name is never followed.
  const fd = fs.openSync(temp, 'wx', mode);
  try {
    try {
      writeFully(fd, isPieces(data) ? data : [data]);
      // openSync's mode is filtered by the umask; set the exact mode the old file had.
      fs.fchmodSync(fd, mode);
      if (!options.noSync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(temp, target);
  } catch (error) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Already gone (renamed or never created): nothing to clean.
    }
    throw error;
  }
  if (!options.noSync) fsyncDir(dir);
}

/** Makes a rename or unlink in `dir` durable. */
export function fsyncDir(dir: string): void {
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
