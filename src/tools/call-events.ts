/**
 * What a recorded tool call adds to the root's event log (runs/events.ts):
 * an applied write becomes an `edit` (with its diff and the checkpoint that
 * undoes it), a refused or failed request a `refusal` (code, message, hint),
 * a command a `command` (exit code, the files it changed), a constraint
 * breach a `violation`; reads that succeed and control calls add nothing —
 * the log is what changed and what was refused, not every look. The end of
 * a run adds a `run-end` with its outcome and totals against the limits.
 * Pure mapping: the runner appends what this returns.
 */
import path from 'node:path';
import type { ConstraintsConfig } from '../config/config.js';
import type { RunMetrics } from '../runs/metrics.js';
import type { EventRoute, NewEvent } from '../runs/event-types.js';
import { networkEvents, type NetworkRefusals } from '../runs/network-events.js';
import { outputTail, recordEvent } from '../runs/events.js';
import type { RunClosing } from '../runs/outcome.js';
import type { RunProfile } from '../runs/profile.js';
import type { CheckpointService } from '../workspace/checkpoints/service.js';
import type { CallRecord, CallRecorder, ToolRunnerOptions } from './calls.js';
import type { ToolKind } from './types.js';
import { defined } from '../defined.js';
import { appendAll } from '../arrays.js';

export interface CallEventContext {
  route: EventRoute;
  kind: ToolKind | undefined;
  args: unknown;
  /** The checkpoint that holds the state before this call's write (its undo step), when it wrote. */
  checkpoint: string | null;
  /** The run folder relative to the root (for the violation report's path), or null. */
  runFolder: string | null;
}

function argString(args: unknown, ...names: string[]): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  for (const name of names) {
    const v = (args as Record<string, unknown>)[name];
    if (typeof v === 'string') return v;
  }
  return undefined;
}

/** The diffs of an applied write, from its result data (EditResult.diff of each request). */
function diffOf(data: unknown): string | undefined {
  const results = (data as { results?: Array<{ diff?: unknown }> } | undefined)?.results;
  if (!Array.isArray(results)) return undefined;
  const diff = results
    .map((r) => (typeof r.diff === 'string' ? r.diff : ''))
    .filter((d) => d !== '')
    .join('');
  return diff === '' ? undefined : diff;
}

/** The events one recorded call adds (zero, one or two: a call that broke a limit adds its violation too). */
export function callEvents(record: CallRecord, ctx: CallEventContext): NewEvent[] {
  // A command's undo step is its own (command-effects.ts); a write's is the checkpoint its transaction took.
  const base = { route: ctx.route, ...defined({ checkpoint: (ctx.kind === 'command' ? record.effects?.step : ctx.checkpoint) || undefined }) };
  const out: NewEvent[] = [];
  if (ctx.kind === 'command') {
    const data = record.data as { exit_code?: unknown; artifacts?: unknown } | undefined;
    const exit = typeof data?.exit_code === 'number' ? data.exit_code : null;
    out.push({
      ...base,
      kind: 'command',
      tool: record.tool,
      command: argString(ctx.args, 'command') ?? '',
      exit_code: exit,
      paths: record.files,
      changes: { added: record.lines_added, removed: record.lines_removed },
      ...defined({
        artifacts: typeof data?.artifacts === 'string' ? data.artifacts : undefined,
        diff: record.effects?.diff || undefined,
        output: record.ok ? undefined : outputTail(record.output),
        put_back: record.effects?.put_back.length ? record.effects.put_back : undefined,
      }),
      ...(record.error ? { code: record.error.code, message: record.error.message } : {}),
    });
    // The connections its network proxy refused (sandbox.network lists hosts), one event per destination.
    const refused = (record.data as { network_refused?: NetworkRefusals } | undefined)?.network_refused;
    if (refused) appendAll(out, networkEvents(refused, { route: ctx.route, tool: record.tool, command: argString(ctx.args, 'command') ?? (record.data as { command?: string }).command ?? '' }));
  } else if (record.ok && record.files.length > 0) {
    const diff = diffOf(record.data);
    out.push({ ...base, kind: 'edit', tool: record.tool, paths: record.files, added: record.lines_added, removed: record.lines_removed, ...defined({ diff: diff || undefined }) });
  } else if (!record.ok && record.error && !record.violation) {
    const where = record.error.path ?? argString(ctx.args, 'path', 'file_path', 'filename');
    out.push({ ...base, kind: 'refusal', tool: record.tool, paths: where ? [where] : [], code: record.error.code, message: record.error.message, hint: record.error.hint });
  }
  const v = record.violation;
  if (v) {
    out.push({
      ...base,
      kind: 'violation',
      paths: v.path ? [v.path] : record.files,
      type: v.type,
      constraint: v.constraint,
      limit: v.limit,
      actual: v.actual,
      message: v.message,
      hint: v.hint,
      prevented: v.prevented,
      tool: record.tool,
      ...defined({ report: ctx.runFolder ? `${ctx.runFolder}/violation.md` : undefined }),
    } as NewEvent);
  }
  return out;
}

function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

/** The run's last event: its outcome and totals against the configured limits. */
function runEndEvent(route: EventRoute, metrics: RunMetrics, limits: ConstraintsConfig, closing?: RunClosing): NewEvent {
  const actual = metrics.constraints.actual;
  const outcome = closing?.outcome;
  return {
    route,
    kind: 'run-end',
    paths: metrics.files.map((f) => f.path),
    status: outcome?.status ?? metrics.status,
    ...(outcome ? { exit_code: outcome.exit_code, reason: outcome.reason } : {}),
    outcome: metrics.outcome,
    started_at: metrics.started_at,
    calls: metrics.calls,
    totals: { files: actual.files_modified, lines_added: actual.lines_added, lines_removed: actual.lines_removed, tokens: actual.tokens_used, elapsed_seconds: actual.elapsed_seconds },
    // An interactive session's limit that is not set is Infinity (runs/profile.ts): no limit, recorded as null (JSON has no Infinity).
    limits: { max_files: finite(limits.max_files), max_lines_changed: finite(limits.max_lines_changed), max_tokens: finite(limits.max_tokens), timeout_seconds: finite(metrics.constraints.configured.timeout_seconds) },
  };
}

/** Where a run's events go: the root's log, under the run's route. Appending never fails a call (the log is evidence). */
export class CallEventLog {
  constructor(
    private readonly stateDir: string,
    private readonly route: EventRoute,
    private readonly limits: ConstraintsConfig,
    private readonly runFolder: string | null,
    private readonly newestCheckpoint: () => string | null,
  ) {}

  /**
   * The log of a runner with these options, or null when it records none: a dry run (nothing reaches the disk,
   * so nothing happened to log) and a runner that keeps no artifacts unless it names its route.
   */
  static for(options: ToolRunnerOptions, profile: RunProfile, runId: string, runDir: string | null, checkpoints: CheckpointService | undefined): CallEventLog | null {
    const events = options.events;
    if (events === false || profile.dryRun || (events === undefined && options.artifacts === false) || isRecorder(events)) return null;
    const route: EventRoute = { via: profile.mode, ...events, run: runId };
    const runFolder = runDir ? path.relative(options.ws.root, runDir).split(path.sep).join('/') : null;
    return new CallEventLog(options.ws.stateDir, route, options.config.constraints, runFolder, () => newestCheckpoint(checkpoints));
  }

  call(record: CallRecord, kind: ToolKind | undefined, args: unknown): void {
    const wrote = kind !== 'command' && record.ok && record.files.length > 0;
    for (const event of callEvents(record, { route: this.route, kind, args, checkpoint: wrote ? this.newestCheckpoint() : null, runFolder: this.runFolder })) recordEvent(this.stateDir, event);
  }

  end(metrics: RunMetrics, closing?: RunClosing): void {
    recordEvent(this.stateDir, runEndEvent(this.route, metrics, this.limits, closing));
  }
}

/** Whether a runner's `events` option is the caller's own recorder (a client session's hook record), not a route. */
export function isRecorder(events: ToolRunnerOptions['events']): events is CallRecorder {
  return typeof events === 'object' && typeof (events as Partial<CallRecorder>).call === 'function';
}

/**
 * The newest checkpoint right after a write: the one its transaction took (or, inside a run-wide rollback
 * transaction, the run's own, which is the step that undoes it). Read from the folder listing only: parsing
 * a manifest per call would cost a 50k-file workspace manifest's parse on every write.
 */
function newestCheckpoint(checkpoints: CheckpointService | undefined): string | null {
  try {
    return checkpoints?.manifests.newest() ?? null;
  } catch {
    return null;
  }
}
