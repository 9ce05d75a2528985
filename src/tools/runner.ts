/**
 * The ToolRunner: every tool call of a run — from `editwarden exec`, the
 * agent loop or MCP — goes through `call()`, which owns the life-cycle:
 *
 *   gate      deadline, budget, tool allowed, arguments valid
 *   plan      the tool's prepare() → an Invocation; write tools: the real
 *             diff, checked against the constraints before anything is written
 *   approve   the approval hook sees the invocation's changes and diff
 *   execute   invocation.run(), stopped at the deadline or a cancellation
 *   charge    what changed (commands: the workspace before and after)
 *   record    the CallRecord, calls.jsonl (runs/records.ts), the events
 *
 * Each step is one small method below; a step that ends the call returns
 * an `Ended` with the call's fields, and the call is recorded from it.
 *
 * A constraint violation aborts the run at once: no later call runs, and
 * `finish()` settles the run (runs/run.ts: its profile's failure policy keeps the partial work or rolls the whole run
 * back), then writes metrics.json (once, with the mode's outcome) and the violation report into the run folder. Every recorded call and the run's end also go to the root's event log
 * (call-events.ts). Tools hold none of this logic; the runner never writes a project file itself.
 *
 * Cancellation. The run's signal cancels it (Ctrl-C in `editwarden
 * run`): the running call is stopped at once (a command's whole process
 * group is killed) and every later call is refused with E_RUN_ENDED. It is
 * not a violation: the work done so far is kept and `finish()` commits it.
 * `call.signal` cancels one call only (an MCP client cancelling a request);
 * the run goes on.
 */
import type { Config } from '../config/config.js';
import { toErrorInfo } from '../errors.js';
import { CommandEffects } from '../guard/command-effects.js';
import type { CheckSite, ConstraintGuard, ConstraintTotals, FileChange } from '../guard/constraints.js';
import type { Attendance } from '../config/modes.js';
import { addTiming, buildMetrics, emptyToolStats, type ToolStats } from '../runs/metrics.js';
import type { Violation } from '../guard/violations.js';
import { finishedStatus, type RunClosing, type RunnerState } from '../runs/outcome.js';
import { appendCallRecord, writeRunRecords } from '../runs/records.js';
import { ensureRunDir } from '../runs/runs.js';
import { Run } from '../runs/run.js';
import { runLimits, type Ledger } from '../runs/ledger.js';
import { transactionsOf, type TransactionLayer } from '../workspace/transaction.js';
import type { FileView } from '../workspace/view.js';
import { CallEventLog, isRecorder } from './call-events.js';
import { CallSignal, settleOrAbandon } from './call-signal.js';
import {
  approveAll,
  argumentError,
  cancelledFields,
  declinedFields,
  emptyChange,
  endedWith,
  refusedBy,
  resultFields,
  runEndedFields,
  noLayer,
  runnerParts,
  unknownToolFields,
  violationError,
  type ApprovalRequest,
  type CallFields,
  type CallRecord,
  type CallStatus,
  type RunnerEvent,
  type RunSummary,
  type ToolCall,
  type ToolRunnerOptions,
  type ToolRunnerStart,
} from './calls.js';
import { ToolRegistry } from './registry.js';
import { confirmClientCommit } from './client-commit.js';
import { configUnder, runProfile, type RunProfile } from '../runs/profile.js';
import { prepareCall, type AnyTool, type Invocation, type StopCause, type ToolContext, type ToolResult } from './types.js';
import { chargeClientCommand, chargeCommand, commandMark, type CommandCall, type CommandCharge } from './command-charge.js';

export * from './calls.js';

/** A step that ends the call: the fields it is recorded with. */
class Ended {
  constructor(readonly fields: CallFields) {}
}

/** One call on its way through the steps. */
interface CallScope {
  readonly call: ToolCall;
  readonly index: number;
  readonly started: number;
  readonly site: CheckSite;
}

/** What execute() leaves for charge(): the result (undefined: abandoned at the deadline) and what stopped it. */
interface Execution {
  result: ToolResult | undefined;
  cause: StopCause | null;
  /** Commands: the workspace state before, to compare with after. */
  mark: ReturnType<CommandEffects['before']> | null;
}

export class ToolRunner {
  readonly runId: string;
  readonly runDir: string | null;
  /** The run's ledger (runs/ledger.ts): what the run changed, counted against its limits. */
  private readonly ledger: Ledger;
  readonly guard: ConstraintGuard;
  readonly registry: ToolRegistry;
  /** The view every call of the run reads and writes (an overlay in a dry run). */
  readonly ws: FileView;
  private readonly config: Config;
  /** Whether a person is there: the profile's approval policy says. */
  private readonly mode: Attendance;
  readonly profile: RunProfile;
  /** The run this runner serves: its id, profile, signal and the transaction it settles in finish(). */
  readonly run: Run;
  private readonly options: ToolRunnerOptions;
  private readonly transactions: TransactionLayer;
  private readonly effects: CommandEffects;
  private readonly eventLog: CallEventLog | null;
  private readonly startedAt = new Date().toISOString();
  private readonly records: CallRecord[] = [];
  private readonly stats: Record<string, ToolStats> = {};
  private readonly fileTools = new Map<string, Set<string>>();
  private violationValue: Violation | null = null;
  private completed = false;
  private summary: RunSummary | null = null;

  private constructor(options: ToolRunnerOptions) {
    this.options = options;
    this.ws = options.ws;
    this.run = options.run ?? new Run({ profile: runProfile('headless', { config: options.config }) });
    this.profile = this.run.profile;
    // The limits of the run's mode (profile.ts): an interactive session's caps are only those the config set.
    this.config = configUnder(options.config, this.profile);
    this.registry = new ToolRegistry(options.tools);
    this.transactions = options.transactions ?? transactionsOf(options.ws) ?? noLayer();
    // The limits of the run's mode, and where each was set (the profile knows when the config's layers were read): a refusal names the file.
    this.ledger = this.run.ledger(runLimits(options.config, this.profile, options.timing?.now), { stateDir: options.ws.stateDir, lock: this.transactions.checkpoints.lock });
    this.guard = this.ledger.guard;
    this.mode = this.guard.mode;
    this.runId = this.run.id;
    this.runDir = options.artifacts === false ? null : ensureRunDir(options.ws, this.runId);
    this.effects = new CommandEffects(this.transactions.checkpoints, this.config);
    this.eventLog = CallEventLog.for(options, this.profile, this.runId, this.runDir, this.transactions.checkpoints);
  }

  /**
   * Starts a run and opens its transaction as its failure policy wants it (runs/run.ts): under `rollback` the
   * whole run is one transaction that begins with a checkpoint of the workspace, so a violation (or a crash)
   * puts every file back as it was. A run its mode opens itself (controlled mode, at its one edit) is left to it.
   * `{ project, run, toolset }`: the opened project whole (the deprecated form of its pieces is still taken).
   */
  static start(options: ToolRunnerStart | ToolRunnerOptions): ToolRunner {
    const runner = new ToolRunner(runnerParts(options));
    if (runner.run.opener === 'runner') runner.run.open(runner.transactions, { name: `run ${runner.runId}`, reason: `${runner.profile.mode} run under failure policy ${runner.profile.failure}` });
    return runner;
  }

  get violation(): Violation | null {
    return this.violationValue;
  }

  /** running until a violation aborts it, task_completion ends it, its signal cancels it, or finish() is called. */
  get state(): RunnerState {
    if (this.summary) return 'finished';
    if (this.violationValue) return 'aborted';
    if (this.completed) return 'completed';
    return this.run.signal?.aborted ? 'cancelled' : 'running';
  }

  get calls(): readonly CallRecord[] {
    return this.records;
  }

  totals(): ConstraintTotals {
    return this.guard.totals();
  }

  /** The confirm step of a client-committed native edit (its PostToolUse): what landed since its checkpoint, made an undo step. */
  confirm(checkpoint: string): ReturnType<typeof confirmClientCommit> {
    return confirmClientCommit(this.transactions.checkpoints, checkpoint);
  }

  /** The violation `changes` would make in the run's ledger now (a preview says it); nothing is recorded. */
  wouldViolate(changes: readonly FileChange[]): Violation | null {
    return this.ledger.check(changes, {});
  }

  /** Model token usage, for the agent loop: the usage that crosses max_tokens aborts the run. */
  recordUsage(tokens: number | { input?: number; output?: number }, site: CheckSite = {}): Violation | null {
    const n = typeof tokens === 'number' ? tokens : (tokens.input ?? 0) + (tokens.output ?? 0);
    const v = this.guard.recordTokens(n, site);
    this.emit({ type: 'usage', tokens: this.guard.totals().tokens_used });
    if (v) this.abort(v);
    return v;
  }

  /** One call through every step; it never throws: every failure is a record. */
  async call(call: ToolCall): Promise<CallRecord> {
    const index = this.records.length;
    const scope: CallScope = { call, index, started: performance.now(), site: { call: index, tool: call.tool } };
    this.emit({ type: 'call-start', index, tool: call.tool });
    const gated = this.gate(scope);
    if (gated instanceof Ended) return this.record(scope, gated.fields);
    const stop = new CallSignal(() => this.guard.remainingMs(), this.run.signal, call.signal);
    try {
      return this.record(scope, await this.invoke(scope, gated.tool, gated.args, stop));
    } catch (error) {
      return this.record(scope, endedWith(toErrorInfo(error)));
    } finally {
      stop.dispose();
    }
  }

  /** The steps after the gate: plan, approve, execute, charge. */
  private async invoke(scope: CallScope, tool: AnyTool, args: unknown, stop: CallSignal): Promise<CallFields> {
    const invocation = await this.plan(scope, tool, args, this.contextFor(scope.index, stop.signal, scope.call.sink));
    if (invocation instanceof Ended) return invocation.fields;
    const declined = await this.approve(scope, tool, args, invocation, stop);
    if (declined) return declined.fields;
    // Cancelled while it was planned or waited for approval: nothing has run yet, so nothing runs.
    const early = stop.stoppedBy();
    if (early === 'run-cancelled' || early === 'call-cancelled') return cancelledFields(early, tool.name, false);
    return this.charge(scope, tool, invocation, await this.execute(scope, tool, invocation, stop));
  }

  /** Run state, cancellation, budget and deadline, the tool (known, allowed) and its arguments: before anything happens. */
  private gate(scope: CallScope): Ended | { tool: AnyTool; args: unknown } {
    const { call, site } = scope;
    if (this.state !== 'running') return new Ended(runEndedFields(this.state, this.violationValue));
    const tool = this.registry.get(call.tool);
    if (call.signal?.aborted) return new Ended(cancelledFields('call-cancelled', tool?.name ?? call.tool, false));
    if (call.tokens !== undefined) {
      const v = this.guard.recordTokens(call.tokens, site);
      this.emit({ type: 'usage', tokens: this.guard.totals().tokens_used });
      if (v) return this.refuse(v);
    }
    const late = this.guard.checkTime(site);
    if (late) return this.refuse(late);
    if (!tool) return new Ended(unknownToolFields(call.tool, this.registry.names()));
    // Headless: a tool that needs a person is refused here too.
    const restricted = this.guard.checkTool(tool.name, site, tool.kind === 'interactive');
    if (restricted) return this.refuse(restricted);
    const parsed = tool.schema.safeParse(call.args ?? {});
    if (!parsed.success) return new Ended(endedWith(argumentError(tool, parsed.error)));
    return { tool, args: parsed.data as unknown };
  }

  /** The tool's invocation; for a write, its real diff gated on the constraints before anything is written. */
  private async plan(scope: CallScope, tool: AnyTool, args: unknown, ctx: ToolContext): Promise<Invocation | Ended> {
    const prepared = await prepareCall(tool, args, ctx);
    if (!prepared.ok) {
      // Headless: a write to a denied pattern (.git/** included, which the workspace itself refuses) is the ADR's Pattern violation, not a tool failure the run goes on from.
      const refusedPath = this.mode === 'headless' ? prepared.result.error?.path : undefined;
      const denied = refusedPath ? this.guard.checkPath(refusedPath, scope.site) : null;
      if (denied) return this.refuse(denied);
      return new Ended({ ...resultFields(prepared.result), ...emptyChange(), status: 'failed' });
    }
    if (tool.kind !== 'write') return prepared.invocation;
    const { changes, committer } = prepared.invocation;
    // A write the client commits (tools/client-commit.ts) is charged as it is admitted: the client writes after the answer, out of sight.
    const v = committer === 'client' ? this.ledger.charge(changes, scope.site) : this.ledger.check(changes, scope.site);
    return v ? this.refuse(v) : prepared.invocation;
  }

  /**
   * The approval hook (interactive mode and MCP plug in here) sees what the
   * invocation would change. Waiting for a person is not agent time: the
   * deadline is paused while it waits and re-armed after.
   */
  private async approve(scope: CallScope, tool: AnyTool, args: unknown, invocation: Invocation, stop: CallSignal): Promise<Ended | null> {
    const request: ApprovalRequest = {
      call: scope.index,
      tool: tool.name,
      kind: tool.kind,
      args,
      ...(tool.kind === 'write' ? { changes: [...invocation.changes], diff: invocation.diff } : {}),
    };
    stop.pause();
    const waitStarted = performance.now();
    const decision = await (this.options.approve ?? approveAll)(request);
    this.guard.recordWait(performance.now() - waitStarted);
    stop.arm();
    return decision.approved ? null : new Ended(declinedFields(tool.name, decision.reason));
  }

  /** Runs the invocation, stopped at the deadline (a command's effects are measured from a mark taken just before). */
  private async execute(scope: CallScope, tool: AnyTool, invocation: Invocation, stop: CallSignal): Promise<Execution> {
    const mark = tool.kind === 'command' ? commandMark(this.effects, this.commandCall(scope, tool)) : null;
    const result = await settleOrAbandon(invocation.run(), stop.signal, this.options.timing?.stopGraceMs ?? 10_000);
    return { result, cause: stop.stoppedBy(), mark };
  }

  /** Charges what the call changed, finds the violation it made (if any), and says how the call ended. */
  private charge(scope: CallScope, tool: AnyTool, invocation: Invocation, ran: Execution): CallFields {
    const { result, cause, mark } = ran;
    const cancelled = cause === 'run-cancelled' || cause === 'call-cancelled' ? cause : null;
    const measured = mark ? this.chargeCommand(scope, tool, mark, result) : this.chargeWrites(result, invocation, tool.name, scope.site);
    const { changes } = measured;
    let violation = measured.violation;
    // A cancelled call is charged for what it changed, but a person stopping it is no timeout.
    if (!violation && !cancelled && (cause === 'deadline' || !result)) violation = this.guard.timeoutDuringCall(scope.site);
    // The deadline after a call that changed nothing; a call that wrote is never turned into a refusal after the fact (the next call's check stops the run).
    if (!violation && !cancelled && changes.length === 0) violation = this.guard.checkTime(scope.site);
    // What was written stays said: a violation found after the write did not prevent it.
    if (violation && changes.length > 0) violation = { ...violation, prevented: false };
    if (result?.ok && result.endsRun && !cancelled) this.completed = true;

    const ran0 = result ? resultFields(result) : { ok: false, output: 'The call did not stop at the deadline.' };
    // Ignored files the command changed that undo cannot bring back (ignored.ts): named in its result, never silently missing.
    const fields = measured.notKept ? { ...ran0, output: `${ran0.output}\n[editwarden] ${measured.notKept}` } : ran0;
    const record: CallFields = {
      ...fields,
      ...(measured.effects ? { effects: measured.effects } : {}),
      // A write tool's applied change is not shown as refused (a command's after-the-fact violation keeps its label; its violation says prevented: false).
      status: (violation && (changes.length === 0 || mark) ? 'refused' : result?.ok ? 'ok' : 'failed') as CallStatus,
      files: changes.map((c) => c.path),
      lines_added: changes.reduce((n, c) => n + c.added, 0),
      lines_removed: changes.reduce((n, c) => n + c.removed, 0),
    };
    if (violation) {
      this.abort(violation);
      return { ...record, ok: false, violation, error: violationError(violation) };
    }
    // A client's refusal (the session's ledger, the protected set): this call is refused, the session goes on.
    if (measured.refusal) return { ...record, status: 'refused', ok: false, error: measured.refusal };
    if (!cancelled) return record;
    const stopped = cancelledFields(cancelled, tool.name, true);
    const output = result ? `${fields.output}\n${stopped.output}` : stopped.output;
    return { ...record, ...stopped, output, files: record.files, lines_added: record.lines_added, lines_removed: record.lines_removed, ...(fields.data !== undefined ? { data: fields.data } : {}) };
  }

  /** A command: what it changed in the workspace, charged to the run's ledger — a client's, after the fact (command-charge.ts). */
  private chargeCommand(scope: CallScope, tool: AnyTool, mark: NonNullable<Execution['mark']>, result: ToolResult | undefined): CommandCharge {
    const call = this.commandCall(scope, tool);
    if (call.client) return chargeClientCommand(this.effects, this.ledger, mark, { ...call, client: call.client }, result, this.ws.root);
    const measured = chargeCommand(this.effects, this.ledger, mark, scope.site, result);
    this.chargeFiles(measured.changes, tool.name);
    return measured;
  }

  /** A command call as the charge names it: the caller's name for the tool (a client's `Bash`), and the client whose Run this is. */
  private commandCall(scope: CallScope, tool: AnyTool): CommandCall {
    return { tool: scope.call.shownAs ?? tool.name, args: scope.call.args, runId: this.runId, index: scope.index, client: this.run.client, session: this.run.session?.session ?? null, sunk: scope.call.sink !== undefined };
  }

  /** A write: what its result says it changed; a file the plan did not show is checked against the patterns after the fact. */
  private chargeWrites(result: ToolResult | undefined, invocation: Invocation, tool: string, site: CheckSite): Pick<CommandCharge, 'changes' | 'violation'> & Partial<CommandCharge> {
    if (!result?.changes) return { changes: [], violation: null };
    const changes = result.changes;
    const unplanned = changes.filter((c) => !invocation.changes.some((p) => p.path === c.path));
    this.chargeFiles(changes, tool, invocation.committer === 'client');
    const violation = unplanned.map((c) => this.guard.checkPath(c.path, site, false)).find((x) => x !== null) ?? this.ledger.check([], site, false);
    return { changes, violation };
  }

  /** The call's record: kept, timed, logged to calls.jsonl and shown. */
  private record(scope: CallScope, fields: CallFields): CallRecord {
    const full: CallRecord = { index: scope.index, tool: scope.call.tool, duration_ms: round3(performance.now() - scope.started), tokens: scope.call.tokens ?? 0, ...fields };
    this.records.push(full);
    const statsOutcome = full.status === 'ok' ? 'ok' : full.status === 'failed' ? 'failed' : 'refused';
    addTiming((this.stats[full.tool] ??= emptyToolStats()), full.duration_ms, statsOutcome);
    if (this.runDir) appendCallRecord(this.runDir, full);
    // A caller's own recorder (a client's hook record), else the root's event log.
    if (isRecorder(this.options.events)) this.options.events.call(full, scope.call.args);
    else this.eventLog?.call(full, this.registry.get(full.tool)?.kind, scope.call.args);
    this.emit({ type: 'call-end', record: full });
    return full;
  }

  /** A constraint refused the call: the run is aborted. */
  private refuse(v: Violation): Ended {
    this.abort(v);
    return new Ended(refusedBy(v));
  }

  private contextFor(call: number, signal: AbortSignal, sink: ToolCall['sink']): ToolContext {
    return {
      ws: this.ws,
      config: this.config,
      mode: this.mode,
      call,
      signal,
      remainingMs: () => this.guard.remainingMs(),
      runDir: this.runDir,
      apply: this.options.apply ?? {},
      ...(this.options.interaction ? { interaction: this.options.interaction } : {}),
      ...(sink ? { sink } : {}),
    };
  }

  /**
   * Ends the run: settles it by its profile's failure policy (a violation
   * under `rollback` puts every file back; runs/run.ts); writes
   * metrics.json — once, with `closing` (the mode's outcome and its own
   * sections) when given — and the violation report. Idempotent: a later
   * call returns the same summary and writes nothing.
   */
  finish(closing?: RunClosing): RunSummary {
    if (this.summary) return this.summary;
    const v = this.violationValue;
    // Success is the mode's verdict when it gives one (its outcome's exit code), otherwise: no violation.
    const settled = this.run.settle({ violated: v !== null, succeeded: closing ? closing.outcome.exit_code === 0 : v === null });
    const metrics = buildMetrics({
      runId: this.runId,
      status: finishedStatus(v !== null, this.completed),
      mode: this.mode,
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      outcome: settled.outcome,
      config: this.config.constraints,
      totals: this.guard.totals(),
      violations: v ? [v] : [],
      tools: this.stats,
      calls: this.records.length,
      files: this.guard.changedFiles().map((f) => ({ ...f, by: [...(this.fileTools.get(f.path) ?? [])] })),
    });
    const reports = this.runDir ? writeRunRecords(this.runDir, { metrics, closing, violation: v, calls: this.records, rollback: settled.rollback, note: settled.note }) : {};
    this.eventLog?.end(metrics, closing);
    this.summary = { runId: this.runId, runDir: this.runDir, status: metrics.status, violation: v, metrics, calls: [...this.records], rollback: settled.rollback, reports };
    return this.summary;
  }

  private abort(v: Violation): void {
    if (this.violationValue) return;
    this.violationValue = v;
    this.emit({ type: 'violation', violation: v });
  }

  /** `admitted`: already charged as the plan was admitted (a client-committed write). */
  private chargeFiles(changes: FileChange[], tool: string, admitted = false): void {
    if (!admitted) this.ledger.record(changes);
    for (const c of changes) {
      const set = this.fileTools.get(c.path) ?? new Set<string>();
      set.add(tool);
      this.fileTools.set(c.path, set);
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

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
