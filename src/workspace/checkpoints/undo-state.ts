/**
 * The little state undo keeps (`.editwarden/undo.json`): which changes are
 * undone, the redo stack (entries undone as one step share a group), the
 * safety checkpoints undo/redo made themselves, and the newest checkpoint
 * at the last undo/redo. State an agent could have written: read without
 * following a link or waiting on a FIFO, and validated before use — only
 * well-formed checkpoint ids pass, so it can never steer a restore outside
 * the store.
 */
import { EditwardenError, ErrorCode } from '../../errors.js';
import { NotASmallFile, readSmallFile } from '../../small-file.js';
import { atomicWriteFile } from '../atomic.js';
import { ensureStateDir } from '../lock.js';

/** Largest undo.json read: a step list of a long-lived project is far smaller; past this it is treated as damaged. */
const MAX_UNDO_STATE_BYTES = 64 * 1024 * 1024;

export const UNDO_STATE_FILE = 'undo.json';
const ID = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

export interface UndoState {
  format: 1;
  /** Keys of changes that are undone (and not redone). */
  undone: string[];
  /** Newest last: what `redo` restores next. */
  redo: RedoEntry[];
  /** Safety checkpoints made by undo/redo themselves: never changes of their own. */
  own: string[];
  /** Newest checkpoint id right after the last undo/redo: a change after it drops the redo stack. */
  at: string;
}

/** One undone change on the redo stack; entries of one `group` were undone as one step (a session, back to a step) and are redone together. */
export interface RedoEntry {
  change: string;
  safety: string;
  label: string;
  group?: string;
}

const EMPTY: UndoState = { format: 1, undone: [], redo: [], own: [], at: '' };

/** The undo state in `file` (empty when there is none); a damaged one is refused, never read as empty. */
export function readUndoState(file: string): UndoState {
  let text: string;
  try {
    // Never through a link, never waiting on a FIFO put in its place (small-file.ts).
    text = readSmallFile(file, { maxBytes: MAX_UNDO_STATE_BYTES, follow: false }).toString('utf8');
  } catch (error) {
    if (error instanceof NotASmallFile || (error as NodeJS.ErrnoException).code === 'ELOOP') throw damaged(file);
    return structuredClone(EMPTY);
  }
  // Attack: a hand-edited or agent-written undo.json steering a restore at a path outside the store. Only well-formed ids pass.
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw damaged(file);
  }
  if (!isUndoState(data)) throw damaged(file);
  return data;
}

export function writeUndoState(stateDir: string, file: string, state: UndoState): void {
  ensureStateDir(stateDir);
  atomicWriteFile(file, Buffer.from(`${JSON.stringify(state)}\n`), { mode: 0o644 });
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
      return (
        r !== null &&
        typeof r === 'object' &&
        typeof r.change === 'string' &&
        typeof r.label === 'string' &&
        typeof r.safety === 'string' &&
        ID.test(r.safety) &&
        (r.group === undefined || (typeof r.group === 'string' && r.group.length < 200))
      );
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
