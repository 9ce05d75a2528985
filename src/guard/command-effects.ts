/**
 * What a command changed on disk, so it can be charged to the run's limits
 * (the ADR counts only edits made by the file tools; `sed -i` in
 * execute_command would slip through). Before a command, a workspace
 * checkpoint is taken: its manifest is the fast index (size + mtime + ctime
 * + inode per file; unchanged files reuse the previous checkpoint's blobs
 * without being read) and its blobs hold the old bytes. After the command,
 * the checkpoint's diff names every file added, deleted or modified. The
 * checkpoint is kept as the base of the next command's index
 * (command-index.ts); the run-level checkpoint, if any, is what rollback uses.
 *
 * Measured against rules the command cannot change: "ignored" means ignored
 * by the .gitignore files and .git/info/exclude as they were BEFORE the
 * command (a command that writes `*` into .gitignore does not hide the files
 * it creates). Lines are counted from the real diff where one exists (text
 * up to 1 MiB), else by streaming both versions (line-count.ts): no size and
 * no NUL byte makes a change free. The protected set (`.git/`, the config
 * files, client settings: the workspace's Policy) is snapshotted too: any change a command makes to them is reported and put
 * back at once (governing.ts).
 *
 * Undo: when the command is named (`before(label, { command })`), what it
 * changed becomes one undo step named by its command line before the index
 * checkpoint is dropped: a files checkpoint of exactly the changed paths as
 * they were before it, sharing the index's blobs (steps.ts
 * `recordCommandStep`), and — when it committed, branched, tagged or
 * stashed — the root repository's ref files as they were (git-refs.ts).
 * Changes to the governing files are not in it: they were put back already.
 */
import fs from 'node:fs';
import path from 'node:path';
import { witnessed, type WitnessLog } from '../sandbox/witness.js';
import { commandSandbox } from '../sandbox/for-workspace.js';
import type { SandboxConfig } from '../sandbox/policy.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import { CommandIndex } from '../workspace/checkpoints/command-index.js';
import { diffIndex } from '../workspace/checkpoints/index-diff.js';
import { recordCommandStep, type CommandOrigin } from '../workspace/checkpoints/steps.js';
import type { CheckpointChange, Manifest, RestoreResult } from '../workspace/checkpoints/types.js';
import { readExcludeFile } from '../workspace/checkpoints/walk.js';
import { changedRefFiles, readRefFiles, type RefFiles } from '../workspace/checkpoints/git-refs.js';
import type { IgnoredSnapshot, NotKept } from '../workspace/checkpoints/ignored.js';
import { manifestIgnoreSource } from '../workspace/checkpoints/restore.js';
import { governingChanges, revertGoverning, snapshotGoverning, type GoverningChange, type GoverningSnapshot } from '../workspace/governing.js';
import type { FileChange } from './constraints.js';
import { countChangedLines, type ByteSource } from './line-count.js';
import { defined } from '../defined.js';

export interface EffectsMark {
  checkpoint: string;
  /** .git/info/exclude as it was before the command. */
  exclude: string | null;
  governing: GoverningSnapshot;
  /** The index itself, kept in memory: reading its manifest back (a JSON of every file) cost as much as the walk. */
  index?: Manifest;
  /** The undo step to record after the command: its command line and run (absent: counted only, no step). */
  step?: Omit<CommandOrigin, 'kind'>;
  /** The lease on a reused index (command-index.ts), ended once the step is written. */
  lease?: string;
  /** When the mark was taken (ISO): the start of the command's run window. */
  startedAt?: string;
  /** The paths the sandbox binds read-only, as they stood before the command (given a config: `CommandEffects(checkpoints, config)`). */
  readOnly?: readonly string[];
  /** The ignored files as they were before the command (ignored.ts); absent when the coverage is off. */
  ignored?: IgnoredSnapshot;
  /** The root repository's ref files before the command (HEAD, refs, packed-refs, the index, the stash list): its commit, branch or stash joins its step. */
  refs?: RefFiles;
  /** A watched tree's marks taken before the index and the ignored snapshot (watched-tree.ts); null: it could not tell. */
  watch?: { index: number | null; ignored: number | null };
}

/** A witness log naming nothing: what the after-pass of the ignored files looks at when the watch saw none of them change. */
const NOTHING_WITNESSED: WitnessLog = { paths: new Set(), tails: new Set(), trees: new Set() };

export interface CommandEffectsResult {
  changes: FileChange[];
  /** Changes to `.git/` or a config file, already put back (see `reverted` of each). */
  governing: GoverningChange[];
  /** The undo step recorded for the command (null: it changed nothing, or it was not asked for). */
  step: string | null;
  /** Ignored files the command deleted or changed: `kept` are in the step (undo brings them back), `notKept` cannot be (over a cap, a rebuildable folder). */
  ignored: { kept: string[]; notKept: NotKept[] };
  /** The unified diff of what it changed, text files only (binary and large files: no patch, but in `changes`); '' when none. */
  diff: string;
  /** Changes to paths read-only inside the sandbox the command ran in (a person's `git gc --auto` writing `.git/gc.log.lock`): not its own, neither charged nor put back. */
  notOurs: string[];
  /** Paths of the step that changed during the command but that its processes cannot be shown to have written (a person's edit): an undo or put-back of the step leaves them unless forced. */
  unshown: string[];
}

export class CommandEffects {
  /** What a command may not change: the project's protected set, as its Policy lists it (one value, computed when the project was opened). */
  private readonly governed: readonly string[];

  /** `config`: the run's, so a mark records the sandbox's read-only paths before the command (commandSeen). */
  constructor(
    private readonly checkpoints: CheckpointService,
    private readonly config?: { sandbox?: SandboxConfig },
  ) {
    const policy = checkpoints.ws.policy;
    this.governed = [...policy.governedPaths(), ...policy.outsideConfigFiles];
  }

  /**
   * Takes the index before a command; with `step`, `after` records what the command changed as one undo step.
   * `seenElsewhere`: whoever runs the command reports its sandbox's read-only paths itself (a sink's `CommandSeen`),
   * so the mark does not work them out (a sandbox policy costs a few milliseconds per command).
   */
  before(label: string, step?: Omit<CommandOrigin, 'kind'>, seenElsewhere = false): EffectsMark {
    const root = this.checkpoints.ws.root;
    // The rules first: what the command finds is what it may not change.
    const exclude = readExcludeFile(root);
    // Nested repositories' .git are looked for now and again after the command (one it creates is removed).
    const policy = this.checkpoints.ws.policy;
    policy.lendNestedGitDirs(null);
    const governing = snapshotGoverning(root, this.governed, () => policy.nestedGitDirs());
    const { manifest, lease, mark: indexMark } = new CommandIndex(this.checkpoints).take(label, exclude);
    // The ignored files git cannot bring back: stored (those changed since the last command) before the command runs.
    const coverage = this.checkpoints.ignored;
    const tree = this.checkpoints.tree;
    let ignored: IgnoredSnapshot | undefined;
    let ignoredMark: number | null = null;
    try {
      ignored = coverage
        ? this.checkpoints.lock.with(() => {
            // A watched tree: the last snapshot when no covered ignored file changed since it (watched-tree.ts). The
            // index's mark serves it too (one round trip to the watch's helper less per command): a change after that
            // mark counts as after it, and the after-pass looks at it, as at any change made before the command started.
            ignoredMark = indexMark ?? tree?.look() ?? null;
            const snapshot = (tree && ignoredMark !== null ? tree.ignoredStill(exclude, coverage.key) : null) ?? coverage.before(exclude);
            tree?.rememberIgnored(snapshot, ignoredMark, exclude, manifest.dirs, coverage.key);
            return snapshot;
          })
        : undefined;
    } catch (error) {
      if (lease) new CommandIndex(this.checkpoints).endLease(lease);
      throw error;
    }
    const watch = tree ? { index: indexMark, ignored: ignoredMark } : undefined;
    tree?.hold(indexMark);
    tree?.hold(ignoredMark);
    // The search just made serves the command's sandbox too (its read-only binds): not searched again before it starts.
    policy.lendNestedGitDirs(governing.nestedAtStart);
    let readOnly: string[] | undefined;
    let refs: RefFiles | undefined;
    try {
      // Before the command: a member it creates is not bound read-only, so it stays the command's (charged, removed).
      readOnly = this.config && !seenElsewhere ? commandSandbox(this.checkpoints.ws, this.config).readOnly : undefined;
      // That took the lent search: the tool's own sandbox, worked out next, takes it again.
      if (readOnly !== undefined) policy.lendNestedGitDirs(governing.nestedAtStart);
      refs = step ? (readRefFiles(this.checkpoints.ws.resolver) ?? undefined) : undefined;
    } catch (error) {
      policy.lendNestedGitDirs(null);
      throw error;
    }
    return { checkpoint: manifest.id, exclude, governing, index: manifest, startedAt: new Date().toISOString(), ...defined({ step, lease: lease ?? undefined, ignored, readOnly, refs, watch }) };
  }

  /** The command's effects; with a `step` given to `before`, what it changed is recorded as one undo step (`step` in the result). */
  after(mark: EffectsMark, seen: CommandSeen = {}): CommandEffectsResult {
    try {
      return this.measure(mark, seen);
    } finally {
      this.checkpoints.ws.policy.lendNestedGitDirs(null);
      // The step (if any) names the index's blobs now: the index may be removed by the next release.
      if (mark.lease) new CommandIndex(this.checkpoints).endLease(mark.lease);
      this.checkpoints.tree?.release(mark.watch?.index ?? null);
      this.checkpoints.tree?.release(mark.watch?.ignored ?? null);
    }
  }

  /**
   * Puts back what the command can be shown to have changed (its step, less
   * `unshown`), through the one restore primitive: what it overwrites is
   * captured first and is an undo step (`editwarden undo` right after brings
   * the command's files back, byte-exact, a person's write during the
   * command with them). The command's own step stays, under it. Null when
   * there is nothing of the command's to put back.
   */
  putBack(found: CommandEffectsResult, label: string): RestoreResult | null {
    if (!found.step) return null;
    const left = new Set(found.unshown);
    const only = new Set(
      this.checkpoints
        .get(found.step)
        .entries.map((e) => e.path)
        .filter((p) => !left.has(p)),
    );
    if (only.size === 0) return null;
    return this.checkpoints.restore(found.step, { cause: 'put-back', label, only });
  }

  private measure(mark: EffectsMark, seen: CommandSeen): CommandEffectsResult {
    const root = realOr(this.checkpoints.ws.root);
    // A path read-only inside the sandbox the command ran in cannot have been changed by it (a person's git, another tool).
    const readOnly = (seen.readOnly ?? []).map((p) => realOr(p));
    const notTheCommands = (key: string): boolean => {
      const abs = path.isAbsolute(key) ? key : path.join(root, ...key.split('/'));
      return readOnly.some((r) => abs === r || abs.startsWith(`${r}${path.sep}`));
    };
    const found = governingChanges(mark.governing);
    const notOurs = found.filter((c) => notTheCommands(c.path)).map((c) => c.path);
    // Undo changes to what governs the run before anything else reads it — the command's own, never a person's.
    const governing = revertGoverning(
      mark.governing,
      found.filter((c) => !notTheCommands(c.path)),
    );
    const governed = new Set(governing.map((g) => g.path));
    const manifest = mark.index ?? this.checkpoints.get(mark.checkpoint);
    // A watched tree in which nothing tracked changed since the index: nothing to diff (watched-tree.ts).
    const tree = this.checkpoints.tree;
    const known = tree && mark.watch && tree.look() !== null ? { tracked: tree.trackedSame(mark.watch.index, mark.exclude, seen.witness), ignored: tree.ignoredSame(mark.watch.ignored, mark.exclude, seen.witness) } : null;
    tree?.noteDiff(known?.tracked === true);
    // One walk: files whose stat is unchanged are passed by it, the rest diffed exactly (index-diff.ts).
    const diff = known?.tracked ? [] : diffIndex(this.checkpoints.ws.resolver, manifest, this.checkpoints.blobs, { only: 'checkpoint', exclude: mark.exclude });
    for (const c of diff) if (notTheCommands(c.path)) notOurs.push(c.path);
    const kept = diff.filter((c) => !governed.has(c.path) && !notTheCommands(c.path));
    // Whose each change is: the witness's log, or else the times (a file last changed after the command ended is not its).
    const unshown = sameInodes(
      root,
      manifest,
      seen,
      kept.filter((c) => !shownToBeTheCommands(root, c, seen)).map((c) => c.path),
    );
    const notShown = new Set(unshown);
    // The command is charged only for what it can be shown to have done.
    // One index of the manifest for all changes (made per change, a 10,000-file command cost seconds per thousand files).
    const sides = sidesOf(this.checkpoints, manifest);
    const changes = kept.filter((c) => !notShown.has(c.path)).map((c) => toFileChange(c, sides));
    // The ignored files, measured with the rules as they were before the command, as the tracked files are (ignored.ts).
    // No covered ignored file changed (a watched tree, the witness naming none): nothing to look at.
    const witness = known?.ignored ? NOTHING_WITNESSED : (seen.witness ?? null);
    const measured =
      mark.ignored && this.checkpoints.ignored ? this.checkpoints.ignored.after(mark.ignored, witness === null ? [manifestIgnoreSource(manifest, this.checkpoints.blobs)] : [], mark.exclude, witness) : { entries: [], notKept: [] };
    // The protected set (a client's ignored settings file) is put back above and is never a step's to restore.
    const policy = this.checkpoints.ws.policy;
    const ignored = { entries: measured.entries.filter((e) => !governed.has(e.path) && !notTheCommands(e.path) && policy.protectedBy(e.path) === null), notKept: measured.notKept };
    for (const e of ignored.entries) if (!shownToBeTheCommands(root, { path: e.path, change: 'modified', ...(existsAt(root, e.path) ? { after: { type: 'file', size: 0, mode: 0 } } : {}) }, seen)) unshown.push(e.path);
    // Its commit, branch, tag or stash: the ref files it changed make the step hold them all as they were (git-refs.ts).
    const refsAfter = mark.refs ? readRefFiles(this.checkpoints.ws.resolver) : null;
    const refsChanged = mark.refs && refsAfter ? changedRefFiles(mark.refs, refsAfter) : [];
    const refs = mark.refs && refsAfter && refsChanged.length > 0 ? { before: mark.refs, after: refsAfter, changed: refsChanged } : null;
    // Before the index is dropped: the step shares its blobs, so the collector keeps them.
    const step = mark.step
      ? recordCommandStep(
          this.checkpoints,
          manifest,
          kept.map((c) => c.path),
          {
            kind: 'command',
            ...mark.step,
            ...defined({
              unshown: unshown.length > 0 ? unshown : undefined,
              window: seen.window,
              witness: seen.witness === undefined ? undefined : seen.witness === null ? 'none' : 'strace',
              notKept: ignored.notKept.length > 0 ? ignored.notKept : undefined,
            }),
          },
          ignored.entries,
          refs,
        )
      : null;
    try {
      // Kept as the next command's base (command-index.ts): dropping it would make every command re-read and re-copy the tree.
      new CommandIndex(this.checkpoints).release(mark.checkpoint);
    } catch {
      // Keeping one checkpoint too many is harmless; losing the count is not.
    }
    return {
      changes,
      governing,
      step: step?.id ?? null,
      diff: kept
        .filter((c) => !notShown.has(c.path))
        .map((c) => withoutRule(c.patch ?? ''))
        .join(''),
      unshown,
      notOurs,
      ignored: { kept: ignored.entries.map((e) => e.path), notKept: ignored.notKept },
    };
  }
}

/** What is known of the command's run: where it could not write, what it was seen writing, when it ran. */
export interface CommandSeen {
  /** Absolute paths bound read-only inside the sandbox the command ran in (none when it ran without one). */
  readOnly?: readonly string[];
  /** The write witness's log (sandbox/witness.ts); null: it ran without one; absent: not asked. */
  witness?: WitnessLog | null;
  /** When the command's processes ran (ISO times). */
  window?: { start: string; end: string };
}

/**
 * Whether a change can be shown to be the command's: with a witness, its
 * processes named the path; without one, any change in the window counts as
 * its own (it cannot be told apart) unless the file's inode was last changed
 * (ctime) after the command had ended.
 */
function shownToBeTheCommands(root: string, change: CheckpointChange, seen: CommandSeen): boolean {
  if (seen.witness) return witnessed(seen.witness, change.path);
  if (seen.window === undefined || change.after === undefined) return true;
  try {
    const st = fs.lstatSync(path.join(root, ...change.path.split('/')));
    // The ctime alone: a process can set a file's mtime ahead (`touch -d`), never its ctime.
    return st.ctimeMs <= Date.parse(seen.window.end);
  } catch {
    return true;
  }
}

/** Whether anything is at a root-relative path now (a report of whose change it is only: nothing is read through it). */
function existsAt(root: string, rel: string): boolean {
  try {
    fs.lstatSync(path.join(root, ...rel.split('/')));
    return true;
  } catch {
    return false;
  }
}

/**
 * Of the paths not shown to be the command's, those it may have written
 * through another name of the same file (a hard link): a file with more
 * than one name now, or whose inode (before the command, from the index,
 * or now) is one a credited path had. Attack: `ln a.txt x; echo evil > x;
 * rm x` writes a.txt with no call naming it. Returns the paths still not shown.
 */
function sameInodes(root: string, index: Manifest, seen: CommandSeen, unshown: readonly string[]): string[] {
  const witness = seen.witness;
  if (!witness || unshown.length === 0) return [...unshown];
  const before = new Map<string, number>();
  for (const e of index.entries) if (e.type === 'file') before.set(e.path, e.ino);
  const inodes = new Set<number>();
  for (const p of witness.paths) {
    const then = before.get(p);
    if (then !== undefined) inodes.add(then);
    const now = lstatOrNull(path.join(root, ...p.split('/')));
    if (now?.isFile()) inodes.add(now.ino);
  }
  return unshown.filter((p) => {
    const now = lstatOrNull(path.join(root, ...p.split('/')));
    if (now?.isFile() && (now.nlink > 1 || inodes.has(now.ino))) return false;
    const then = before.get(p);
    return then === undefined || !inodes.has(then);
  });
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** A patch without the "=====" rule jsdiff puts above each file (a diff of many files reads as one). */
export const withoutRule = (patch: string): string => patch.replace(/^=+\n/, '');

/**
 * What a runner knows of a command tool's run from its result: what the sink that ran it saw (`seen`: the guarded
 * shell's write witness, its window, the read-only paths of the sandbox it ran in), else from execute_command's
 * `data.sandbox` — when it ran in a sandbox, that sandbox's read-only paths, and — the call not abandoned, so its
 * processes are gone with the sandbox's pid namespace — its run window. No witness: that route does not run one yet.
 */
export function commandSeen(result: { data?: unknown; seen?: CommandSeen } | undefined, mark: EffectsMark): CommandSeen {
  if (result?.seen) return result.seen;
  const data = result?.data;
  const kind = typeof data === 'object' && data !== null ? (data as { sandbox?: unknown }).sandbox : undefined;
  if (typeof kind !== 'string' || kind === 'none') return {};
  const window = mark.startedAt !== undefined ? { start: mark.startedAt, end: new Date().toISOString() } : undefined;
  return defined({ readOnly: mark.readOnly, window });
}

/** The undo step of a command tool's call: named by its command line (the `command` argument every command tool takes). */
export function commandStep(args: unknown, run: string): Omit<CommandOrigin, 'kind'> {
  const command = typeof args === 'object' && args !== null && typeof (args as { command?: unknown }).command === 'string' ? (args as { command: string }).command : 'a command';
  return { command, run };
}

/** Where the old and new bytes of a changed path are: the checkpoint's blob (or inline bytes) and the file on disk. */
export type ChangeSides = (change: CheckpointChange) => { before: ByteSource | null; after: ByteSource | null };

export function sidesOf(service: CheckpointService, manifest: Manifest): ChangeSides {
  // Made at the first change asked about: a command that changed nothing pays nothing for the tree's size.
  let entries: Map<string, Manifest['entries'][number]> | null = null;
  return (change) => {
    entries ??= new Map(manifest.entries.map((e) => [e.path, e]));
    const entry = entries.get(change.path);
    let before: ByteSource | null = null;
    if (entry?.type === 'file') {
      before = entry.inline !== undefined ? { kind: 'bytes', bytes: Buffer.from(entry.inline, 'base64') } : { kind: 'file', path: service.blobs.pathOf(entry.blob) };
    }
    const after: ByteSource | null = change.after?.type === 'file' ? { kind: 'file', path: path.join(service.ws.root, ...change.path.split('/')) } : null;
    return { before, after };
  };
}

/**
 * One changed path as the limits see it. Lines from the unified diff when
 * there is one; otherwise (large or binary files) streamed from both sides,
 * so every content change costs at least one line.
 */
export function toFileChange(change: CheckpointChange, sides?: ChangeSides): FileChange {
  if (change.patch) return { path: change.path, ...countPatchLines(change.patch) };
  const content = change.before?.type === 'file' || change.after?.type === 'file';
  if (!sides || !content || change.change === 'mode') return { path: change.path, added: 0, removed: 0 };
  try {
    const { before, after } = sides(change);
    return { path: change.path, ...countChangedLines(before, after) };
  } catch {
    // The file vanished between the scan and the count: it still changed.
    return { path: change.path, added: 1, removed: 1 };
  }
}

/** Lines added and removed in a unified diff (headers excluded). */
export function countPatchLines(patch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}
