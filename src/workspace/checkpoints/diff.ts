/**
 * What changed since a checkpoint: the list a restore would undo, with a
 * unified diff for text files. Read-only: it never stores blobs or writes.
 */
import { createTwoFilesPatch } from 'diff';
import { DirCache, type DirHandle } from '../resolver.js';
import type { BlobStore } from './blob-store.js';
import { bytesOf, checkManifestPath, currentStateAt, readRegularAt, sameContent, type CurrentState } from './current.js';
import { extrasOf, type IgnoreRules } from './restore.js';
import { asResolver, type RootArg } from './walk.js';
import type { CheckpointChange, EntryState, Manifest, ManifestEntry } from './types.js';

export interface DiffOptions {
  /** Include unified diffs of text files (default true). */
  patch?: boolean;
  /** Files larger than this get no patch (default 1 MiB). */
  maxPatchBytes?: number;
  /** Which ignore rules decide what counts as created since (default: then or now). */
  rules?: IgnoreRules;
  /** Patches from the disk now to the checkpoint (what a restore would do) instead of from the checkpoint to the disk. */
  reverse?: boolean;
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

export function diffManifest(rootArg: RootArg, manifest: Manifest, blobs: BlobStore, options: DiffOptions = {}): CheckpointChange[] {
  const resolver = asResolver(rootArg);
  const dirs = new DirCache(resolver);
  try {
    return diffWith(resolver, dirs, manifest, blobs, options);
  } finally {
    dirs.closeAll();
  }
}

/** Every read goes through a folder opened without following a symlink: a parent swapped for a link to the outside shows as "deleted", never as outside content. */
function diffWith(resolver: ReturnType<typeof asResolver>, dirs: DirCache, manifest: Manifest, blobs: BlobStore, options: DiffOptions): CheckpointChange[] {
  const wantPatch = options.patch ?? true;
  const maxPatch = options.maxPatchBytes ?? 1024 * 1024;
  const changes: CheckpointChange[] = [];
  // Only for a patch: an after record (steps.ts) names hashes whose bytes were never stored.
  const readBefore = (entry: ManifestEntry): Buffer | null => (wantPatch && entry.type === 'file' ? bytesOf(entry, blobs) : null);
  const patchOf = (rel: string, before: Buffer | null, at: { parent: DirHandle | null; name: string } | null): string | undefined => {
    if (!wantPatch) return undefined;
    let after: Buffer | null = null;
    if (at?.parent) {
      const now = readRegularAt(at.parent, at.name);
      // A file with a second hard link may be a window onto an outside file: its content is not shown.
      if (now !== null && now.stat.nlink > 1) return undefined;
      after = now?.bytes ?? null;
    }
    if ((before && !isText(before, maxPatch)) || (after && !isText(after, maxPatch))) return undefined;
    if (options.reverse) return createTwoFilesPatch(after ? `a/${rel}` : '/dev/null', before ? `b/${rel}` : '/dev/null', after?.toString('utf8') ?? '', before?.toString('utf8') ?? '');
    return createTwoFilesPatch(before ? `a/${rel}` : '/dev/null', after ? `b/${rel}` : '/dev/null', before?.toString('utf8') ?? '', after?.toString('utf8') ?? '');
  };

  for (const entry of manifest.entries) {
    checkManifestPath(entry.path);
    const abs = dirs.tryParentOf(entry.path);
    const now = currentStateAt(abs.parent, abs.name);
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
    if (!sameContent(abs.parent as DirHandle, abs.name, now.stat, entry)) change('modified', patchOf(entry.path, readBefore(entry), abs));
    else if ((now.stat.mode & 0o7777) !== entry.mode) change('mode');
  }
  if (manifest.scope === 'workspace') {
    for (const rel of extrasOf(resolver, manifest, blobs, options.rules).files) {
      checkManifestPath(rel);
      const abs = dirs.tryParentOf(rel);
      const now = currentStateAt(abs.parent, abs.name);
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
