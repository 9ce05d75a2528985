/**
 * What is different now: for every file the scope's edits and commands
 * changed, the file now against the file before the scope's first step that
 * touched it — read from that step's checkpoint (the bytes editwarden kept
 * before the change), so an undo shows as "back as it was" and a file a
 * command deleted as deleted, with the diff. One synthetic files-scope
 * manifest of those first entries is diffed against the disk by the
 * checkpoints' own diff (read-only; every read through the resolver).
 *
 * It never writes, and never shows a file whose state before was not kept
 * as if it were known: that file is "unknown".
 */
import { diffManifest } from '../workspace/checkpoints/diff.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import type { Manifest, ManifestEntry } from '../workspace/checkpoints/types.js';
import { countPatchLines, withoutRule } from '../guard/command-effects.js';
import type { NetChange, ReportItem } from './event-summary.js';

export function netChanges(items: readonly ReportItem[], checkpoints: CheckpointService): NetChange[] {
  const manifests = new Map<string, Manifest | null>();
  const entriesOf = new Map<string, Map<string, ManifestEntry>>();
  // One listing says which checkpoints still exist: a pruned one costs no failed read.
  const kept = new Set(checkpoints.manifests.ids().map((c) => c.id));
  const manifestOf = (id: string): Manifest | null => {
    if (!kept.has(id)) return null;
    if (!manifests.has(id)) {
      try {
        const m = checkpoints.get(id);
        manifests.set(id, m);
        entriesOf.set(id, new Map(m.entries.map((e) => [e.path, e])));
      } catch {
        // Pruned, or never kept (an undo step dropped after a put-back): the start is unknown.
        manifests.set(id, null);
      }
    }
    return manifests.get(id) ?? null;
  };
  // Oldest first: the first step that touched a path holds its state at the start.
  const start = new Map<string, ManifestEntry | null>();
  for (const { event, allPaths } of items) {
    if (event.kind !== 'edit' && event.kind !== 'command') continue;
    if (event.kind === 'command' && event.reverted) continue;
    for (const p of allPaths ?? event.paths) {
      if (start.has(p)) continue;
      const m = event.checkpoint ? manifestOf(event.checkpoint) : null;
      const entry = (event.checkpoint ? entriesOf.get(event.checkpoint)?.get(p) : undefined) ?? (m?.scope === 'workspace' ? ({ path: p, type: 'absent' } as const) : null);
      start.set(p, entry);
    }
  }
  const known = [...start.values()].filter((e): e is ManifestEntry => e !== null);
  const base = [...manifests.values()].find((m): m is Manifest => m !== null);
  const diffs = new Map<string, { change: NetChange['change']; patch?: string }>();
  if (base && known.length > 0) {
    const synthetic: Manifest = { ...base, scope: 'files', entries: known };
    for (const c of diffManifest(checkpoints.ws.resolver, synthetic, checkpoints.blobs)) {
      diffs.set(c.path, { change: c.change === 'added' || c.change === 'deleted' ? c.change : 'modified', ...(c.patch !== undefined ? { patch: withoutRule(c.patch) } : {}) });
    }
  }
  return [...start.entries()].map(([p, entry]): NetChange => {
    if (entry === null) return { path: p, change: 'unknown', added: 0, removed: 0, diff: null };
    const d = diffs.get(p);
    if (!d) return { path: p, change: 'unchanged', added: 0, removed: 0, diff: null };
    const lines = d.patch ? countPatchLines(d.patch) : { added: 0, removed: 0 };
    return { path: p, change: d.change, ...lines, diff: d.patch ?? null };
  });
}
