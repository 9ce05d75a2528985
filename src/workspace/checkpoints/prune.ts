/**
 * Retention: which checkpoints a prune drops (pure), and the garbage
 * collector that removes blobs no manifest names any more. The collector
 * runs only under the root lock, so no checkpoint can be half-written while
 * it decides what is unreferenced.
 */
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { BlobStore } from './blob-store.js';
import type { Manifest } from './types.js';

export interface PrunePolicy {
  /** Keep at least the newest N checkpoints. */
  keepLast?: number;
  /** Drop checkpoints older than this many ms. */
  olderThanMs?: number;
}

/**
 * Ids to drop, given summaries oldest first. With both rules, a checkpoint
 * goes only when it is beyond the newest N AND older than the age: "keep the
 * last 10, and anything from this week".
 */
export function selectForPrune(checkpoints: Array<{ id: string; createdAt: string }>, policy: PrunePolicy, now: Date, protectedIds: ReadonlySet<string>): string[] {
  if (policy.keepLast === undefined && policy.olderThanMs === undefined) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: 'Prune needs a rule: keep the last N checkpoints, or drop those older than a duration.',
      hint: 'Pass --keep-last N and/or --older-than 7d (units s, m, h, d, w).',
    });
  }
  const newestFirst = [...checkpoints].sort((a, b) => (a.id < b.id ? 1 : -1));
  const out: string[] = [];
  newestFirst.forEach((cp, index) => {
    if (protectedIds.has(cp.id)) return;
    const beyondLast = policy.keepLast === undefined || index >= policy.keepLast;
    const old = policy.olderThanMs === undefined || now.getTime() - Date.parse(cp.createdAt) > policy.olderThanMs;
    if (beyondLast && old) out.push(cp.id);
  });
  return out.reverse();
}

/** Parses "90s", "15m", "12h", "7d", "2w" into ms. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(text.trim());
  if (!m) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `${JSON.stringify(text)} is not a duration.`,
      hint: 'Write a number and a unit: 90s, 15m, 12h, 7d or 2w.',
    });
  }
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}

/** Removes every blob no remaining manifest names; returns the bytes freed. */
export function collectGarbage(blobs: BlobStore, remaining: Iterable<Manifest>, alsoLive: Iterable<string> = []): number {
  const live = new Set<string>(alsoLive);
  for (const manifest of remaining) {
    for (const e of manifest.entries) if (e.type === 'file' && e.inline === undefined) live.add(e.blob);
    // A step's refs (the index, a large packed-refs) name blobs too.
    for (const e of manifest.git?.entries ?? []) if (e.type === 'file' && e.inline === undefined) live.add(e.blob);
  }
  let freed = 0;
  let occupied = 0;
  for (const hash of blobs.listAll()) {
    if (live.has(hash)) continue;
    freed += blobs.sizeOf(hash);
    occupied += blobs.occupiedOf(hash);
    blobs.remove(hash);
  }
  blobs.removeTemps();
  // The store's ledger (checkpoints.max_total_bytes) gives back what was removed.
  blobs.budget?.refund(occupied);
  blobs.budget?.save();
  return freed;
}
