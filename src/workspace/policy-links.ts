/**
 * The protected set's look for links, kept by a long-lived process between
 * openings of one project. Opening a project makes its `Policy`
 * (policy.ts), which follows every member that is a link, or holds links,
 * to its real target (`.claude/settings.json -> ../config/claude.json`
 * protects config/claude.json too): a walk from the root per member and a
 * listing of each protected folder, ~0.5 ms of the warm server's every
 * call. In a project with no link anywhere the set looks, the answer is the
 * fixed members and nothing more — and whether that is still so is one
 * `lstat` per path the look went through.
 *
 * What it defends against, and how: a link planted (or a folder swapped for
 * one) between two calls must be protected on the next. So a look is kept
 * only when it found no link at all, and believed only while every path it
 * went through is as it was: each prefix of each member up to the first
 * that is not a folder (the same device, inode, mode and owner: a link put
 * in its place is another inode of another type; still missing), and each
 * protected folder it listed and each folder below it (the same, and the
 * same change time: a new entry changes its folder's ctime; the change
 * time, not the modification time, which a command can set back after
 * planting a link). A listed folder whose change time was within a few
 * ticks of the look is not believed at all (git's "racy" rule, as the
 * nested-repository search applies it, config/nested-repos.ts): a change in
 * the same timestamp tick would leave it as it was. Any difference, or any
 * link, and the set is worked out again as a one-shot process does. It can
 * only save time, never change a member (test/workspace/policy-links.test.ts:
 * after any sequence of changes, the members of a fresh Policy).
 *
 * It must never decide a member itself: the Policy does, from the disk;
 * this only says the disk is as it was when the Policy last found no link.
 */
import fs from 'node:fs';
import { RACY_MS } from '../config/nested-repos.js';

/** Projects kept at once (the warm server's ProjectState keeps as many). */
const MAX_KEPT = 16;

/**
 * What one `lstat` saw: the entry's identity, type, mode and owner — and, for a folder whose entries were listed,
 * its change time (a new entry changes it) — or the error that stood there.
 */
function seenAt(abs: string, listed: boolean): { seen: string; stat: fs.Stats | null } {
  try {
    const s = fs.lstatSync(abs);
    return { seen: `${s.dev}:${s.ino}:${s.mode}:${s.uid}:${s.gid}${listed ? `:${s.ctimeMs}` : ''}`, stat: s };
  } catch (error) {
    return { seen: (error as NodeJS.ErrnoException).code ?? 'error', stat: null };
  }
}

/** One look for links, as it goes: every path looked at and what stood there; whether it may be kept. */
export class LinkLook {
  /** Each path looked at, with whether its entries were listed, and what stood there. */
  readonly seen = new Map<string, { listed: boolean; was: string }>();
  private keepable = true;

  constructor(
    private readonly readAt: number,
    private readonly racyMs: number,
  ) {}

  /**
   * The `lstat` of `abs` (null when nothing is there), recorded; `listed`: the caller lists its entries next. A link,
   * or a listed folder changed too recently for its change time to show a later change, makes the look not keepable.
   */
  look(abs: string, listed = false): fs.Stats | null {
    const { seen, stat } = seenAt(abs, listed);
    this.seen.set(abs, { listed, was: seen });
    if (stat?.isSymbolicLink() || (listed && stat !== null && !(stat.ctimeMs < this.readAt - this.racyMs))) this.keepable = false;
    return stat;
  }

  /** The look found something it cannot vouch for later (a link, a listing cut short): it is not kept. */
  spoil(): void {
    this.keepable = false;
  }

  get keep(): boolean {
    return this.keepable;
  }
}

/** The looks that found no link, per real root and member list, believed while every path they went through is unchanged. */
export class KeptLinkLooks {
  private readonly looks = new Map<string, LinkLook['seen']>();

  constructor(private readonly options: { racyMs?: number; now?: () => number } = {}) {}

  /** Whether the look kept for (`root`, `members`) found no link and the disk is as it saw it (dropped when not). */
  stillNone(root: string, members: string): boolean {
    const key = `${root}\0${members}`;
    const seen = this.looks.get(key);
    if (seen === undefined) return false;
    for (const [abs, { listed, was }] of seen) {
      if (seenAt(abs, listed).seen !== was) {
        this.looks.delete(key);
        return false;
      }
    }
    // Map order is insertion order: re-inserting marks it the most recently used.
    this.looks.delete(key);
    this.looks.set(key, seen);
    return true;
  }

  /** A new look, its clock read before any path is. */
  start(): LinkLook {
    return new LinkLook((this.options.now ?? Date.now)(), this.options.racyMs ?? RACY_MS);
  }

  /** Keeps `look` for (`root`, `members`) when it found no link and saw only settled paths; else forgets any earlier one. */
  finish(root: string, members: string, look: LinkLook): void {
    const key = `${root}\0${members}`;
    this.looks.delete(key);
    if (!look.keep) return;
    if (this.looks.size >= MAX_KEPT) {
      const oldest = this.looks.keys().next().value;
      if (oldest !== undefined) this.looks.delete(oldest);
    }
    this.looks.set(key, look.seen);
  }
}
