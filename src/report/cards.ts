/**
 * The report's facts, once, for both layouts: each event as a card (what
 * it is, when on the local clock, who, the facts in order, its diff or
 * output, how to undo back to it) and the header. markdown.ts and html.ts
 * only lay these out, so the two formats cannot say different things.
 *
 * Every string here is still raw text from the log: escaping is the
 * layouts' job (each for its own language), never done here.
 */
import type { EditwardenEvent } from '../runs/event-types.js';
import type { Clock } from './clock.js';
import { attemptOf, eventLine, isKnownKind, routeText, type EventLine, type ReportItem, type ReportScope } from './event-summary.js';
import { STATE_DIR } from '../config/protected-set.js';

/** A piece of a fact line: prose, or a literal (a path, a command, a code) shown as code. */
type Part = { text: string } | { code: string };

export interface Fact {
  label: string;
  parts: Part[];
}

/** The card's look: a closed set (a CSS class, a badge), never a string from the log. */
type Look = 'edit' | 'command' | 'failed' | 'attempt' | 'refusal' | 'violation' | 'undo' | 'info';

export interface Card {
  /** 1-based position in the timeline (its anchor). */
  n: number;
  /** The kind as logged (may be one this version does not know). */
  kind: string;
  look: Look;
  title: string;
  date: string;
  time: string;
  /** Who, without the report's own session or run id. */
  by: string;
  facts: Fact[];
  diff: string | null;
  /** The command's output, for one that failed or was stopped. */
  output: string | null;
  /** `editwarden undo --to <step>`: back to the state before this step. */
  undoTo: string | null;
  /** This step was taken back later: by which card. */
  undoneBy: number | null;
}

const code = (c: string): Part => ({ code: c });
const text = (t: string): Part => ({ text: t });
const codes = (list: readonly string[]): Part[] => list.flatMap((p, i) => (i === 0 ? [code(p)] : [text(', '), code(p)]));

function lookOf(line: EventLine): Look {
  switch (line.severity) {
    case 'change':
      return 'edit';
    case 'command':
      return 'command';
    case 'command-failed':
      return 'failed';
    case 'attempt':
      return 'attempt';
    case 'refusal':
      return 'refusal';
    case 'violation':
      return 'violation';
    case 'undo':
      return 'undo';
    default:
      return 'info';
  }
}

function factsOf(event: EditwardenEvent): Fact[] {
  if (!isKnownKind(event.kind)) return Array.isArray(event.paths) && event.paths.length ? [{ label: 'Paths', parts: codes(event.paths) }] : [];
  switch (event.kind) {
    case 'edit':
      return [{ label: 'Changed', parts: [...codes(event.paths), text(` (+${event.added} −${event.removed}) by ${event.tool}`)] }];
    case 'refusal':
      return [{ label: 'Refused', parts: [code(event.code), text(` ${event.message}`)] }, { label: 'Hint', parts: [text(event.hint)] }, ...(event.paths.length ? [{ label: 'Paths', parts: codes(event.paths) }] : [])];
    case 'command': {
      const attempt = attemptOf(event);
      const exit = event.exit_code === null ? 'not run' : `exit code ${event.exit_code}`;
      const out: Fact[] = [{ label: 'Command', parts: [code(event.command)] }];
      if (attempt) out.push({ label: 'Stopped', parts: [text(attempt.why)] });
      out.push({ label: 'Result', parts: [text(exit), ...(event.code ? [text(' '), code(event.code), ...(event.message ? [text(` ${event.message}`)] : [])] : [])] });
      // A stopped attempt that changed nothing says why it was stopped, not "changed nothing".
      if (event.paths.length) out.push({ label: 'Changed', parts: [...codes(event.paths), text(` (+${event.changes.added} −${event.changes.removed})${event.reverted ? ', then put back' : ''}`)] });
      else if (!attempt) out.push({ label: 'Changed', parts: [text('nothing')] });
      if (event.artifacts) out.push({ label: 'Logs', parts: [code(event.artifacts)] });
      return out;
    }
    case 'network':
      return [
        { label: 'Refused', parts: [code(event.code), text(` ${event.message}`)] },
        { label: 'Command', parts: [code(event.command), text(` (${event.tool})`)] },
        ...(event.others ? [{ label: 'And', parts: [text(`${event.others.destinations} more destination(s), ${event.others.connections} connection(s) refused`)] }] : []),
      ];
    case 'violation':
      return [
        {
          label: 'Limit',
          parts: [
            code('E_CONSTRAINT'),
            text(` ${event.type}: `),
            code(event.constraint),
            text(` reached ${event.actual}, limit ${Array.isArray(event.limit) ? event.limit.join(', ') : event.limit}; ${event.prevented ? 'refused before anything was written' : 'it had already happened'}`),
          ],
        },
        { label: 'Message', parts: [text(event.message)] },
        { label: 'Hint', parts: [text(event.hint)] },
        ...(event.report ? [{ label: 'Report', parts: [code(event.report)] }] : []),
      ];
    case 'undo':
    case 'redo':
      return [
        { label: ACTION_WORD[event.action ?? event.kind], parts: [text(event.label)] },
        ...(event.written.length ? [{ label: 'Written', parts: codes(event.written) }] : []),
        ...(event.removed.length ? [{ label: 'Removed', parts: codes(event.removed) }] : []),
      ];
    case 'checkpoint':
      return [{ label: 'Checkpoint', parts: [text(event.label)] }];
    case 'run-end':
      return [{ label: 'Run ended', parts: [text(eventLine(event).text)] }];
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** What an undo event did, in a word (its `action`; older lines have only the kind). */
const ACTION_WORD: Record<NonNullable<Extract<EditwardenEvent, { kind: 'undo' | 'redo' }>['action']>, string> = {
  undo: 'Undid',
  redo: 'Redid',
  'put-back': 'Put back',
  restore: 'Restored',
  rollback: 'Rolled back',
  recovery: 'Recovered',
};

/** The steps a person can undo back to: changes with their own undo step (an undo's safety checkpoint is redo's, not a step). */
const isStep = (event: EditwardenEvent): boolean => (event.kind === 'edit' || event.kind === 'command') && event.checkpoint !== undefined && event.checkpoint !== '';

export function cardsOf(items: readonly ReportItem[], scope: ReportScope, clock: Clock): Card[] {
  const undoneBy = new Map<string, number>();
  items.forEach(({ event }, i) => {
    if (event.kind === 'undo') for (const id of event.undoes ?? []) undoneBy.set(id, i + 1);
    if (event.kind === 'redo') for (const id of event.undoes ?? []) undoneBy.delete(id);
  });
  return items.map(({ event, diff }, i) => {
    const line = eventLine(event, scope);
    const step = isStep(event) ? (event.checkpoint as string) : null;
    const facts = factsOf(event);
    // What the log kept of a long list, and where the whole of it is.
    const cut = event.cut?.paths;
    if (cut && cut.total > event.paths.length)
      facts.push({ label: 'Paths', parts: [text(`${cut.total} in all, the first ${event.paths.length} shown`), ...(cut.blob ? [text('; the whole list: '), code(`${STATE_DIR}/events-diffs/${cut.blob}.list`)] : [])] });
    if (event.indexed) facts.push({ label: 'Kept', parts: [text('in the index of a rotated log only (its diff and long lists are gone)')] });
    const blob = (event.kind === 'edit' || event.kind === 'command') && diff === null ? event.diff_blob : undefined;
    if (blob) facts.push({ label: 'Diff', parts: [text('its blob '), code(blob), text(' is missing')] });
    const output = event.kind === 'command' && event.output ? event.output : null;
    return {
      n: i + 1,
      kind: event.kind,
      look: lookOf(line),
      title: line.title,
      date: clock.date(event.time),
      time: clock.time(event.time),
      by: event.route ? routeText(event.route, scope) : '',
      facts,
      // jsdiff's "=====" rule above a file is no line of the change.
      diff: diff === null ? null : diff.replace(/^={20,}\n/gm, ''),
      output,
      undoTo: step ? `editwarden undo --to ${step}` : null,
      undoneBy: step ? (undoneBy.get(step) ?? null) : null,
    };
  });
}

/** What the report covers, in words. */
export function scopeWords(scope: ReportScope): string {
  return scope.kind === 'all' ? 'all events' : `${scope.kind} ${scope.id}`;
}
