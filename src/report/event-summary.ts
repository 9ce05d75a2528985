/**
 * What a person reads first about a stretch of the event log: how it ended,
 * the files and lines changed against the configured limits, tokens and
 * time, how many events of each kind — and, for the timeline, one short line
 * per event. Pure: events in, values and text out; the CLI adds colour, the
 * Markdown and HTML reports lay it out.
 */
import type { EditwardenEvent, EventKind, EventRoute } from '../runs/event-types.js';

/** An event with its diff read back (inline or from its blob); null when it has none. */
export interface ReportItem {
  event: EditwardenEvent;
  diff: string | null;
}

/** The limits the report measures against (the root's configured constraints). */
export interface ReportLimits {
  max_files: number;
  max_lines_changed: number;
  max_tokens: number;
  timeout_seconds: number;
}

export interface ReportInput {
  /** What the report covers, in words: "run 2026…", "session abc", "all events". */
  scope: string;
  root: string;
  items: ReportItem[];
  limits: ReportLimits;
  /** When the report was made (ISO); given, so the output is a pure function of its input. */
  generatedAt: string;
}

export interface Usage {
  used: number;
  limit: number | null;
}

export interface ReportSummary {
  /** ok | refused | violation | failed: the worst thing that happened. */
  outcome: 'ok' | 'refused' | 'violation' | 'failed';
  /** One sentence: how it ended. */
  outcomeText: string;
  files: Usage;
  lines: Usage;
  tokens: Usage;
  seconds: Usage;
  counts: Record<EventKind, number>;
  first: string | null;
  last: string | null;
  runs: string[];
  sessions: string[];
}

const zeroCounts = (): Record<EventKind, number> => ({ edit: 0, refusal: 0, command: 0, violation: 0, checkpoint: 0, undo: 0, redo: 0, 'run-end': 0 });

/** A limit of 0 means "no limit" in the config; shown as none. */
const limitOf = (n: number): number | null => (n > 0 ? n : null);

export function summarize(items: readonly ReportItem[], limits: ReportLimits): ReportSummary {
  const counts = zeroCounts();
  const changed = new Set<string>();
  let added = 0;
  let removed = 0;
  let tokens = 0;
  let seconds = 0;
  const runs = new Set<string>();
  const sessions = new Set<string>();
  let failedRun: string | null = null;
  for (const { event } of items) {
    counts[event.kind]++;
    if (event.route.run) runs.add(event.route.run);
    if (event.route.session) sessions.add(event.route.session);
    if (event.kind === 'edit' || event.kind === 'command') {
      for (const p of event.paths) changed.add(p);
      const lines = event.kind === 'edit' ? event : event.changes;
      added += lines.added;
      removed += lines.removed;
    }
    if (event.kind === 'run-end') {
      tokens += event.totals.tokens;
      seconds += event.totals.elapsed_seconds;
      if (event.exit_code !== undefined && event.exit_code !== 0) failedRun = `run ${event.route.run ?? ''} ended ${event.status} (exit ${event.exit_code})${event.reason ? `: ${event.reason}` : ''}`;
    }
  }
  const times = items.map((i) => i.event.time).sort();
  const first = times[0] ?? null;
  const last = times[times.length - 1] ?? null;
  // Without a run's own clock (hooks, commands), the time is the span of the events.
  if (counts['run-end'] === 0 && first && last) seconds = Math.round((Date.parse(last) - Date.parse(first)) / 100) / 10;
  let outcome: ReportSummary['outcome'] = 'ok';
  let outcomeText = `${counts.edit} change(s) applied, nothing refused.`;
  if (counts.violation > 0) {
    outcome = 'violation';
    const v = items.find((i) => i.event.kind === 'violation')?.event;
    outcomeText = `A limit was violated${v && v.kind === 'violation' ? `: ${v.type} — ${v.message}` : '.'} (exit code 2)`;
  } else if (failedRun) {
    outcome = 'failed';
    outcomeText = `The ${failedRun}.`;
  } else if (counts.refusal > 0) {
    outcome = 'refused';
    outcomeText = `${counts.edit} change(s) applied, ${counts.refusal} request(s) refused.`;
  }
  return {
    outcome,
    outcomeText,
    files: { used: changed.size, limit: limitOf(limits.max_files) },
    lines: { used: added + removed, limit: limitOf(limits.max_lines_changed) },
    tokens: { used: tokens, limit: limitOf(limits.max_tokens) },
    seconds: { used: seconds, limit: limitOf(limits.timeout_seconds) },
    counts,
    first,
    last,
    runs: [...runs],
    sessions: [...sessions],
  };
}

/** Who did it, in a few words: "hook claude session abc", "exec run 2026…". */
export function routeText(route: EventRoute): string {
  const parts = [route.via];
  if (route.client) parts.push(route.client);
  if (route.session) parts.push(`session ${route.session}`);
  if (route.run) parts.push(`run ${route.run}`);
  return parts.join(' ');
}

/** How loud a line is: refusals and violations stand out. */
export type Severity = 'change' | 'refusal' | 'violation' | 'command' | 'command-failed' | 'undo' | 'info';

export interface EventLine {
  time: string;
  kind: EventKind;
  severity: Severity;
  route: string;
  /** The event in one line (no time, kind or route). */
  text: string;
  /** A heading for the event where its message is shown below it (refusals, violations: without the message). */
  title: string;
}

const paths = (p: readonly string[]): string => (p.length === 0 ? '' : p.length <= 3 ? p.join(', ') : `${p.slice(0, 3).join(', ')} and ${p.length - 3} more`);

/** One event as one timeline line. */
export function eventLine(event: EditwardenEvent): EventLine {
  const line = fullLine(event);
  if (event.kind === 'refusal') return { ...line, title: `${event.code} ${event.tool}${event.paths.length ? ` ${paths(event.paths)}` : ''}` };
  if (event.kind === 'violation') return { ...line, title: `${event.type} (${event.constraint}: ${event.actual} over ${Array.isArray(event.limit) ? event.limit.join(', ') : event.limit})` };
  return { ...line, title: line.text };
}

function fullLine(event: EditwardenEvent): EventLine {
  const head = { time: event.time, kind: event.kind, route: routeText(event.route), title: '' };
  switch (event.kind) {
    case 'edit':
      return { ...head, severity: 'change', text: `${event.tool} ${paths(event.paths)} +${event.added} -${event.removed}${event.checkpoint ? ` (undo: ${event.checkpoint})` : ''}` };
    case 'refusal':
      return { ...head, severity: 'refusal', text: `${event.code} ${event.tool}${event.paths.length ? ` ${paths(event.paths)}` : ''}: ${event.message}` };
    case 'command': {
      const exit = event.exit_code === null ? (event.code ?? 'no exit code') : `exit ${event.exit_code}`;
      const changed = event.paths.length ? `; changed ${paths(event.paths)}` : '; changed nothing';
      return { ...head, severity: event.exit_code === 0 ? 'command' : 'command-failed', text: `$ ${event.command} → ${exit}${changed}` };
    }
    case 'violation':
      return { ...head, severity: 'violation', text: `${event.type} (${event.constraint}: ${event.actual} over ${Array.isArray(event.limit) ? event.limit.join(', ') : event.limit}): ${event.message}` };
    case 'checkpoint':
      return { ...head, severity: 'info', text: `${event.label}${event.checkpoint ? ` (${event.checkpoint})` : ''}` };
    case 'undo':
    case 'redo':
      return { ...head, severity: 'undo', text: `${event.label}: ${event.written.length} written, ${event.removed.length} removed` };
    case 'run-end':
      return {
        ...head,
        severity: event.exit_code !== undefined && event.exit_code !== 0 ? 'violation' : 'info',
        text: `${event.status} (${event.outcome}); ${event.calls} call(s), ${event.totals.files} file(s), +${event.totals.lines_added} -${event.totals.lines_removed}, ${event.totals.tokens} tokens, ${event.totals.elapsed_seconds} s`,
      };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** "12 / 500" or "12 (no limit)". */
export function usageText(u: Usage, unit = ''): string {
  return u.limit === null ? `${u.used}${unit} (no limit)` : `${u.used}${unit} / ${u.limit}${unit}`;
}
