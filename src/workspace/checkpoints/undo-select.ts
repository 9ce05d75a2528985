/**
 * Which changes an undo or redo takes, chosen by what a person names: a
 * client session (`--session <id>`, `--session last`), a step to go back to
 * (`--to <step>`: that step and every later one), or — by default — the
 * newest change. The selection is decided here, over the history's own list
 * (changes.ts); the history (history.ts) undoes what was selected as ONE
 * step, and `redo` mirrors it. `groupSteps` is the same grouping for
 * `undo --list`: steps by client session (or run), newest first.
 *
 * Pure: it decides from values and never writes. A name it cannot find is a
 * coded refusal whose hint says how to see the names (`undo --list`).
 */
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { Change } from './changes.js';
import type { StepResult, StepView, UndoHistory, UndoOptions } from './history.js';

/** What a person asks to undo (or redo). */
export type UndoSelection = { kind: 'newest' } | { kind: 'session'; session: string } | { kind: 'to'; step: string };

/** `--session last`: the latest session with a step to undo (or to redo). */
const LAST_SESSION = 'last';

function listHint(verb: 'undo' | 'redo'): string {
  return `See the steps and their sessions with \`editwarden undo --list\` (the session id is the client's; \`--session last\` takes the latest), then \`editwarden ${verb} --session <id>\` or \`editwarden ${verb} --to <step>\`.`;
}

/** A step named by its key (`command:20261129-…`), by the part after the colon (the id `undo --list` shows), or by one of its checkpoints. */
export function stepMatches(change: Pick<Change, 'key'> & Partial<Pick<Change, 'checkpoints'>>, step: string): boolean {
  // Or one of its checkpoints: the id the event log and the report name a step by (a transaction's key is its tx id).
  return change.key === step || change.key.slice(change.key.indexOf(':') + 1) === step || (change.checkpoints?.includes(step) ?? false);
}

/** The session `--session` names among `newestFirst`: `last` is the newest change's that has one. */
function resolveSession(newestFirst: readonly Change[], session: string, verb: 'undo' | 'redo'): string {
  if (session !== LAST_SESSION) {
    if (newestFirst.some((c) => c.session === session)) return session;
    throw new EditwardenError({ code: ErrorCode.NOT_FOUND, message: `No step of session ${JSON.stringify(session)} is recorded${verb === 'redo' ? ' as undone' : ' to undo'}.`, hint: listHint(verb) });
  }
  const newest = newestFirst.find((c) => c.session !== undefined);
  if (newest?.session !== undefined) return newest.session;
  throw new EditwardenError({ code: ErrorCode.NOT_FOUND, message: `No client session has a step to ${verb}.`, hint: listHint(verb) });
}

/**
 * The changes an undo of `selection` takes, newest first, from `changes` (oldest first) less those in `undone`.
 * Empty when there is nothing left to undo (a session already undone).
 */
export function selectUndo(changes: readonly Change[], undone: ReadonlySet<string>, selection: UndoSelection): Change[] {
  const open = [...changes].reverse().filter((c) => !undone.has(c.key));
  switch (selection.kind) {
    case 'newest':
      return open.slice(0, 1);
    case 'session': {
      const session = resolveSession(open, selection.session, 'undo');
      return open.filter((c) => c.session === session);
    }
    case 'to': {
      const at = open.findIndex((c) => stepMatches(c, selection.step));
      if (at !== -1) return open.slice(0, at + 1);
      const known = changes.some((c) => stepMatches(c, selection.step));
      throw new EditwardenError({
        code: ErrorCode.NOT_FOUND,
        message: known ? `Step ${selection.step} is undone already: there is nothing to undo back to it.` : `No step ${JSON.stringify(selection.step)} is recorded.`,
        hint: known ? 'Redo it with `editwarden redo --to <step>`, or see the history with `editwarden undo --list`.' : listHint('undo'),
      });
    }
    default: {
      const never: never = selection;
      throw new Error(`unknown selection ${String(never)}`);
    }
  }
}

/**
 * The change a redo of `selection` must reach (a key on the redo stack, which `redo` pops step by step until that
 * change is back); null for the newest step. `stack`: the redo stack, newest last; `changes`: every change, oldest first.
 */
export function selectRedo(changes: readonly Change[], stack: ReadonlyArray<{ change: string }>, selection: UndoSelection): string | null {
  const onStack = (key: string): boolean => stack.some((e) => e.change === key);
  switch (selection.kind) {
    case 'newest':
      return null;
    case 'session': {
      const undoneOnes = changes.filter((c) => onStack(c.key));
      const session = resolveSession([...undoneOnes].reverse(), selection.session, 'redo');
      // The deepest entry of the session on the stack: when it is back, every change of the session is.
      return stack.find((e) => undoneOnes.some((c) => c.key === e.change && c.session === session))?.change ?? null;
    }
    case 'to': {
      const found = changes.find((c) => stepMatches(c, selection.step) && onStack(c.key));
      if (found) return found.key;
      throw new EditwardenError({ code: ErrorCode.NOT_FOUND, message: `Step ${JSON.stringify(selection.step)} is not undone, so there is nothing to redo up to it.`, hint: listHint('redo') });
    }
    default: {
      const never: never = selection;
      throw new Error(`unknown selection ${String(never)}`);
    }
  }
}

/** Undoes what `selection` names as one step (the newest step by default); what the CLI, the MCP tool and the library call. */
export function undoSelected(history: UndoHistory, selection: UndoSelection, options: UndoOptions = {}): StepResult[] {
  if (selection.kind === 'newest') return [history.undo(options)].filter((r) => r.change !== null);
  return history.undoChanges((changes, undone) => selectUndo(changes, undone, selection), options);
}

/** Redoes what `selection` names (the last undo by default: every change it undid as one step). */
export function redoSelected(history: UndoHistory, selection: UndoSelection): StepResult[] {
  return history.redo(selection.kind === 'newest' ? undefined : (changes, stack) => selectRedo(changes, stack, selection));
}

/** Steps of one client session (or one run, or editwarden's own single steps), newest first. */
export interface StepGroup {
  /** Who made them: the client (claude, gemini, …) or `editwarden`. */
  by: string;
  /** The client's session id, where the steps came from one. */
  session?: string;
  /** The run, for editwarden's own commands of one run. */
  run?: string;
  steps: StepView[];
}

/** `undo --list`'s grouping: consecutive steps (newest first) of one session or run form a group. */
export function groupSteps(steps: readonly StepView[]): StepGroup[] {
  const out: StepGroup[] = [];
  for (const step of steps) {
    const last = out.at(-1);
    const same = last !== undefined && last.by === step.by && last.session === step.session && last.run === step.run && (step.session !== undefined || step.run !== undefined);
    if (same) last.steps.push(step);
    else out.push({ by: step.by, ...(step.session !== undefined ? { session: step.session } : {}), ...(step.run !== undefined ? { run: step.run } : {}), steps: [step] });
  }
  return out;
}
