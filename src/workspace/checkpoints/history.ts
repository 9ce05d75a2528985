/**
 * Undo and redo over the checkpoints: the "changes" of a root are the
 * transactions editwarden wrote (grouped by transaction), the native edits
 * a client hook checkpointed, and checkpoint restores a person ran. `undo`
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
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteFile } from '../atomic.js';
import { ensureStateDir } from '../lock.js';
import type { CheckpointService } from './service.js';
import type { CheckpointSummary } from './types.js';

export const UNDO_STATE_FILE = 'undo.json';
const ID = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

/** One undoable change: the checkpoints that hold the state before it, oldest first. */
export interface Change {
  key: string;
  kind: 'transaction' | 'hook' | 'restore';
  /** Human label: the transaction's reason, the hook's tool, the restored id. */
  label: string;
  checkpoints: string[];
  createdAt: string;
}

interface UndoState {
  format: 1;
  /** Keys of changes that are undone (and not redone). */
  undone: string[];
  /** Newest last: what `redo` restores next. */
  redo: Array<{ change: string; safety: string; label: string }>;
  /** Safety checkpoints made by undo/redo themselves: never changes of their own. */
  own: string[];
  /** Newest checkpoint id right after the last undo/redo: a change after it drops the redo stack. */
  at: string;
}

export interface StepResult {
  /** The change undone or redone; null when there was nothing to do. */
  change: { key: string; kind: Change['kind']; label: string; createdAt: string } | null;
  written: string[];
  removed: string[];
  /** The checkpoint that holds the state just before this step. */
  safety: string | null;
}

const EMPTY: UndoState = { format: 1, undone: [], redo: [], own: [], at: '' };

export class UndoHistory {
  private readonly file: string;

  constructor(private readonly service: CheckpointService) {
    this.file = path.join(service.ws.stateDir, UNDO_STATE_FILE);
  }

  /** Every change, oldest first, from the checkpoint store. */
  changes(): Change[] {
    return this.service.lock.with(() => changesOf(this.service.list(), new Set(this.read().own)));
  }

  /** Restores the state before the newest change not yet undone. */
  undo(): StepResult {
    return this.service.lock.with(() => {
      const state = this.fresh();
      const target = this.nextTarget(state);
      if (!target) {
        this.write(state);
        return { change: null, written: [], removed: [], safety: null };
      }
      return this.undoOne(state, target);
    });
  }

  /**
   * Undoes every change made since `sinceIso` (a run's start), newest first:
   * afterwards the files are as they were before it. Changes made after it
   * are undone too — restoring the run's files under them would lose them silently.
   */
  undoSince(sinceIso: string): StepResult[] {
    return this.service.lock.with(() => {
      const out: StepResult[] = [];
      for (;;) {
        const state = this.fresh();
        const target = this.nextTarget(state, sinceIso);
        if (!target) {
          this.write(state);
          return out;
        }
        out.push(this.undoOne(state, target));
      }
    });
  }

  /** Puts back what the last undo took away. */
  redo(): StepResult {
    return this.service.lock.with(() => {
      const state = this.fresh();
      const entry = state.redo.pop();
      if (!entry) return { change: null, written: [], removed: [], safety: null };
      const r = this.service.restore(entry.safety);
      if (r.safety) state.own.push(r.safety);
      state.undone = state.undone.filter((k) => k !== entry.change);
      this.write({ ...state, at: this.newestId() });
      const change = changesOf(this.service.list(), new Set(state.own)).find((c) => c.key === entry.change);
      return {
        change: { key: entry.change, kind: change?.kind ?? 'transaction', label: entry.label, createdAt: change?.createdAt ?? '' },
        written: r.written,
        removed: r.removed,
        safety: r.safety ?? null,
      };
    });
  }

  /**
   * The newest change not yet undone whose undo would change something. A
   * change whose before-state is already on disk (a transaction rolled back,
   * a native edit the client then declined or failed) is marked undone and
   * passed over: an undo that changes nothing would only confuse.
   */
  private nextTarget(state: UndoState, sinceIso = ''): Change | null {
    const all = changesOf(this.service.list(), new Set(state.own));
    const undone = new Set(state.undone);
    for (const c of [...all].reverse()) {
      if (undone.has(c.key)) continue;
      if (c.createdAt < sinceIso) return null;
      if (c.checkpoints.some((id) => this.service.diff(id, { patch: false }).length > 0)) return c;
      state.undone.push(c.key);
    }
    return null;
  }

  private undoOne(state: UndoState, target: Change): StepResult {
    const written = new Set<string>();
    const removed = new Set<string>();
    let first: string | null = null;
    // Newest first: the oldest checkpoint's record of a path is what stands at the end.
    for (const id of [...target.checkpoints].reverse()) {
      const r = this.service.restore(id);
      if (r.safety) {
        state.own.push(r.safety);
        first ??= r.safety;
      }
      for (const p of r.written) written.add(p);
      for (const p of r.removed) removed.add(p);
    }
    state.undone.push(target.key);
    if (first) state.redo.push({ change: target.key, safety: first, label: target.label });
    this.write({ ...state, at: this.newestId() });
    return { change: { key: target.key, kind: target.kind, label: target.label, createdAt: target.createdAt }, written: [...written].sort(), removed: [...removed].sort(), safety: first };
  }

  /** The state, with the redo stack dropped when a change was made after the last undo/redo. */
  private fresh(): UndoState {
    const state = this.read();
    if (state.redo.length === 0) return state;
    const own = new Set(state.own);
    const newer = changesOf(this.service.list(), own).some((c) => c.checkpoints.some((id) => id > state.at));
    return newer ? { ...state, redo: [] } : state;
  }

  private newestId(): string {
    const ids = this.service.manifests.ids();
    return ids[ids.length - 1]?.id ?? '';
  }

  private read(): UndoState {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return structuredClone(EMPTY);
    }
    // Attack: a hand-edited or agent-written undo.json steering a restore at a path outside the store. Only well-formed ids pass.
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw damaged(this.file);
    }
    if (!isUndoState(data)) throw damaged(this.file);
    return data;
  }

  private write(state: UndoState): void {
    ensureStateDir(this.service.ws.stateDir);
    atomicWriteFile(this.file, Buffer.from(`${JSON.stringify(state)}\n`), { mode: 0o644 });
  }
}

/**
 * The changes recorded in these checkpoints (oldest first): a transaction's
 * checkpoints form one change; a hook's checkpoint one; a restore's safety
 * checkpoint (unless undo/redo made it) one — undoing it undoes the restore.
 */
export function changesOf(summaries: readonly CheckpointSummary[], own: ReadonlySet<string>): Change[] {
  const byKey = new Map<string, Change>();
  for (const c of [...summaries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    let key: string;
    let kind: Change['kind'];
    let label: string;
    switch (c.origin.kind) {
      case 'transaction':
        key = `tx:${c.origin.tx}`;
        kind = 'transaction';
        label = c.reason || c.name;
        break;
      case 'hook':
        key = `hook:${c.id}`;
        kind = 'hook';
        label = c.reason || `${c.origin.client} ${c.origin.tool}`;
        break;
      case 'safety':
        if (own.has(c.id)) continue;
        key = `restore:${c.id}`;
        kind = 'restore';
        label = `restore of checkpoint ${c.origin.before}`;
        break;
      case 'manual':
        continue;
      default: {
        const never: never = c.origin;
        void never;
        continue;
      }
    }
    const existing = byKey.get(key);
    if (existing) existing.checkpoints.push(c.id);
    else byKey.set(key, { key, kind, label, checkpoints: [c.id], createdAt: c.createdAt });
  }
  return [...byKey.values()].sort((a, b) => ((a.checkpoints[0] as string) < (b.checkpoints[0] as string) ? -1 : 1));
}

function isUndoState(data: unknown): data is UndoState {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  const ids = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string' && ID.test(x));
  const keys = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string' && x.length < 200);
  return (
    d.format === 1 &&
    keys(d.undone) &&
    ids(d.own) &&
    typeof d.at === 'string' &&
    (d.at === '' || ID.test(d.at)) &&
    Array.isArray(d.redo) &&
    d.redo.every((e: unknown) => {
      const r = e as Record<string, unknown> | null;
      return r !== null && typeof r === 'object' && typeof r.change === 'string' && typeof r.label === 'string' && typeof r.safety === 'string' && ID.test(r.safety);
    })
  );
}

function damaged(file: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.IO,
    message: `${file} is not a valid undo history.`,
    hint: 'It was changed by hand or damaged. Delete it: the checkpoints stay, `editwarden checkpoint list` shows them and `checkpoint restore` still works.',
  });
}
