/**
 * The ToolRunner: every tool call of a run — from `editwarden exec`, the
 * agent loop or MCP — goes through `call()`, which owns the life-cycle:
 *
 *   deadline → tool allowed → arguments valid → (write tools) plan the real
 *   diff and gate it on the constraints → approval hook → execute (stopped
 *   at the deadline) → charge what changed (commands: by comparing the
 *   workspace before and after) → record.
 *
 * A constraint violation aborts the run at once: no later call runs, and
 * `finish()` keeps the partial work or rolls the whole run back
 * (`on_violation`), then writes metrics.json and the violation report into
 * the run folder. Tools hold none of this logic; the runner never writes a
 * project file itself.
 *
 * Cancellation. `options.signal` cancels the run (Ctrl-C in `editwarden
 * run`): the running call is stopped at once (a command's whole process
 * group is killed) and every later call is refused with E_RUN_ENDED. It is
 * not a violation: the work done so far is kept and `finish()` commits it.
 * `call.signal` cancels one call only (an MCP client cancelling a request);
 * the run goes on.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { Config } from '../config/config.js';
import { ErrorCode, formatRefusal, toErrorInfo } from '../errors.js';
import { CommandEffects } from '../guard/command-effects.js';
import { ConstraintGuard, type CheckSite, type ConstraintTotals, type FileChange, type RunMode } from '../guard/constraints.js';
import { addTiming, buildMetrics, emptyToolStats, type RunMetrics, type RunStatus, type ToolStats } from '../guard/metrics.js';
import { writeMetrics, writeViolationReport, type ReportCall } from '../guard/report.js';
import type { Violation } from '../guard/violations.js';
import { ensureRunDir, newRunId } from '../runs/runs.js';
import { installTransactions, type RollbackResult, type Transaction, type TransactionLayer } from '../workspace/transaction.js';
import type { Workspace } from '../workspace/workspace.js';
import { ToolRegistry } from './registry.js';
import { CallStop, ToolErrorCode, type AnyTool, type Interaction, type StopCause, type ToolContext, type ToolError, type ToolKind, type ToolResult } from './types.js';

export interface ToolCall {
  tool: string;
  args?: unknown;
  /** Model tokens spent to produce this call (recorded before it runs). */
  tokens?: number;
  /** Cancels this call only (an MCP request's cancellation): it stops at once, the run goes on. */
  signal?: AbortSignal;
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
  error?: ToolError;
  duration_ms: number;
  files: string[];
  lines_added: number;
  lines_removed: number;
  tokens: number;
  violation?: Violation;
}

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

export type RunnerEvent =
  | { type: 'call-start'; index: number; tool: string }
  | { type: 'call-end'; record: CallRecord }
  | { type: 'violation'; violation: Violation }
  | { type: 'usage'; tokens: number };

export interface ToolRunnerOptions {
  ws: Workspace;
  config: Config;
  mode?: RunMode;
  tools?: readonly AnyTool[];
  runId?: string;
  /** Keep command logs, calls.jsonl, metrics.json and reports in `.editwarden/runs/<id>/` (default true). */
  artifacts?: boolean;
  /** Edit options and language hooks for the write tools. */
  apply?: ToolContext['apply'];
  approve?: ApprovalHook;
  interaction?: Interaction;
  onEvent?: (event: RunnerEvent) => void;
  /**
   * Config files that govern the run (absolute paths; default
   * `<root>/.editwarden.yml`): a command that changes one is a violation
   * and the change is put back, like any change inside `.git/`.
   */
  configFiles?: string[];
  /** The workspace's transaction layer (openWorkspace gives it); installed when omitted. */
  transactions?: TransactionLayer;
  /** Milliseconds clock for the constraint guard (tests). */
  now?: () => number;
  /** How long a call may take to stop after the deadline before the runner gives up waiting (ms). */
  stopGraceMs?: number;
  /**
   * Cancels the run (Ctrl-C): the running call stops at once and later calls
   * are refused (E_RUN_ENDED). Not a violation: the work so far is kept.
   */
  signal?: AbortSignal;
}

export interface RunSummary {
  runId: string;
  runDir: string | null;
  status: RunStatus;
  violation: Violation | null;
  metrics: RunMetrics;
  calls: CallRecord[];
  rollback: RollbackResult | null;
  reports: { metrics?: string; violationMarkdown?: string; violationJson?: string };
}

const MAX_LOGGED_OUTPUT = 4000;

export class ToolRunner {
  readonly runId: string;
  readonly runDir: string | null;
  readonly guard: ConstraintGuard;
  readonly registry: ToolRegistry;
  private readonly ws: Workspace;
  private readonly config: Config;
  private readonly mode: RunMode;
  private readonly options: ToolRunnerOptions;
  private readonly transactions: TransactionLayer;
  private readonly effects: CommandEffects;
  private readonly startedAt = new Date().toISOString();
  private readonly records: CallRecord[] = [];
  private readonly stats: Record<string, ToolStats> = {};
  private readonly fileTools = new Map<string, Set<string>>();
  private runTx: Transaction | null = null;
  private violationValue: Violation | null = null;
  private completed = false;
  private summary: RunSummary | null = null;

  private constructor(options: ToolRunnerOptions) {
    this.options = options;
    this.ws = options.ws;
    this.config = options.config;
    this.mode = options.mode ?? 'headless';
    this.registry = new ToolRegistry(options.tools);
    this.guard = new ConstraintGuard(options.config.constraints, { mode: this.mode, ...(options.now ? { now: options.now } : {}) });
    this.runId = options.runId ?? newRunId();
    this.runDir = options.artifacts === false ? null : ensureRunDir(options.ws, this.runId);
    this.transactions = options.transactions ?? installTransactions(options.ws);
    this.effects = new CommandEffects(this.transactions.checkpoints, options.configFiles, !options.config.sandbox.git_writable);
  }

  /**
   * Starts a run. Under `on_violation: rollback` the whole run is one
   * transaction that begins with a checkpoint of the workspace, so a
   * violation (or a crash) puts every file back as it was.
   */
  static start(options: ToolRunnerOptions): ToolRunner {
    const runner = new ToolRunner(options);
    if (options.config.constraints.on_violation === 'rollback') {
      runner.runTx = runner.transactions.begin({
        name: `run ${runner.runId}`,
        reason: 'headless run under on_violation: rollback',
        scope: 'workspace',
        onFailure: 'rollback',
      });
    }
    return runner;
  }

  get violation(): Violation | null {
    return this.violationValue;
  }

  /** running until a violation aborts it, task_completion ends it, its signal cancels it, or finish() is called. */
  get state(): 'running' | 'aborted' | 'completed' | 'cancelled' | 'finished' {
    if (this.summary) return 'finished';
    if (this.violationValue) return 'aborted';
    if (this.completed) return 'completed';
    return this.options.signal?.aborted ? 'cancelled' : 'running';
  }

  get calls(): readonly CallRecord[] {
    return this.records;
  }

  totals(): ConstraintTotals {
    return this.guard.totals();
  }

  /** Model token usage, for the agent loop: the usage that crosses max_tokens aborts the run. */
  recordUsage(tokens: number | { input?: number; output?: number }, site: CheckSite = {}): Violation | null {
    const n = typeof tokens === 'number' ? tokens : (tokens.input ?? 0) + (tokens.output ?? 0);
    const v = this.guard.recordTokens(n, site);
    this.emit({ type: 'usage', tokens: this.guard.totals().tokens_used });
    if (v) this.abort(v);
    return v;
  }

  async call(call: ToolCall): Promise<CallRecord> {
    const index = this.records.length;
    const started = performance.now();
    const tool = this.registry.get(call.tool);
    const site: CheckSite = { call: index, tool: call.tool };
    this.emit({ type: 'call-start', index, tool: call.tool });
    const finish = (record: Omit<CallRecord, 'index' | 'tool' | 'duration_ms' | 'tokens'>): CallRecord => {
      const full: CallRecord = { index, tool: call.tool, duration_ms: round3(performance.now() - started), tokens: call.tokens ?? 0, ...record };
      this.records.push(full);
      const statsOutcome = full.status === 'ok' ? 'ok' : full.status === 'failed' ? 'failed' : 'refused';
      addTiming((this.stats[call.tool] ??= emptyToolStats()), full.duration_ms, statsOutcome);
      this.log(full);
      this.emit({ type: 'call-end', record: full });
      return full;
    };
    const refused = (v: Violation): CallRecord => {
      this.abort(v);
      return finish({ ...emptyChange(), status: 'refused', ok: false, output: `${v.message}\nhint: ${v.hint}`, error: { code: ErrorCode.CONSTRAINT, message: v.message, hint: v.hint }, violation: v });
    };

    const state = this.state;
    if (state !== 'running') {
      const why =
        state === 'aborted' && this.violationValue
          ? `the run was aborted by a ${this.violationValue.type} violation`
          : state === 'cancelled'
            ? 'the run was cancelled (interrupted); the work done so far is kept'
            : state === 'finished'
              ? 'the run has finished'
              : 'the task was already marked complete';
      const error = { code: ToolErrorCode.RUN_ENDED, message: `No more tool calls run: ${why}.`, hint: 'Start a new run.' };
      return finish({ ...emptyChange(), status: 'refused', ok: false, output: `${error.code}: ${error.message}`, error });
    }
    if (call.signal?.aborted) return finish(cancelledRecord('call-cancelled', tool?.name ?? call.tool, false));

    // 1. Budget and deadline, before anything else happens.
    if (call.tokens !== undefined) {
      const v = this.guard.recordTokens(call.tokens, site);
      this.emit({ type: 'usage', tokens: this.guard.totals().tokens_used });
      if (v) return refused(v);
    }
    const late = this.guard.checkTime(site);
    if (late) return refused(late);

    // 2. The tool: known, allowed, and (headless) not one that needs a person.
    if (!tool) {
      const error = {
        code: ToolErrorCode.UNKNOWN_TOOL,
        message: `There is no tool named ${JSON.stringify(call.tool)}.`,
        hint: `Available tools: ${this.registry.names().join(', ')}.`,
      };
      return finish({ ...emptyChange(), status: 'failed', ok: false, output: formatRefusal(error), error });
    }
    const restricted = this.guard.checkTool(tool.name, site);
    if (restricted) return refused(restricted);

    // 3. Arguments.
    const parsed = (tool.schema as z.ZodType).safeParse(call.args ?? {});
    if (!parsed.success) {
      const error = argumentError(tool, parsed.error);
      return finish({ ...emptyChange(), status: 'failed', ok: false, output: formatRefusal(error), error });
    }
    const args: unknown = parsed.data;

    // One signal for the tool: the deadline, the run's cancellation or this call's, whichever comes first.
    const controller = new AbortController();
    const stop = (cause: StopCause) => () => {
      if (!controller.signal.aborted) controller.abort(new CallStop(cause));
    };
    const onRunCancel = stop('run-cancelled');
    const onCallCancel = stop('call-cancelled');
    this.options.signal?.addEventListener('abort', onRunCancel, { once: true });
    call.signal?.addEventListener('abort', onCallCancel, { once: true });
    const stoppedBy = (): StopCause | null => (controller.signal.reason instanceof CallStop ? controller.signal.reason.stop : null);
    const ctx: ToolContext = {
      ws: this.ws,
      config: this.config,
      mode: this.mode,
      call: index,
      signal: controller.signal,
      remainingMs: () => this.guard.remainingMs(),
      runDir: this.runDir,
      apply: this.options.apply ?? {},
      ...(this.options.interaction ? { interaction: this.options.interaction } : {}),
    };
    let deadline = setTimeout(stop('deadline'), Math.max(0, this.guard.remainingMs()));
    try {
      // 4. Write tools: the real diff, gated before anything is written.
      let approval: ApprovalRequest = { call: index, tool: tool.name, kind: tool.kind, args };
      let planned: FileChange[] | null = null;
      if (tool.kind === 'write') {
        if (!tool.plan) throw new Error(`write tool ${tool.name} has no plan()`);
        const plan = await tool.plan(args, ctx);
        if (!plan.ok) {
          // Headless: a write to a denied pattern (.git/** included, which the workspace itself refuses) is the ADR's Pattern violation, not a tool failure the run goes on from.
          const refusedPath = this.mode === 'headless' ? plan.result.error?.path : undefined;
          const denied = refusedPath ? this.guard.checkPath(refusedPath, site) : null;
          if (denied) return refused(denied);
          return finish({ ...resultFields(plan.result), ...emptyChange(), status: 'failed' });
        }
        const v = this.guard.checkChanges(plan.changes, site);
        if (v) return refused(v);
        planned = plan.changes;
        approval = { ...approval, changes: plan.changes, diff: plan.diff };
      }

      // 5. Approval (interactive mode and MCP plug in here).
      // Waiting for a person is not agent time: the wait is not charged to the timeout, and the deadline is re-armed after it.
      clearTimeout(deadline);
      const waitStarted = performance.now();
      const decision = await (this.options.approve ?? approveAll)(approval);
      this.guard.recordWait(performance.now() - waitStarted);
      deadline = setTimeout(stop('deadline'), Math.max(0, this.guard.remainingMs()));
      if (!decision.approved) {
        const error = { code: ToolErrorCode.DECLINED, message: `The ${tool.name} call was declined${decision.reason ? `: ${decision.reason}` : '.'}`, hint: 'Do something else, or ask what would be acceptable.' };
        return finish({ ...emptyChange(), status: 'declined', ok: false, output: formatRefusal(error), error });
      }
      // Cancelled while it was planned or waited for approval: nothing has run yet, so nothing runs.
      const early = stoppedBy();
      if (early === 'run-cancelled' || early === 'call-cancelled') return finish(cancelledRecord(early, tool.name, false));

      // 6. Execute, stopped at the deadline.
      const mark = tool.kind === 'command' ? this.effects.before(`${tool.name} (call ${index + 1} of run ${this.runId})`) : null;
      const result = await this.runUntilDeadline(tool.execute(args, ctx), controller.signal);
      const cause = stoppedBy();
      const timedOut = cause === 'deadline';
      const cancelled = cause === 'run-cancelled' || cause === 'call-cancelled' ? cause : null;

      // 7. Charge what changed.
      let changes: FileChange[] = [];
      let violation: Violation | null = null;
      if (mark) {
        const effects = this.effects.after(mark);
        changes = effects.changes;
        violation = this.guard.checkChanges(changes, site, false);
        if (effects.governing.length > 0) {
          // .git/ and the config: charged as changed files and a violation whatever the limits say (the change is already undone).
          const notReverted = effects.governing.filter((g) => !g.reverted).map((g) => g.path);
          violation = this.guard.governingChanged(effects.governing.map((g) => g.path), notReverted, site);
          changes = [...changes, ...effects.governing.map((g) => ({ path: g.path, added: g.change === 'deleted' ? 0 : 1, removed: g.change === 'added' ? 0 : 1 }))];
        }
        this.charge(changes, tool.name);
      } else if (result?.changes) {
        changes = result.changes;
        const unplanned = changes.filter((c) => !planned?.some((p) => p.path === c.path));
        this.charge(changes, tool.name);
        violation = unplanned.map((c) => this.guard.checkPath(c.path, site, false)).find((x) => x !== null) ?? this.guard.checkChanges([], site, false);
      }
      // A cancelled call is charged for what it changed, but a person stopping it is no timeout.
      if (!violation && !cancelled && (timedOut || !result)) violation = this.guard.timeoutDuringCall(site);
      // The deadline after a call that changed nothing; a call that wrote is never turned into a refusal after the fact (the next call's check stops the run).
      if (!violation && !cancelled && changes.length === 0) violation = this.guard.checkTime(site);
      // What was written stays said: a violation found after the write did not prevent it.
      if (violation && changes.length > 0) violation = { ...violation, prevented: false };
      if (result?.ok && result.endsRun && !cancelled) this.completed = true;

      const fields = result ? resultFields(result) : { ok: false, output: 'The call did not stop at the deadline.' };
      const record = {
        ...fields,
        // A write tool's applied change is not shown as refused (a command's after-the-fact violation keeps its label; its violation says prevented: false).
        status: (violation && (changes.length === 0 || mark) ? 'refused' : result?.ok ? 'ok' : 'failed') as CallStatus,
        files: changes.map((c) => c.path),
        lines_added: sum(changes, 'added'),
        lines_removed: sum(changes, 'removed'),
      };
      if (violation) {
        this.abort(violation);
        return finish({ ...record, ok: false, violation, error: { code: ErrorCode.CONSTRAINT, message: violation.message, hint: violation.hint } });
      }
      if (cancelled) {
        const stopped = cancelledRecord(cancelled, tool.name, true);
        const output = result ? `${fields.output}\n${stopped.output}` : stopped.output;
        return finish({ ...record, ...stopped, output, files: record.files, lines_added: record.lines_added, lines_removed: record.lines_removed, ...(fields.data !== undefined ? { data: fields.data } : {}) });
      }
      return finish(record);
    } catch (error) {
      const info = toErrorInfo(error);
      return finish({ ...emptyChange(), status: 'failed', ok: false, output: formatRefusal(info), error: info });
    } finally {
      clearTimeout(deadline);
      this.options.signal?.removeEventListener('abort', onRunCancel);
      call.signal?.removeEventListener('abort', onCallCancel);
    }
  }

  /**
   * Ends the run: rolls it back if a violation happened under
   * `on_violation: rollback`, otherwise keeps the changes; writes
   * metrics.json (and the violation report). Idempotent.
   */
  finish(): RunSummary {
    if (this.summary) return this.summary;
    const v = this.violationValue;
    let rollback: RollbackResult | null = null;
    let outcome: RunMetrics['outcome'] = 'kept';
    let note: string | undefined;
    if (this.runTx && this.runTx.state === 'open') {
      if (v && this.config.constraints.on_violation === 'rollback') {
        try {
          rollback = this.runTx.rollback();
          outcome = 'rolled-back';
        } catch (error) {
          // The journal still names the run's checkpoints: the next command in this root rolls it back.
          note = `Rolling back failed (${toErrorInfo(error).message}); the next editwarden command in this root finishes the rollback.`;
          outcome = 'open';
        }
      } else {
        this.runTx.commit();
      }
    }
    const metrics = buildMetrics({
      runId: this.runId,
      status: v ? 'failed' : this.completed ? 'completed' : 'finished',
      mode: this.mode,
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      outcome,
      config: this.config.constraints,
      totals: this.guard.totals(),
      violations: v ? [v] : [],
      tools: this.stats,
      calls: this.records.length,
      files: this.guard.changedFiles().map((f) => ({ ...f, by: [...(this.fileTools.get(f.path) ?? [])] })),
    });
    const reports: RunSummary['reports'] = {};
    if (this.runDir) {
      reports.metrics = writeMetrics(this.runDir, metrics);
      if (v) {
        const calls: ReportCall[] = this.records.map((r) => ({
          index: r.index,
          tool: r.tool,
          status: r.status,
          files: r.files,
          ...(r.error ? { error: `${r.error.code}: ${r.error.message}` } : {}),
        }));
        const written = writeViolationReport(this.runDir, {
          violation: v,
          metrics,
          calls,
          rollback: rollback ? { written: rollback.written, removed: rollback.removed } : null,
          ...(note ? { error: note } : {}),
        });
        reports.violationMarkdown = written.markdown;
        reports.violationJson = written.json;
      }
    }
    this.summary = { runId: this.runId, runDir: this.runDir, status: metrics.status, violation: v, metrics, calls: [...this.records], rollback, reports };
    return this.summary;
  }

  private abort(v: Violation): void {
    if (this.violationValue) return;
    this.violationValue = v;
    this.emit({ type: 'violation', violation: v });
  }

  private charge(changes: FileChange[], tool: string): void {
    this.guard.recordChanges(changes);
    for (const c of changes) {
      const set = this.fileTools.get(c.path) ?? new Set<string>();
      set.add(tool);
      this.fileTools.set(c.path, set);
    }
  }

  /** The tool's promise, or undefined if it has not settled `stopGraceMs` after the deadline (it is abandoned). */
  private async runUntilDeadline(work: Promise<ToolResult>, signal: AbortSignal): Promise<ToolResult | undefined> {
    const grace = this.options.stopGraceMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<undefined>((resolve) => {
      onAbort = () => {
        timer = setTimeout(() => resolve(undefined), grace);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, gaveUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  private log(record: CallRecord): void {
    if (!this.runDir) return;
    const { data: _data, ...rest } = record;
    const line = { ...rest, output: record.output.length > MAX_LOGGED_OUTPUT ? `${record.output.slice(0, MAX_LOGGED_OUTPUT)}…` : record.output };
    try {
      fs.appendFileSync(path.join(this.runDir, 'calls.jsonl'), `${JSON.stringify(line)}\n`);
    } catch {
      // The log is evidence, not function: a full disk must not fail the call.
    }
  }

  private emit(event: RunnerEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A display callback must not break the run it displays.
    }
  }
}

/**
 * The record of a cancelled call: E_RUN_ENDED when the run was cancelled
 * (the run takes no more calls), E_ABORTED when only this call was.
 */
function cancelledRecord(cause: 'run-cancelled' | 'call-cancelled', tool: string, started: boolean): Omit<CallRecord, 'index' | 'tool' | 'duration_ms' | 'tokens'> {
  const what = started ? `${tool} was stopped` : `${tool} did not run`;
  const error: ToolError =
    cause === 'run-cancelled'
      ? { code: ToolErrorCode.RUN_ENDED, message: `The run was cancelled (interrupted): ${what}.`, hint: 'The work done so far is kept; start a new run to go on.' }
      : { code: ErrorCode.CANCELLED, message: `The call was cancelled by the client: ${what}.`, hint: 'Call it again if it is still wanted.' };
  return { ...emptyChange(), status: cause === 'run-cancelled' ? 'refused' : 'failed', ok: false, output: formatRefusal(error), error };
}

function emptyChange(): Pick<CallRecord, 'files' | 'lines_added' | 'lines_removed'> {
  return { files: [], lines_added: 0, lines_removed: 0 };
}

function resultFields(result: ToolResult): Pick<CallRecord, 'ok' | 'output' | 'data' | 'error'> {
  const out: Pick<CallRecord, 'ok' | 'output' | 'data' | 'error'> = { ok: result.ok, output: result.output };
  if (result.data !== undefined) out.data = result.data;
  if (result.error !== undefined) out.error = result.error;
  return out;
}

function sum(changes: FileChange[], key: 'added' | 'removed'): number {
  let n = 0;
  for (const c of changes) n += c[key];
  return n;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** E_PARSE naming the field, with the tool's fields in the hint. */
function argumentError(tool: AnyTool, error: z.ZodError): ToolError {
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
