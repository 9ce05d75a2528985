/**
 * What is at a path now, compared with a manifest entry: the small read-only
 * helper that restore and diff share. Never writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { checkDeniedRelative } from '../paths.js';
import { sha256 } from '../workspace.js';
import type { BlobStore } from './blob-store.js';
import type { ManifestEntry } from './types.js';

/** The recorded bytes of a file entry: inline in the manifest, or from the blob store. */
export function bytesOf(entry: Extract<ManifestEntry, { type: 'file' }>, blobs: BlobStore): Buffer {
  return entry.inline !== undefined ? Buffer.from(entry.inline, 'base64') : blobs.get(entry.blob);
}

export type CurrentState =
  | { type: 'absent' }
  | { type: 'file'; stat: fs.Stats }
  | { type: 'symlink'; target: string }
  | { type: 'dir' }
  | { type: 'other' };

export function currentState(abs: string): CurrentState {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(abs);
  } catch {
    return { type: 'absent' };
  }
  if (stat.isFile()) return { type: 'file', stat };
  if (stat.isSymbolicLink()) return { type: 'symlink', target: fs.readlinkSync(abs) };
  if (stat.isDirectory()) return { type: 'dir' };
  return { type: 'other' };
}

/**
 * Whether a file on disk holds the entry's bytes. Size+mtime+ctime+inode
 * equal to the recorded ones settle it without reading; otherwise the bytes
 * are hashed.
 */
export function sameContent(abs: string, stat: fs.Stats, entry: Extract<ManifestEntry, { type: 'file' }>): boolean {
  if (stat.size !== entry.size) return false;
  if (stat.mtimeMs === entry.mtimeMs && stat.ctimeMs === entry.ctimeMs && stat.ino === entry.ino) return true;
  try {
    return sha256(fs.readFileSync(abs)) === entry.blob;
  } catch {
    return false;
  }
}

/**
 * A manifest is data on disk that someone could have edited: refuse any path
 * in it that would lead out of the root or into .git/ or .editwarden/.
 */
export function checkManifestPath(root: string, rel: string): string {
  const parts = rel.split('/');
  if (rel === '' || path.isAbsolute(rel) || rel.includes('\\') || rel.includes('\0') || parts.some((p) => p === '..' || p === '.' || p === '')) {
    throw new EditwardenError({
      code: ErrorCode.OUTSIDE_ROOT,
      message: `A checkpoint names the path ${JSON.stringify(rel)}, which is not a plain path inside the root.`,
      hint: 'The checkpoint manifest was changed by hand; drop it and use another checkpoint.',
      path: rel,
    });
  }
  checkDeniedRelative(rel, rel);
  return path.join(root, ...parts);
}
