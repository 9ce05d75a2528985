/**
 * What a person reads first about a stretch of the event log: how it ended
 * (one headline, the same in `editwarden log`, the Markdown and the HTML
 * report), the files and lines changed — against the limits the run itself
 * recorded (its `run-end` event), never the root's config of today, and no
 * token or time rows for a client session, whose limits those are not —
 * and, for the timeline, one short line per event. Pure: events in, values
 * and text out; the CLI adds colour, the Markdown and HTML reports lay it out.
 *
 * Kinds it does not know (a newer writer's) are counted and shown as what
 * they are, never dropped and never a crash.
 */
import type { EditwardenEvent, EventRoute } from '../runs/event-types.js';

/** An event with its diff read back (inline or from its blob); null when it has none. */
export interface ReportItem {
  event: EditwardenEvent;
  diff: string | null;
  /** The whole path list when the log cut the event's (read from its side file), for the net change. */
  allPaths?: readonly string[];
}

export type ReportScope = { kind: 'run'; id: string } | { kind: 'session'; id: string } | { kind: 'all' };

/** One file's change from the start of the scope to now (report/net-change.ts reads it from the checkpoints). */
export interface NetChange {
  path: string;
  /** unchanged: changed and then put back (an undo); unknown: its state before was not kept. */
  change: 'added' | 'modified' | 'deleted' | 'unchanged' | 'unknown';
  added: number;
  removed: number;
  /** Unified diff from the start to now (text files); null for binary, large or unknown. */
  diff: string | null;
}

export interface ReportInput {
  scope: ReportScope;
  root: string;
  items: ReportItem[];
  /** The net change per file, or why it could not be read. */
  net: NetChange[] | { unavailable: string };
  /** When the report was made (ISO); given, so the output is a pure function of its input. */
  generatedAt: string;
  /** The IANA zone the times are shown in (the person's local clock). */
  timeZone: string;
}

export interface Usage {
  name: 'files changed' | 'lines changed' | 'tokens' | 'time';
  used: number;
  /** null: no limit (0 in the config, or none recorded for this scope). */
  limit: number | null;
  unit: string;
}

type Outcome = 'ok' | 'refused' | 'violation' | 'failed';

export interface ReportSummary {
  /** The worst thing that happened. */
  outcome: Outcome;
  /** One sentence: how it ended. */
  outcomeText: string;
  /** Rows of the usage table: files and lines always; tokens and time only for a run (they are a run's limits). */
  usage: Usage[];
  /** The limits came from the run's own record: where none was recorded, the table shows use only. */
  limitsFrom: 'run' | 'none';
  counts: Record<string, number>;
  first: string | null;
  last: string | null;
  runs: string[];
  sessions: string[];
}

/** The kinds this version knows, in the order a summary counts them. */
const KNOWN = ['edit', 'command', 'refusal', 'network', 'violation', 'checkpoint', 'undo', 'redo', 'run-end'] as const;
type KnownKind = (typeof KNOWN)[number];
export const isKnownKind = (kind: string): kind is KnownKind => (KNOWN as readonly string[]).includes(kind);

/** A command that did not do what it was asked: refused before it ran, stopped by the sandbox, or undone by editwarden. */
export interface Attempt {
  /** Said in one phrase: "blocked by the sandbox (read-only file system)". */
  why: string;
}

/** A command event's attempt, or null when it ran as asked (a command that merely failed is no attempt). */
export function attemptOf(event: EditwardenEvent): Attempt | null {
  if (event.kind !== 'command') return null;
  if (event.exit_code === null && event.code) return { why: `refused before it ran (${event.code})` };
  if (event.reverted) return { why: `its changes were put back${event.code ? ` (${event.code})` : ''}` };
  if (event.put_back?.length) return { why: `it changed protected files, put back: ${event.put_back.join(', ')}` };
  if (event.exit_code !== 0 && event.paths.length === 0 && /Read-only file system/i.test(event.output ?? '')) return { why: 'blocked by the sandbox (a protected path is read-only)' };
  return null;
}

const limitOf = (n: number | null): number | null => (n !== null && n > 0 ? n : null);

export function summarize(items: readonly ReportItem[]): ReportSummary {
  const counts: Record<string, number> = {};
  const changed = new Set<string>();
  let added = 0;
  let removed = 0;
  let tokens = 0;
  let seconds = 0;
  let attempts = 0;
  let uncounted = 0;
  let applied = 0;
  const runs = new Set<string>();
  const sessions = new Set<string>();
  const runEnds: Array<Extract<EditwardenEvent, { kind: 'run-end' }>> = [];
  for (const { event } of items) {
    counts[event.kind] = (counts[event.kind] ?? 0) + 1;
    if (event.route?.run) runs.add(event.route.run);
    if (event.route?.session) sessions.add(event.route.session);
    if (attemptOf(event)) attempts++;
    if ((event.kind === 'edit' || event.kind === 'command') && !(event.kind === 'command' && event.reverted)) {
      for (const p of event.paths) changed.add(p);
      // A list cut in the log counts what it held (the rest cannot be told apart from the others: counted once each).
      uncounted += pathsTotal(event) - event.paths.length;
      const lines = event.kind === 'edit' ? event : event.changes;
      added += lines.added;
      removed += lines.removed;
      if (event.paths.length > 0) applied++;
    }
    if (event.kind === 'run-end') {
      runEnds.push(event);
      tokens += event.totals.tokens;
      seconds += event.totals.elapsed_seconds;
    }
  }
  const times = items.map((i) => i.event.time).sort();
  const first = times[0] ?? null;
  const last = times[times.length - 1] ?? null;
  // The run's own limits, when the scope is one run that recorded them; a session or a mix of runs has none to show.
  const limits = runEnds.length === 1 && runs.size <= 1 ? (runEnds[0]?.limits ?? null) : null;
  const usage: Usage[] = [
    { name: 'files changed', used: changed.size + uncounted, limit: limits ? limitOf(limits.max_files) : null, unit: '' },
    { name: 'lines changed', used: added + removed, limit: limits ? limitOf(limits.max_lines_changed) : null, unit: '' },
  ];
  if (runEnds.length > 0) {
    usage.push({ name: 'tokens', used: tokens, limit: limits ? limitOf(limits.max_tokens) : null, unit: '' });
    usage.push({ name: 'time', used: seconds, limit: limits ? limitOf(limits.timeout_seconds) : null, unit: ' s' });
  }
  // A connection the sandbox's proxy refused is a refusal too (one event per refused destination).
  const refused = (counts.refusal ?? 0) + (counts.network ?? 0) + attempts;
  const violation = items.find((i) => i.event.kind === 'violation')?.event;
  const failedRun = runEnds.find((e) => e.exit_code !== undefined && e.exit_code !== 0);
  let outcome: Outcome = 'ok';
  let outcomeText = `${applied} change(s) applied, nothing refused.`;
  if (violation && violation.kind === 'violation') {
    outcome = 'violation';
    outcomeText = `A limit was violated: ${violation.type} — ${violation.constraint} reached ${violation.actual}, limit ${limitText(violation.limit)} (exit code 2).`;
  } else if (failedRun) {
    outcome = 'failed';
    outcomeText = `The run ${failedRun.route.run ?? ''} ended ${failedRun.status} (exit ${failedRun.exit_code})${failedRun.reason ? `: ${failedRun.reason}` : ''}.`;
  } else if (refused > 0) {
    outcome = 'refused';
    outcomeText = `${applied} change(s) applied, ${refused} refused or stopped.`;
  }
  return { outcome, outcomeText, usage, limitsFrom: limits ? 'run' : 'none', counts, first, last, runs: [...runs], sessions: [...sessions] };
}

/** The one line that says how it ended: the report's headline and the last line of `editwarden log`. */
export function headline(s: ReportSummary): string {
  const use = s.usage
    .slice(0, 2)
    .map((u) => `${u.name} ${usageText(u, s.limitsFrom)}`)
    .join(', ');
  return `${s.outcome}: ${s.outcomeText} (${use})`;
}

/** Who did it, in a few words: "hook claude", "exec"; the session or run only where it is not the report's own. */
export function routeText(route: EventRoute, scope: ReportScope = { kind: 'all' }): string {
  const parts = [route.via];
  if (route.client) parts.push(route.client);
  if (route.session && !(scope.kind === 'session' && scope.id === route.session)) parts.push(`session ${route.session}`);
  if (route.run && !(scope.kind === 'run' && scope.id === route.run)) parts.push(`run ${route.run}`);
  return parts.join(' ');
}

/** How loud a line is: refusals, stopped attempts and violations stand out. */
export type Severity = 'change' | 'refusal' | 'violation' | 'command' | 'command-failed' | 'attempt' | 'undo' | 'info';

export interface EventLine {
  time: string;
  kind: string;
  severity: Severity;
  route: string;
  /** The event in one line (no time, kind or route). */
  text: string;
  /** A heading for the event where its message is shown below it (refusals, violations: without the message). */
  title: string;
}

/** How many paths an event names: its list, or the count kept when the list was cut (runs/events-cap.ts). */
const pathsTotal = (event: EditwardenEvent): number => Math.max(event.cut?.paths?.total ?? 0, Array.isArray(event.paths) ? event.paths.length : 0);
const paths = (p: readonly string[], total = p.length): string => (p.length === 0 ? '' : total <= 3 ? p.join(', ') : `${p.slice(0, 3).join(', ')} and ${total - Math.min(3, p.length)} more`);
const pathsText = (event: EditwardenEvent): string => paths(Array.isArray(event.paths) ? event.paths : [], pathsTotal(event));
/** A network event's destination as host:port (an IPv6 literal bracketed). */
const target = (event: Extract<EditwardenEvent, { kind: 'network' }>): string => {
  const host = event.host.includes(':') ? `[${event.host}]` : event.host;
  return event.port === null ? host : `${host}:${event.port}`;
};
const othersText = (event: Extract<EditwardenEvent, { kind: 'network' }>): string => (event.others ? `; and ${event.others.destinations} more destination(s), ${event.others.connections} connection(s)` : '');
const limitText = (limit: number | string | string[]): string => (Array.isArray(limit) ? limit.join(', ') : String(limit));

/** One event as one timeline line. */
export function eventLine(event: EditwardenEvent, scope?: ReportScope): EventLine {
  const head = { time: event.time, kind: event.kind, route: event.route ? routeText(event.route, scope) : '' };
  if (!isKnownKind(event.kind)) {
    const where = pathsText(event);
    return { ...head, severity: 'info', text: where, title: where };
  }
  const line = knownLine(event, head);
  if (event.kind === 'refusal') return { ...line, title: `${event.code} ${event.tool}${event.paths.length ? ` ${pathsText(event)}` : ''}` };
  if (event.kind === 'violation') return { ...line, title: `${event.type} (${event.constraint}: ${event.actual} over ${limitText(event.limit)})` };
  if (event.kind === 'command') return { ...line, title: `${attemptOf(event) ? 'attempt: ' : ''}$ ${event.command}` };
  if (event.kind === 'network') return { ...line, title: `${event.code} ${event.method} ${target(event)}` };
  return { ...line, title: line.text };
}

function knownLine(event: EditwardenEvent, head: Omit<EventLine, 'severity' | 'text' | 'title'>): EventLine {
  switch (event.kind) {
    case 'edit':
      return { ...head, title: '', severity: 'change', text: `${event.tool} ${pathsText(event)} +${event.added} -${event.removed}` };
    case 'refusal':
      return { ...head, title: '', severity: 'refusal', text: `${event.code} ${event.tool}${event.paths.length ? ` ${pathsText(event)}` : ''}: ${event.message}` };
    case 'command': {
      const attempt = attemptOf(event);
      const exit = event.exit_code === null ? 'not run' : `exit ${event.exit_code}`;
      const changed = attempt ? `; ${attempt.why}` : event.paths.length ? `; changed ${pathsText(event)}` : '; changed nothing';
      return { ...head, title: '', severity: attempt ? 'attempt' : event.exit_code === 0 ? 'command' : 'command-failed', text: `$ ${event.command} → ${exit}${changed}` };
    }
    case 'network':
      return { ...head, title: '', severity: 'refusal', text: `${event.code} ${event.method} ${target(event)}${event.count > 1 ? ` ×${event.count}` : ''} (${event.reason}) during $ ${event.command}${othersText(event)}` };
    case 'violation':
      return { ...head, title: '', severity: 'violation', text: `${event.type} (${event.constraint}: ${event.actual} over ${limitText(event.limit)}): ${event.message}` };
    case 'checkpoint':
      return { ...head, title: '', severity: 'info', text: event.label };
    case 'undo':
    case 'redo':
      return { ...head, title: '', severity: 'undo', text: `${event.label}: ${event.written.length} written, ${event.removed.length} removed` };
    case 'run-end':
      return {
        ...head,
        title: '',
        severity: event.exit_code !== undefined && event.exit_code !== 0 ? 'violation' : 'info',
        text: `${event.status} (${event.outcome}); ${event.calls} call(s), ${event.totals.files} file(s), +${event.totals.lines_added} -${event.totals.lines_removed}, ${event.totals.tokens} tokens, ${event.totals.elapsed_seconds} s`,
      };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** "12 / 500"; "12 (no limit)" where the run recorded none; "12" where no limits were recorded at all (a client session). */
export function usageText(u: Usage, limitsFrom: ReportSummary['limitsFrom'] = 'none'): string {
  if (u.limit !== null) return `${u.used}${u.unit} / ${u.limit}${u.unit}`;
  return limitsFrom === 'run' ? `${u.used}${u.unit} (no limit)` : `${u.used}${u.unit}`;
}

/** The events of a scope: its own, and the undo or redo of any step it made (a person's `editwarden undo` has no session of its own). */
export function eventsInScope(events: readonly EditwardenEvent[], filter: { run?: string | undefined; session?: string | undefined }): EditwardenEvent[] {
  const own = (e: EditwardenEvent): boolean => (filter.run === undefined || e.route?.run === filter.run) && (filter.session === undefined || e.route?.session === filter.session);
  const steps = new Set<string>();
  const out: EditwardenEvent[] = [];
  for (const e of events) {
    if (own(e)) {
      if (e.checkpoint) steps.add(e.checkpoint);
      out.push(e);
    } else if ((e.kind === 'undo' || e.kind === 'redo') && e.undoes?.some((id) => steps.has(id))) {
      out.push(e);
    }
  }
  return out;
}
