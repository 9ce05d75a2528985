/**
 * The values of the tool-call life cycle, as callers of the ToolRunner see
 * them: how a runner starts, the call asked for, the approval asked of a person (or hook), the
 * record kept of each call, the events shown while a run goes on, and the
 * summary of an ended run. Types and plain builders only: nothing here runs
 * a tool, decides a call or writes a record.
 */
import { Run } from '../runs/run.js';
import { runProfile } from '../runs/profile.js';
import { defined } from '../defined.js';
import type { Project } from '../host/project.js';
import type { Toolset } from './toolset.js';
import type { z } from 'zod';
import { EditwardenError, ErrorCode, formatRefusal } from '../errors.js';
import type { GoverningChange } from '../workspace/governing.js';
import type { CommandSink } from './command-sink.js';
import type { FileChange } from '../guard/constraints.js';
import type { RunMetrics } from '../runs/metrics.js';
import type { RunnerState, SummaryStatus } from '../runs/outcome.js';
import type { Violation } from '../guard/violations.js';
import type { EventRoute } from '../runs/event-types.js';
import type { RunReports } from '../runs/records.js';
import type { Config } from '../config/config.js';
import type { RollbackResult, TransactionLayer } from '../workspace/transaction.js';
import type { FileView } from '../workspace/view.js';
import { ToolErrorCode, type AnyTool, type Interaction, type ToolContext, type ToolError, type ToolKind, type ToolResult } from './types.js';

export interface ToolCall {
  tool: string;
  args?: unknown;
  /** Model tokens spent to produce this call (recorded before it runs). */
  tokens?: number;
  /** Cancels this call only (an MCP request's cancellation): it stops at once, the run goes on. */
  signal?: AbortSignal;
  /** A command call run the caller's way (tools/command-sink.ts: the guarded shell's streaming sink). */
  sink?: CommandSink;
  /** The name the caller knows the tool by (a client's `Bash`): the call's refusals and its undo step name it. */
  shownAs?: string;
}

/**
 * ok / failed: the tool ran (or refused the request itself) — the model sees
 * the result and goes on. refused: a constraint stopped it (the run is
 * aborted) or the run had already ended. declined: the approval hook said no.
 */
export type CallStatus = 'ok' | 'failed' | 'refused' | 'declined';

export interface CallRecord {
  index: number;
  tool: string;
  status: CallStatus;
  ok: boolean;
  output: string;
  data?: unknown;
  /** A command's effects as the event log shows them (not in calls.jsonl). */
  effects?: CommandEffectsRecord;
  error?: ToolError;
  duration_ms: number;
  files: string[];
  lines_added: number;
  lines_removed: number;
  tokens: number;
  violation?: Violation;
}

/** What a command call changed, as its records show it: its diff, the protected files put back and its undo step. */
export interface CommandEffectsRecord {
  diff: string;
  put_back: string[];
  step: string | null;
  /** Each file it changed with its lines (the call's `files` and line totals are their sum). */
  changes?: FileChange[];
  /** The protected files it changed, each put back or not. */
  governing?: GoverningChange[];
  /** Over a client session's limits: its changes were put back (the refusal says how many). */
  reverted?: boolean;
  /** The ignored files it changed that undo cannot bring back, as one line (ignored.ts `notKeptLine`). */
  not_kept?: string;
  /** Why its changes, over a client session's limits, could not be put back. */
  put_back_failed?: string;
}

/** What a call's steps decide; the runner adds the index, tool, duration and tokens when it records it. */
export type CallFields = Omit<CallRecord, 'index' | 'tool' | 'duration_ms' | 'tokens'>;

export interface ApprovalRequest {
  call: number;
  tool: string;
  kind: ToolKind;
  args: unknown;
  /** Write tools: what the call would change, and the diff. */
  changes?: FileChange[];
  diff?: string;
}

export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };
export type ApprovalHook = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** The default hook: headless runs are gated by constraints, not by a person. */
export const approveAll: ApprovalHook = () => ({ approved: true });

export type RunnerEvent = { type: 'call-start'; index: number; tool: string } | { type: 'call-end'; record: CallRecord } | { type: 'violation'; violation: Violation } | { type: 'usage'; tokens: number };

/** What a runner takes besides the project, whichever form starts it. */
interface RunnerCommon {
  /** Keep command logs, calls.jsonl, metrics.json and reports in `.editwarden/runs/<id>/` (default true). */
  artifacts?: boolean;
  approve?: ApprovalHook;
  interaction?: Interaction;
  onEvent?: (event: RunnerEvent) => void;
  /**
   * The route this run's events are recorded under in the root's event log
   * (runs/events.ts): `via` defaults to the profile's mode, `run` is the run
   * id. false: record none (default when `artifacts` is false). A recorder:
   * each call is handed to it instead (a client session's hook record).
   */
  events?: Omit<EventRoute, 'run'> | false | CallRecorder;
  timing?: RunnerTiming;
}

/**
 * How a runner starts: `ToolRunner.start({ project, run, toolset })`. The
 * project travels whole, as the entry opened it (host/project.ts): its
 * workspace, transaction layer and `applyOptions` (the edit options and
 * language hooks, made once there) are the runner's, never re-packed by an
 * entry point.
 */
export interface ToolRunnerStart extends RunnerCommon {
  project: Project;
  /**
   * The run (runs/run.ts): its id, its profile (who approves a change — a
   * person, or the constraints alone, then a tool that needs a person is
   * refused — and the failure policy that settles it), its cancellation.
   * Every entry point builds the profile with runProfile(); default: a new
   * run under the headless profile of the project's config and layers.
   */
  run?: Run;
  /**
   * What the run serves and the config its guard reads (tools/toolset.ts `toolsetFor`; an entry point may put
   * its own tools beside the toolset's). Default: the project's config and the built-in tools.
   */
  toolset?: Pick<Toolset, 'config' | 'tools'>;
  /** The view every call reads and writes when it is not the project's workspace: an overlay of it (a dry run). */
  view?: FileView;
}

/**
 * @deprecated The form before the project travelled whole: its pieces one by
 * one. Still taken by `ToolRunner.start` for library callers; pass
 * `{ project: openProject(root, config), run, toolset }` instead
 * (docs/library.md). Unlike a project's runner, a runner started this way
 * plans with `apply` alone (default: the engine's default edit options).
 */
export interface ToolRunnerOptions extends RunnerCommon {
  ws: FileView;
  config: Config;
  /** The run; default: a new run under the headless profile of `config`. */
  run?: Run;
  tools?: readonly AnyTool[];
  /** Edit options and language hooks for the write tools. */
  apply?: ToolContext['apply'];
  /** The transaction layer (default: the disk workspace's own); required when `ws` is an overlay (a dry run). */
  transactions?: TransactionLayer;
}

/** The runner's own view of either form: the project's pieces, taken from it in this one place. */
export function runnerParts(options: ToolRunnerStart | ToolRunnerOptions): ToolRunnerOptions {
  if (!('project' in options)) return options;
  const { project, run, toolset, view, ...common } = options;
  const config = toolset?.config ?? project.config;
  return {
    ...common,
    ws: view ?? project.ws,
    config,
    run: run ?? new Run({ profile: runProfile('headless', { config, layers: project.layers }) }),
    ...defined({ tools: toolset?.tools }),
    apply: project.applyOptions,
    transactions: project.transactions,
  };
}

/** Where a run's calls are recorded, when the caller records them its way (a client session's hook record): the runner's record step hands each call to it. */
export interface CallRecorder {
  call(record: CallRecord, args: unknown): void;
}

interface RunnerTiming {
  /** Milliseconds clock for the constraint guard (tests). */
  now?: () => number;
  /** How long a call may take to stop after the deadline before the runner gives up waiting (ms). */
  stopGraceMs?: number;
}

export interface RunSummary {
  runId: string;
  runDir: string | null;
  status: SummaryStatus;
  violation: Violation | null;
  metrics: RunMetrics;
  calls: CallRecord[];
  rollback: RollbackResult | null;
  reports: RunReports;
}

export function emptyChange(): Pick<CallRecord, 'files' | 'lines_added' | 'lines_removed'> {
  return { files: [], lines_added: 0, lines_removed: 0 };
}

/** A call that ends with this error and changed nothing. */
export function endedWith(error: ToolError, status: CallStatus = 'failed', withHint = true): CallFields {
  return { ...emptyChange(), status, ok: false, output: withHint ? formatRefusal(error) : `${error.code}: ${error.message}`, error };
}

/** E_CONSTRAINT with the violation's message and hint. */
export function violationError(v: Violation): ToolError {
  return { code: ErrorCode.CONSTRAINT, message: v.message, hint: v.hint };
}

/** A constraint refused the call (the run is aborted by the caller). */
export function refusedBy(v: Violation): CallFields {
  return { ...emptyChange(), status: 'refused', ok: false, output: `${v.message}\nhint: ${v.hint}`, error: violationError(v), violation: v };
}

/**
 * The record of a cancelled call: E_RUN_ENDED when the run was cancelled
 * (the run takes no more calls), E_ABORTED when only this call was.
 */
export function cancelledFields(cause: 'run-cancelled' | 'call-cancelled', tool: string, started: boolean): CallFields {
  const what = started ? `${tool} was stopped` : `${tool} did not run`;
  const error: ToolError =
    cause === 'run-cancelled'
      ? { code: ToolErrorCode.RUN_ENDED, message: `The run was cancelled (interrupted): ${what}.`, hint: 'The work done so far is kept; start a new run to go on.' }
      : { code: ErrorCode.CANCELLED, message: `The call was cancelled by the client: ${what}.`, hint: 'Call it again if it is still wanted.' };
  return endedWith(error, cause === 'run-cancelled' ? 'refused' : 'failed');
}

/** The refusal of a call made after the run ended: aborted by `violation`, cancelled, finished or completed. */
export function runEndedFields(state: Exclude<RunnerState, 'running'>, violation: Violation | null): CallFields {
  const why =
    state === 'aborted' && violation
      ? `the run was aborted by a ${violation.type} violation`
      : state === 'cancelled'
        ? 'the run was cancelled (interrupted); the work done so far is kept'
        : state === 'finished'
          ? 'the run has finished'
          : 'the task was already marked complete';
  return endedWith({ code: ToolErrorCode.RUN_ENDED, message: `No more tool calls run: ${why}.`, hint: 'Start a new run.' }, 'refused', false);
}

export function declinedFields(tool: string, reason?: string): CallFields {
  const error = { code: ToolErrorCode.DECLINED, message: `The ${tool} call was declined${reason ? `: ${reason}` : '.'}`, hint: 'Do something else, or ask what would be acceptable.' };
  return endedWith(error, 'declined');
}

export function unknownToolFields(name: string, known: readonly string[]): CallFields {
  return endedWith({ code: ToolErrorCode.UNKNOWN_TOOL, message: `There is no tool named ${JSON.stringify(name)}.`, hint: `Available tools: ${known.join(', ')}.` });
}

export function resultFields(result: ToolResult): Pick<CallRecord, 'ok' | 'output' | 'data' | 'error'> {
  const out: Pick<CallRecord, 'ok' | 'output' | 'data' | 'error'> = { ok: result.ok, output: result.output };
  if (result.data !== undefined) out.data = result.data;
  if (result.error !== undefined) out.error = result.error;
  return out;
}

/** E_PARSE naming the field, with the tool's fields in the hint. */
export function argumentError(tool: AnyTool, error: z.ZodError): ToolError {
  const issue = error.issues[0];
  let field = issue?.path.map(String).join('.') || '(arguments)';
  if (issue?.code === 'unrecognized_keys') field = issue.keys.join(', ');
  const what = issue?.code === 'unrecognized_keys' ? `unknown field "${field}"` : `field "${field}": ${issue?.message ?? 'invalid'}`;
  const shape = (tool.schema as { shape?: Record<string, unknown> }).shape;
  const fields = shape ? Object.keys(shape).join(', ') : '';
  return {
    code: ErrorCode.PARSE,
    message: `${tool.name} arguments: ${what}.`,
    hint: fields ? `${tool.name} takes: ${fields}.` : `Check the ${tool.name} argument schema.`,
  };
}

/** A runner over an overlay view (a dry run) must be handed the disk's transaction layer. */
export function noLayer(): never {
  throw new EditwardenError({
    code: ErrorCode.INTERNAL,
    message: 'A tool runner over an overlay view (a dry run) was given no transaction layer.',
    hint: "Pass the disk workspace's transactions (ws.transactions) as the runner's `transactions`.",
  });
}
