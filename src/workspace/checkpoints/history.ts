/**
 * Undo and redo over the checkpoints: the "changes" of a root are the
 * transactions editwarden wrote (grouped by transaction), the native edits
 * a client hook checkpointed AND its post hook confirmed (steps.ts), the
 * shell commands run through editwarden (one step per command, named by its
 * command line: steps.ts `recordCommandStep`), and checkpoint restores a
 * person ran. An undo that would overwrite a file changed since its step
 * (the step's after record says what the step left) is refused naming the
 * files, unless forced. `undo`
 * puts back the state before the newest change not yet undone (each of its
 * checkpoints restored, newest first, each restore journaled and preceded by
 * a safety checkpoint); `redo` restores that safety checkpoint. A change
 * made after an undo drops the redo stack, as in every editor.
 *
 * The little state it keeps (`.editwarden/undo.json`: which changes are
 * undone, the redo stack, the safety checkpoints it made itself) is
 * validated before use. Everything runs under the root lock, so a hook that
 * checkpoints a native edit cannot interleave with an undo. It never writes
 * a project file except through CheckpointService.restore.
 */
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { CheckpointService } from './service.js';
import { StepRecords } from './steps.js';
import { changesOf, type Change } from './changes.js';

export type { Change };
import type { CheckpointChange, Manifest } from './types.js';
import { defined } from '../../defined.js';
import { readUndoState, type RedoEntry, UNDO_STATE_FILE, type UndoState, writeUndoState } from './undo-state.js';
import { GIT_DIR } from '../../config/protected-set.js';

export interface StepResult {
  /** The change undone or redone; null when there was nothing to do. */
  change: { key: string; kind: Change['kind']; label: string; createdAt: string } | null;
  written: string[];
  removed: string[];
  /** Bytes of the files written. */
  bytes: number;
  /** The checkpoint that holds the state just before this step. */
  safety: string | null;
  /** A forced undo: the files it took although their change since could not be shown to be the step's, captured as the undo step `taken` (the next `undo` gives them back). */
  taken?: { step: string; paths: string[] };
}

export interface UndoOptions {
  /** Undo even when files were changed since the step (a person's later change is overwritten; redo puts it back). */
  force?: boolean;
}

/** One line of `undo --list`. */
export interface StepView {
  key: string;
  /** edit: editwarden's own write or a client's native edit; command: a shell command run through editwarden; restore: a checkpoint restore. */
  kind: 'edit' | 'command' | 'restore';
  /** Who made it: `editwarden`, or the client whose hook recorded it. */
  by: string;
  label: string;
  createdAt: string;
  /** The paths the step recorded (a workspace checkpoint of a transaction: every file, shown as ["(workspace)"]). */
  files: string[];
  undone: boolean;
  /** The run it belongs to, where known (commands). */
  run?: string;
  /** Ignored files (or rebuildable folders) the command changed whose old state was not kept: this step cannot bring them back (ignored.ts). */
  notKept?: Array<{ path: string; why: string }>;
  /** The client session it belongs to, where the client sent one (`undo --session <id>`). */
  session?: string;
}

/** What the next undo would do, without doing it. */
export interface UndoPreview {
  change: StepView | null;
  /** Per path: the change from the disk now to what the undo restores, with a unified diff for text. */
  changes: CheckpointChange[];
  /** Files changed since the step: the undo would refuse them without force. */
  changedSince: string[];
}

export class UndoHistory {
  private readonly file: string;
  readonly steps: StepRecords;

  constructor(private readonly service: CheckpointService) {
    this.file = path.join(service.ws.stateDir, UNDO_STATE_FILE);
    this.steps = new StepRecords(service);
  }

  /** Every change, oldest first, from the checkpoint store. */
  changes(): Change[] {
    return this.service.lock.with(() => this.all(this.read()));
  }

  /** Every step, newest first, with what it recorded and whether it is undone (what `undo --list` shows). */
  list(): StepView[] {
    return this.service.lock.with(() => {
      const state = this.read();
      const undone = new Set(state.undone);
      return this.all(state)
        .reverse()
        .map((c) => this.view(c, undone.has(c.key)));
    });
  }

  /** What the next `undo` would restore (a diff from the disk now to the state before the step); nothing is written. */
  preview(): UndoPreview {
    return this.service.lock.with(() => {
      const state = this.fresh();
      const target = this.nextTarget(state);
      if (!target) return { change: null, changes: [], changedSince: [] };
      const byPath = new Map<string, CheckpointChange>();
      // Oldest last wins, as in undoOne: the oldest checkpoint's record of a path is what stands at the end.
      for (const id of [...target.checkpoints].reverse()) {
        for (const c of this.service.diff(id, { reverse: true })) byPath.set(c.path, c);
        // Its refs (HEAD, a branch, the stash list, the index) put back too: named, without a patch.
        for (const p of this.service.refsDiff(id)) byPath.set(p, { path: p, change: 'modified' });
      }
      const changes = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { change: this.view(target, false), changes, changedSince: this.changedSince(target, new Set()) };
    });
  }

  /** Restores the state before the newest change not yet undone. */
  undo(options: UndoOptions = {}): StepResult {
    return this.service.lock.with(() => {
      const state = this.fresh();
      const target = this.nextTarget(state);
      if (!target) {
        this.write(state);
        return { change: null, written: [], removed: [], bytes: 0, safety: null };
      }
      const changed = this.changedSince(target, new Set());
      if (!options.force) refuseChanged(target, changed);
      return this.undoOne(state, target, changed);
    });
  }

  /**
   * Undoes every change made since `sinceIso` (a run's start), newest first:
   * afterwards the files are as they were before it. Changes made after it
   * are undone too — restoring the run's files under them would lose them silently.
   */
  undoSince(sinceIso: string, options: UndoOptions = {}): StepResult[] {
    return this.service.lock.with(() => {
      if (!options.force) this.checkSince(sinceIso);
      const out: StepResult[] = [];
      for (;;) {
        const state = this.fresh();
        const target = this.nextTarget(state, sinceIso);
        if (!target) {
          this.write(state);
          return out;
        }
        // Forced: what each step takes that is not its own is captured as a step of its own (undoOne).
        out.push(this.undoOne(state, target, options.force ? this.changedSince(target, new Set()) : []));
      }
    });
  }

  /**
   * Undoes the changes `choose` selects (from every change, oldest first, and the keys undone; newest first:
   * undo-select.ts) as ONE step, under the lock: every one is checked before anything is written (forced: what
   * each takes that is not its own is captured, as undoSince does), and one `redo` puts them all back. A change
   * that would change nothing by its turn (its before-state is on disk) is passed over.
   */
  undoChanges(choose: (changes: readonly Change[], undone: ReadonlySet<string>) => readonly Change[], options: UndoOptions = {}): StepResult[] {
    return this.service.lock.with(() => {
      const start = this.fresh();
      const targets = choose(this.all(start), new Set(start.undone));
      if (!options.force) this.checkBatch(targets);
      const group = targets.length > 1 ? targets[0]?.key : undefined;
      const out: StepResult[] = [];
      for (const target of targets) {
        const state = this.fresh();
        // Judged when its turn comes: a later change of the batch, undone first, may have made it matter again.
        if (target.checkpoints.some((id) => this.differs(id))) out.push(this.undoOne(state, target, options.force ? this.changedSince(target, new Set()) : [], group));
        else this.write({ ...state, undone: [...state.undone, target.key] });
      }
      return out;
    });
  }

  /**
   * Puts back what the last undo took away — every change of it, when it undid several as one step. With
   * `until` (choosing a change key on the redo stack, newest last), redoes step after step until that change is back.
   */
  redo(until?: (changes: readonly Change[], stack: ReadonlyArray<{ change: string }>) => string | null): StepResult[] {
    return this.service.lock.with(() => {
      const first = this.fresh();
      const target = until ? until(this.all(first), first.redo) : null;
      const out: StepResult[] = [];
      for (;;) {
        const state = this.fresh();
        const top = state.redo.at(-1);
        if (!top) return out;
        do out.push(this.redoOne(state));
        while (top.group !== undefined && state.redo.at(-1)?.group === top.group);
        if (target === null || !state.redo.some((e) => e.change === target)) return out;
      }
    });
  }

  /** The checkpoints `redo(until)` would restore, in order (nothing written): what a tool plans a redo by. */
  redoPlan(until?: (changes: readonly Change[], stack: ReadonlyArray<{ change: string }>) => string | null): string[] {
    return this.service.lock.with(() => {
      const state = this.fresh();
      const target = until ? until(this.all(state), state.redo) : null;
      const stack = [...state.redo];
      const out: string[] = [];
      for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
        do out.push((stack.pop() as RedoEntry).safety);
        while (top.group !== undefined && stack.at(-1)?.group === top.group);
        if (target === null || !stack.some((e) => e.change === target)) break;
      }
      return out;
    });
  }

  private redoOne(state: UndoState): StepResult {
    const entry = state.redo.pop() as RedoEntry;
    const undone = this.all(state).find((c) => c.key === entry.change);
    // Files changed since the undo (a person's edit): the redo overwrites them, so its capture is a step of its own.
    const changedSinceUndo = undone !== undefined && this.differsFromBefore(undone);
    const r = this.service.restore(entry.safety, { cause: 'redo', label: `redo of ${entry.label}` });
    if (r.safety && !changedSinceUndo) state.own.push(r.safety);
    state.undone = state.undone.filter((k) => k !== entry.change);
    this.write({ ...state, at: this.newestId() });
    const change = this.all(state).find((c) => c.key === entry.change);
    return {
      change: { key: entry.change, kind: change?.kind ?? 'transaction', label: entry.label, createdAt: change?.createdAt ?? '' },
      written: [...r.written, ...(r.git?.written ?? [])],
      removed: [...r.removed, ...(r.git?.removed ?? [])],
      bytes: r.bytes ?? 0,
      safety: r.safety ?? null,
    };
  }

  /**
   * The newest change not yet undone whose undo would change something. A
   * change whose before-state is already on disk (a transaction rolled back,
   * a native edit the client then declined or failed) is marked undone and
   * passed over: an undo that changes nothing would only confuse.
   */
  private nextTarget(state: UndoState, sinceIso = ''): Change | null {
    const all = this.all(state);
    const undone = new Set(state.undone);
    for (const c of [...all].reverse()) {
      if (undone.has(c.key)) continue;
      if (c.createdAt < sinceIso) return null;
      if (c.checkpoints.some((id) => this.differs(id))) return c;
      state.undone.push(c.key);
    }
    return null;
  }

  /**
   * Restores `target`'s checkpoints, newest first. `taken`: files a forced
   * undo overwrites although their change since cannot be shown to be the
   * step's (a person's edit): what stood there is cut from the undo's own
   * capture into an undo step of its own, so the very next `undo` gives
   * exactly those files back and leaves the step undone.
   */
  private undoOne(state: UndoState, target: Change, taken: readonly string[] = [], group?: string): StepResult {
    const written = new Set<string>();
    const removed = new Set<string>();
    const safeties: string[] = [];
    let bytes = 0;
    // Newest first: the oldest checkpoint's record of a path is what stands at the end.
    for (const id of [...target.checkpoints].reverse()) {
      const r = this.service.restore(id, { cause: 'undo', label: `undo of ${target.label}` });
      if (r.safety) {
        state.own.push(r.safety);
        safeties.push(r.safety);
      }
      bytes += r.bytes ?? 0;
      for (const p of [...r.written, ...(r.git?.written ?? [])]) written.add(p);
      for (const p of [...r.removed, ...(r.git?.removed ?? [])]) removed.add(p);
    }
    const first = safeties[0] ?? null;
    const takenStep = taken.length > 0 ? this.captureTaken(target, safeties, taken) : null;
    state.undone.push(target.key);
    if (first) state.redo.push({ change: target.key, safety: first, label: target.label, ...defined({ group }) });
    this.write({ ...state, at: this.newestId() });
    return {
      change: { key: target.key, kind: target.kind, label: target.label, createdAt: target.createdAt },
      written: [...written].sort(),
      removed: [...removed].sort(),
      bytes,
      safety: first,
      ...defined({ taken: takenStep ? { step: takenStep, paths: [...taken] } : undefined }),
    };
  }

  /** The undo step of what a forced undo took: `paths` as the undo's first capture of each recorded them (their blobs shared, nothing copied). */
  private captureTaken(target: Change, safeties: readonly string[], paths: readonly string[]): string | null {
    const wanted = new Set(paths);
    const entries = new Map<string, Manifest['entries'][number]>();
    const dirs = new Set<string>();
    const absentDirs = new Set<string>();
    for (const id of safeties) {
      const m = this.service.get(id);
      for (const e of m.entries) if (wanted.has(e.path) && !entries.has(e.path)) entries.set(e.path, e);
      for (const d of m.dirs) dirs.add(d);
      for (const d of m.absentDirs) absentDirs.add(d);
    }
    if (entries.size === 0) return null;
    const now = new Date();
    const shown = [...entries.keys()].sort();
    const manifest: Manifest = {
      format: 1,
      id: this.service.manifests.newId(now),
      name: `taken by the forced undo of ${target.label}`,
      reason: `what the forced undo of "${target.label}" overwrote although the step cannot be shown to have made it`,
      scope: 'files',
      origin: { kind: 'safety', before: target.checkpoints[0] as string, cause: 'forced-undo', label: `what the forced undo of "${target.label}" took: ${shown.join(', ')}` },
      createdAt: now.toISOString(),
      scanStartedMs: Date.now(),
      entries: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      dirs: [...dirs].filter((d) => shown.some((p) => p.startsWith(`${d}/`))).sort(),
      absentDirs: [...absentDirs].filter((d) => shown.some((p) => p.startsWith(`${d}/`))).sort(),
    };
    this.service.manifests.write(manifest);
    return manifest.id;
  }

  /** Whether restoring checkpoint `id` would change anything: a file, or the root repository's refs (a commit that changed no file). */
  private differs(id: string): boolean {
    return this.service.diff(id, { patch: false }).length > 0 || this.service.refsDiff(id).length > 0;
  }

  /** The state, with the redo stack dropped when a change was made after the last undo/redo. */
  private fresh(): UndoState {
    const state = this.read();
    if (state.redo.length === 0) return state;
    const newer = this.all(state).some((c) => c.checkpoints.some((id) => id > state.at));
    if (!newer) return state;
    // Nothing it held is lost: each dropped entry's capture (what that undo overwrote) becomes a step, as Emacs keeps an undo.
    const kept = new Set(state.redo.map((e) => e.safety));
    return { ...state, redo: [], own: state.own.filter((id) => !kept.has(id)) };
  }

  /** Whether the disk differs from the state before `change` (what its undo left): each path judged by the oldest checkpoint that records it. */
  private differsFromBefore(change: Change): boolean {
    const decided = new Set<string>();
    for (const id of change.checkpoints) {
      const m = this.service.get(id);
      const changed = new Set(this.service.diff(id, { patch: false }).map((c) => c.path));
      for (const e of m.entries) {
        if (decided.has(e.path)) continue;
        decided.add(e.path);
        if (changed.has(e.path)) return true;
      }
      if (m.scope === 'workspace') for (const p of changed) if (!decided.has(p)) return true;
    }
    return false;
  }

  /** The changes, oldest first: a client hook's checkpoint counts only once its post hook confirmed the edit. */
  private all(state: UndoState): Change[] {
    return changesOf(this.service.list(), new Set(state.own), this.steps.ids());
  }

  /**
   * Paths of `target` that differ from what it left (its after records),
   * except `resetBy`: paths a later step of the same batch restores first,
   * so they will be back as this step left them.
   */
  private changedSince(target: Change, resetBy: ReadonlySet<string>): string[] {
    const out = new Set<string>();
    for (const id of target.checkpoints) for (const c of this.steps.changedSince(id)) if (!resetBy.has(c.path)) out.add(c.path);
    return [...out].sort();
  }

  /** Before `undo --run`: every step it would undo, newest first, checked against what the steps after it in the batch put back. */
  private checkSince(sinceIso: string): void {
    const state = this.fresh();
    const undone = new Set(state.undone);
    const open = [...this.all(state)].reverse().filter((c) => !undone.has(c.key));
    const end = open.findIndex((c) => c.createdAt < sinceIso);
    this.checkBatch(end === -1 ? open : open.slice(0, end));
  }

  /** Every change of a batch (newest first) checked before any is undone, against what the changes after it in the batch put back. */
  private checkBatch(targets: readonly Change[]): void {
    const later = new Set<string>();
    for (const c of targets) {
      refuseChanged(c, this.changedSince(c, later));
      for (const id of c.checkpoints) for (const p of this.pathsOf(id)) later.add(p);
    }
  }

  private pathsOf(id: string): string[] {
    try {
      const m = this.service.get(id);
      return m.entries.map((e) => e.path);
    } catch {
      return [];
    }
  }

  private view(c: Change, undone: boolean): StepView {
    const files = new Set<string>();
    let run: string | undefined;
    let by = 'editwarden';
    const notKept: Array<{ path: string; why: string }> = [];
    for (const id of c.checkpoints) {
      let m: ReturnType<CheckpointService['get']>;
      try {
        m = this.service.get(id);
      } catch {
        continue;
      }
      if (m.origin.kind === 'command' && m.origin.run !== undefined) run = m.origin.run;
      if (m.origin.kind === 'command' && Array.isArray(m.origin.notKept)) for (const p of m.origin.notKept) notKept.push(p);
      // A client's native edit or its shell command run through editwarden is the client's, not editwarden's.
      if ((m.origin.kind === 'hook' || m.origin.kind === 'command') && m.origin.client !== undefined) by = m.origin.client;
      if (m.scope === 'workspace') files.add('(workspace)');
      else for (const e of m.entries) files.add(e.path);
      // The refs its command changed (a commit moves HEAD's branch, a stash the stash list), not every ref it holds.
      for (const p of m.git?.changed ?? []) files.add(`${GIT_DIR}/${p}`);
    }
    const kind = c.kind === 'command' ? 'command' : c.kind === 'restore' ? 'restore' : 'edit';
    return { key: c.key, kind, by, label: c.label, createdAt: c.createdAt, files: [...files].sort(), undone, ...defined({ run, session: c.session, notKept: notKept.length > 0 ? notKept : undefined }) };
  }

  private newestId(): string {
    const ids = this.service.manifests.ids();
    return ids[ids.length - 1]?.id ?? '';
  }

  private read(): UndoState {
    return readUndoState(this.file);
  }

  private write(state: UndoState): void {
    writeUndoState(this.service.ws.stateDir, this.file, state);
  }
}

/** Refuses an undo that would overwrite files changed since the step, naming them. */
function refuseChanged(target: Change, paths: string[]): void {
  if (paths.length === 0) return;
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ` and ${paths.length - 10} more` : '');
  throw new EditwardenError({
    code: ErrorCode.CHANGED_SINCE,
    message: `Undoing "${target.label}" would overwrite ${paths.length} file(s) changed since that step, or during it by a process that was not the step's: ${shown}.`,
    hint: 'Those changes were not made by that step (a person or another tool changed the files). See them with `editwarden undo --dry-run`; keep them and leave the step, or pass --force to undo anyway: what it overwrites is kept, and the next `editwarden undo` gives those files back.',
    ...defined({ path: paths.length === 1 ? (paths[0] as string) : undefined }),
  });
}
