/**
 * What is at a path now, compared with a manifest entry: the small read-only
 * helper that restore and diff share. Never writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { checkReach } from '../policy.js';
import { READ_FLAGS, type DirHandle } from '../resolver.js';
import { sha256 } from '../workspace.js';
import type { BlobStore } from './blob-store.js';
import type { ManifestEntry } from './types.js';

/** The recorded bytes of a file entry: inline in the manifest, or from the blob store. */
export function bytesOf(entry: Extract<ManifestEntry, { type: 'file' }>, blobs: BlobStore): Buffer {
  return entry.inline !== undefined ? Buffer.from(entry.inline, 'base64') : blobs.get(entry.blob);
}

export type CurrentState = { type: 'absent' } | { type: 'file'; stat: fs.Stats } | { type: 'symlink'; target: string } | { type: 'dir' } | { type: 'other' };

/** What is at `name` in an opened folder (null folder: the path's parent is missing or not a real folder, so nothing is there). */
export function currentStateAt(dir: DirHandle | null, name: string): CurrentState {
  if (dir === null) return { type: 'absent' };
  const abs = dir.at(name);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(abs);
  } catch {
    return { type: 'absent' };
  }
  if (stat.isFile()) return { type: 'file', stat };
  if (stat.isSymbolicLink()) {
    try {
      return { type: 'symlink', target: fs.readlinkSync(abs) };
    } catch {
      return { type: 'other' };
    }
  }
  if (stat.isDirectory()) return { type: 'dir' };
  return { type: 'other' };
}

/** Reads a regular file in an opened folder: no symlink followed, no FIFO opened for long. Null when it is not a regular file now. */
export function readRegularAt(dir: DirHandle, name: string): { bytes: Buffer; stat: fs.Stats } | null {
  let fd: number;
  try {
    fd = fs.openSync(dir.at(name), READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return null;
    return { bytes: fs.readFileSync(fd), stat };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a file on disk holds the entry's bytes. Size+mtime+ctime+inode
 * equal to the recorded ones settle it without reading; otherwise the bytes
 * are hashed.
 */
export function sameContent(dir: DirHandle, name: string, stat: fs.Stats, entry: Extract<ManifestEntry, { type: 'file' }>): boolean {
  if (stat.size !== entry.size) return false;
  if (stat.mtimeMs === entry.mtimeMs && stat.ctimeMs === entry.ctimeMs && stat.ino === entry.ino) return true;
  const now = readRegularAt(dir, name);
  return now !== null && sha256(now.bytes) === entry.blob;
}

/**
 * A manifest is data on disk that someone could have edited: refuse any path
 * in it that would lead out of the root or into .git/ or .editwarden/.
 */
export function checkManifestPath(rel: string): string {
  const parts = rel.split('/');
  // A backslash is an ordinary character of a POSIX name (`x\\y.txt` exists and must round-trip); only Windows reads it as a separator.
  if (rel === '' || path.isAbsolute(rel) || (path.sep === '\\' && rel.includes('\\')) || rel.includes('\0') || parts.some((p) => p === '..' || p === '.' || p === '')) {
    throw new EditwardenError({
      code: ErrorCode.OUTSIDE_ROOT,
      message: `A checkpoint names the path ${JSON.stringify(rel)}, which is not a plain path inside the root.`,
      hint: 'The checkpoint manifest was changed by hand; drop it and use another checkpoint.',
      path: rel,
    });
  }
  checkReach(rel, rel);
  return rel;
}
