/**
 * What changed since a workspace index, in one walk: the fast twin of
 * `diffManifest` for a command's effects (command-index.ts). `diffManifest`
 * of a workspace checkpoint stats every recorded entry and then walks the
 * tree again for files created since; this walks once (the walk's own lstat
 * per file), keeps every file whose stat (size, mtime, ctime, inode, mode)
 * is the recorded one, and hands only the rest — changed, created, deleted,
 * replaced — to `diffManifest` for the exact verdict and the patch.
 *
 * It must never miss a change (a missed change is an uncharged, un-undoable
 * effect): a file recorded within RACY_MS before the index's scan began is
 * never trusted by its stat (a rewrite of the same size in the same
 * timestamp tick keeps mtime and ctime: git's "racy clean" problem); it is
 * hashed. (Linux ≥ 6.13 gives a file whose ctime was read a fine-grained
 * next ctime, so the case cannot be produced on this project's test kernel;
 * the guard is for older kernels and coarser file systems. The property
 * test pins that the one walk finds what the full diff finds.) Read-only.
 */
import { manifestIgnoreSource, type IgnoreRules } from './restore.js';
import type { BlobStore } from './blob-store.js';
import { diffManifest, type DiffOptions } from './diff.js';
import { compareByPath, type CheckpointChange, type Manifest, type ManifestEntry } from './types.js';
import { statShows } from './stat-batch.js';
import { walkWorkspace } from './walk.js';
import type { Resolver } from '../resolver.js';

/** Margin for the file system's coarse clock against the wall clock the scan start was read from. */
const RACY_MS = 2000;

export function diffIndex(resolver: Resolver, index: Manifest, blobs: BlobStore, rules: IgnoreRules & { only: 'checkpoint' }, options: Omit<DiffOptions, 'rules'> = {}): CheckpointChange[] {
  const walked = walkWorkspace(resolver, [manifestIgnoreSource(index, blobs)], rules.exclude);
  // Both lists are in path order (the walk sorts; a manifest is written sorted): one merge, no map or set of every path.
  const recorded = isSorted(index.entries) ? index.entries : [...index.entries].sort(compareByPath);
  const trustBefore = index.scanStartedMs - RACY_MS;
  const candidates: ManifestEntry[] = [];
  let j = 0;
  for (const w of walked.entries) {
    // Recorded but not walked: deleted, or its folder replaced (diffManifest reads through opened folders and says which).
    while (j < recorded.length && (recorded[j] as ManifestEntry).path < w.path) {
      const gone = recorded[j++] as ManifestEntry;
      if (gone.type !== 'absent') candidates.push(gone);
    }
    const e = j < recorded.length && (recorded[j] as ManifestEntry).path === w.path ? (recorded[j++] as ManifestEntry) : undefined;
    if (e === undefined || e.type === 'absent') {
      candidates.push({ path: w.path, type: 'absent' }); // Created since.
      continue;
    }
    if (e.type === 'symlink' && w.type === 'symlink' && w.target === e.target) continue;
    if (e.type === 'file' && w.type === 'file' && e.mtimeMs < trustBefore && e.ctimeMs < trustBefore) {
      // The walk's numbers for this file (a NaN device: it has none).
      if (statShows(w.stats, w.at, e)) continue;
    }
    candidates.push(e);
  }
  for (; j < recorded.length; j++) {
    const gone = recorded[j] as ManifestEntry;
    if (gone.type !== 'absent') candidates.push(gone);
  }
  if (candidates.length === 0) return [];
  const narrowed: Manifest = { ...index, scope: 'files', entries: candidates.sort(compareByPath), dirs: [], absentDirs: [] };
  return diffManifest(resolver, narrowed, blobs, options);
}

function isSorted(entries: readonly ManifestEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) if (!((entries[i - 1] as ManifestEntry).path < (entries[i] as ManifestEntry).path)) return false;
  return true;
}
