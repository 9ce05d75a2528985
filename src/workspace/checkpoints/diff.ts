/**
 * What changed since a checkpoint: the list a restore would undo, with a
 * unified diff for text files. Read-only: it never stores blobs or writes.
 */
import fs from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import type { BlobStore } from './blob-store.js';
import { bytesOf, checkManifestPath, currentState, sameContent, type CurrentState } from './current.js';
import { extrasOf, type IgnoreRules } from './restore.js';
import type { CheckpointChange, EntryState, Manifest, ManifestEntry } from './types.js';

export interface DiffOptions {
  /** Include unified diffs of text files (default true). */
  patch?: boolean;
  /** Files larger than this get no patch (default 1 MiB). */
  maxPatchBytes?: number;
  /** Which ignore rules decide what counts as created since (default: then or now). */
  rules?: IgnoreRules;
}

function stateOfEntry(entry: ManifestEntry): EntryState | undefined {
  switch (entry.type) {
    case 'file':
      return { type: 'file', size: entry.size, mode: entry.mode };
    case 'symlink':
      return { type: 'symlink', target: entry.target };
    case 'absent':
      return undefined;
    default: {
      const never: never = entry;
      return never;
    }
  }
}

function stateOfCurrent(now: CurrentState): EntryState | undefined {
  if (now.type === 'file') return { type: 'file', size: now.stat.size, mode: now.stat.mode & 0o7777 };
  if (now.type === 'symlink') return { type: 'symlink', target: now.target };
  return undefined;
}

export function diffManifest(root: string, manifest: Manifest, blobs: BlobStore, options: DiffOptions = {}): CheckpointChange[] {
  const wantPatch = options.patch ?? true;
  const maxPatch = options.maxPatchBytes ?? 1024 * 1024;
  const changes: CheckpointChange[] = [];
  const readBefore = (entry: ManifestEntry): Buffer | null => (entry.type === 'file' ? bytesOf(entry, blobs) : null);
  const patchOf = (rel: string, before: Buffer | null, afterAbs: string | null): string | undefined => {
    if (!wantPatch) return undefined;
    let after: Buffer | null = null;
    if (afterAbs) {
      try {
        after = fs.readFileSync(afterAbs);
      } catch {
        after = null;
      }
    }
    if ((before && !isText(before, maxPatch)) || (after && !isText(after, maxPatch))) return undefined;
    return createTwoFilesPatch(before ? `a/${rel}` : '/dev/null', after ? `b/${rel}` : '/dev/null', before?.toString('utf8') ?? '', after?.toString('utf8') ?? '');
  };

  for (const entry of manifest.entries) {
    const abs = checkManifestPath(root, entry.path);
    const now = currentState(abs);
    const before = stateOfEntry(entry);
    const after = stateOfCurrent(now);
    const change = (kind: CheckpointChange['change'], patch?: string): void => {
      const c: CheckpointChange = { path: entry.path, change: kind };
      if (before) c.before = before;
      if (after) c.after = after;
      if (patch !== undefined) c.patch = patch;
      changes.push(c);
    };
    if (entry.type === 'absent') {
      if (after) change('added', now.type === 'file' ? patchOf(entry.path, null, abs) : undefined);
      continue;
    }
    if (!after) {
      change('deleted', entry.type === 'file' ? patchOf(entry.path, readBefore(entry), null) : undefined);
      continue;
    }
    if (entry.type === 'symlink') {
      if (now.type !== 'symlink') change('type');
      else if (now.target !== entry.target) change('modified');
      continue;
    }
    if (now.type !== 'file') {
      change('type');
      continue;
    }
    if (!sameContent(abs, now.stat, entry)) change('modified', patchOf(entry.path, readBefore(entry), abs));
    else if ((now.stat.mode & 0o7777) !== entry.mode) change('mode');
  }
  if (manifest.scope === 'workspace') {
    for (const rel of extrasOf(root, manifest, blobs, options.rules).files) {
      const abs = checkManifestPath(root, rel);
      const now = currentState(abs);
      const after = stateOfCurrent(now);
      const c: CheckpointChange = { path: rel, change: 'added' };
      if (after) c.after = after;
      const patch = now.type === 'file' ? patchOf(rel, null, abs) : undefined;
      if (patch !== undefined) c.patch = patch;
      changes.push(c);
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Text for diffing: no NUL byte in the first 8 KiB, and not too large. */
function isText(bytes: Buffer, max: number): boolean {
  return bytes.length <= max && !bytes.subarray(0, 8192).includes(0);
}
