/**
 * A project's tree state kept between commands by the process that keeps
 * the project open (the warm server): the last command index and the last
 * snapshot of the ignored files, each with the watch's mark (tree-watch.ts)
 * taken just before it was made. A guarded command then costs what changed:
 * - before it, the index is the last one when nothing a walk of the tracked
 *   files would see changed since that mark, and the ignored snapshot is
 *   the last one when no covered ignored file changed — no walk, no stat;
 * - after it, the diff is empty when nothing tracked changed since the
 *   index's mark (and the write witness, when it ran, named nothing
 *   tracked), and nothing ignored changed when nothing ignored did.
 * Anything else — the watch cannot tell, a rule file (`.gitignore`) or
 * `.git/info/exclude` changed, a folder appeared or went, a path no table
 * knows — is "changed": the caller walks, exactly as without a watch.
 *
 * Which side a changed path is on comes from the tables themselves: a path
 * the ignored snapshot holds is ignored, a path the index holds is tracked,
 * under the same rules (none changed: checked), so an event on one of them
 * can leave the other side as it was. An unknown path counts for both.
 */
import type { WitnessLog } from '../../sandbox/witness.js';
import type { IgnoredSnapshot } from './ignored.js';
import { TreeWatch, type TreeWatchOptions, type WatchChanges } from './tree-watch.js';
import type { Manifest } from './types.js';
import { leastOf } from '../../arrays.js';

interface Memo<T> {
  value: T;
  /** What else it depends on (the ignored-files coverage's config); '' for none. */
  key: string;
  mark: number;
  /** .git/info/exclude's text when it was made. */
  exclude: string | null;
  paths: Set<string> | null;
}

/** How many times each decision went which way (tests, the bench). */
export interface TreeCounts {
  indexReused: number;
  indexWalked: number;
  diffSkipped: number;
  diffWalked: number;
  ignoredReused: number;
  ignoredWalked: number;
}

export class WatchedTree {
  readonly watch: TreeWatch;
  private index: Memo<Manifest> | null = null;
  private ignored: Memo<IgnoredSnapshot> | null = null;
  private armed = false;
  /** Marks commands still measure from (their after-pass has not run): events after the oldest are kept. */
  private readonly held: number[] = [];
  readonly counts: TreeCounts = { indexReused: 0, indexWalked: 0, diffSkipped: 0, diffWalked: 0, ignoredReused: 0, ignoredWalked: 0 };

  constructor(root: string, options: TreeWatchOptions = {}) {
    this.watch = new TreeWatch(root, options);
  }

  /** A mark to measure from (a barrier: every change before it is in); null: nothing can be told now. */
  look(): number | null {
    return this.armed ? this.watch.sync() : null;
  }

  /** The index `current` when it still is the tracked tree; null: walk. Call under the root lock, after `look`. */
  indexStill(current: string | null, exclude: string | null): Manifest | null {
    const memo = this.index;
    const found = memo !== null && memo.value.id === current && memo.exclude === exclude && this.trackedSame(memo.mark, exclude) ? memo.value : null;
    if (found) this.counts.indexReused++;
    else this.counts.indexWalked++;
    return found;
  }

  /** Whether nothing a walk of the tracked files would see changed since `mark` (nor did the witness name a tracked path). */
  trackedSame(mark: number | null, exclude: string | null, witness?: WitnessLog | null): boolean {
    const changes = this.steady(mark, exclude);
    if (changes === null || changes.trees.size > 0) return false;
    // Made once per snapshot, and only when a path is to be looked up.
    const ignored = (p: string): boolean => this.pathsOf(this.ignored, (s) => s.records.map((r) => r.path))?.has(p) === true;
    for (const p of changes.paths) if (!ignored(p)) return false;
    return quiet(witness, ignored);
  }

  /** Keeps the events after `mark` until `release(mark)`: a command measures from it after other commands moved on. */
  hold(mark: number | null): void {
    if (mark !== null) this.held.push(mark);
  }

  release(mark: number | null): void {
    const at = mark === null ? -1 : this.held.indexOf(mark);
    if (at !== -1) this.held.splice(at, 1);
    this.forgetOld();
  }

  /** Counts an after-pass (tests, the bench). */
  noteDiff(skipped: boolean): void {
    if (skipped) this.counts.diffSkipped++;
    else this.counts.diffWalked++;
  }

  /** The ignored snapshot when no covered ignored file changed since it; null: walk. Under the root lock, after `look`. */
  ignoredStill(exclude: string | null, key: string): IgnoredSnapshot | null {
    const memo = this.ignored;
    const found = memo !== null && memo.key === key && memo.exclude === exclude && this.ignoredSame(memo.mark, exclude) ? memo.value : null;
    if (found) this.counts.ignoredReused++;
    else this.counts.ignoredWalked++;
    return found;
  }

  /** Whether no covered ignored file changed since `mark` (nor did the witness, when given, name one: see `quiet`). */
  ignoredSame(mark: number | null, exclude: string | null, witness?: WitnessLog | null): boolean {
    const changes = this.steady(mark, exclude);
    if (changes === null || changes.trees.size > 0) return false;
    const tracked = (p: string): boolean => this.pathsOf(this.index, (m) => m.entries.map((e) => e.path))?.has(p) === true;
    for (const p of changes.paths) if (!tracked(p)) return false;
    return quiet(witness, tracked);
  }

  /**
   * Keeps the index a command measures against, made (or reused) after mark `mark`. `watchAll`: no ignored snapshot
   * will say which folders no walk enters (the coverage is off), so every folder is watched.
   */
  rememberIndex(manifest: Manifest, mark: number | null, exclude: string | null, watchAll: boolean): void {
    const same = this.index?.value.id === manifest.id && this.index.value.entries === manifest.entries;
    this.index = mark === null ? null : { value: manifest, key: '', mark, exclude, paths: same ? (this.index?.paths ?? null) : null };
    if (watchAll) this.arm([]);
    this.forgetOld();
  }

  /** Keeps the ignored snapshot made (or reused) after mark `mark`; its rebuildable folders are not watched (no walk enters them). */
  rememberIgnored(snapshot: IgnoredSnapshot, mark: number | null, exclude: string | null, trackedDirs: readonly string[], key: string): void {
    this.ignored = mark === null ? null : { value: snapshot, key, mark, exclude, paths: this.ignored?.value === snapshot ? (this.ignored.paths ?? null) : null };
    const tracked = new Set(trackedDirs);
    this.arm(snapshot.rebuildable.map((r) => r.path).filter((p) => !tracked.has(p)));
    this.forgetOld();
  }

  stop(): void {
    this.watch.stop();
    this.armed = false;
  }

  /**
   * Starts watching (or changes what is not watched): after the first walk, which knows which folders no walk enters.
   * A change of that list starts a new helper, whose first answer starts the knowledge again.
   */
  private arm(skip: readonly string[]): void {
    this.watch.reskip(skip);
    this.watch.begin();
    this.armed = true;
  }

  /** The changes since `mark` when the rules stayed as they were (no rule file changed, the same exclude); null otherwise. */
  private steady(mark: number | null, exclude: string | null): WatchChanges | null {
    const changes = this.watch.changesSince(mark);
    if (changes === null) return null;
    for (const memo of [this.index, this.ignored]) if (memo !== null && memo.exclude !== exclude) return null;
    for (const p of changes.paths) if (isRuleFile(p)) return null;
    for (const t of changes.trees) if (isRuleFile(t)) return null;
    return changes;
  }

  private pathsOf<T>(memo: Memo<T> | null, list: (value: T) => string[]): Set<string> | null {
    if (memo === null) return null;
    memo.paths ??= new Set(list(memo.value));
    return memo.paths;
  }

  /** Events at or before the oldest mark still kept are asked about no more. */
  private forgetOld(): void {
    const marks = [this.index?.mark, this.ignored?.mark, ...this.held].filter((m): m is number => m !== undefined);
    if (marks.length > 0) this.watch.forget(leastOf(marks));
  }
}

/**
 * The names bubblewrap itself gives without a folder while it sets the sandbox up (it runs under the witness too):
 * its new root and where the old one goes, inside its own temporary folder.
 */
const SANDBOX_SETUP: ReadonlySet<string> = new Set(['newroot', 'oldroot']);

/**
 * Whether the write witness's log (undefined: none was asked for, a library caller's own command) leaves one side as
 * the events say: every path it names is on the other side (`otherSide`), every name it gives without a folder is
 * bubblewrap's own setup, and nothing was renamed under it. It sees what inotify cannot: a write through a shared
 * mapping opened earlier, or through a hard link whose other name is where no watch looks. A guarded command that ran
 * without the witness (null), or whose log is incomplete (io_uring), is walked: nothing else sees those writes.
 */
function quiet(witness: WitnessLog | null | undefined, otherSide: (p: string) => boolean): boolean {
  if (witness === undefined) return true;
  if (witness === null || witness.complete === false || witness.trees.size > 0) return false;
  for (const tail of witness.tails) if (!SANDBOX_SETUP.has(tail)) return false;
  for (const p of witness.paths) if (!otherSide(p)) return false;
  return true;
}

/** A file whose change changes which paths are ignored (the walk reads every `.gitignore`). */
function isRuleFile(p: string): boolean {
  return p === '.gitignore' || p.endsWith('/.gitignore');
}
