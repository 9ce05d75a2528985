/**
 * The Editor session's state machine, as the host of the Editor's tools:
 * scouts (answered from the repository, recorded raw in the current context
 * snapshot), verification with the debug loop (counters, fix forward,
 * REPLAN with a new snapshot, the scouts re-queried only when the Editor
 * asks, hard stop), the hypotheses, and completion only on green. It decides nothing about the
 * model's turns (the agent loop does) and writes no project file except
 * its records through records.ts; verifications write only evidence.
 */
import type { Config } from '../../config/config.js';
import type { ToolRunner } from '../../tools/runner.js';
import type { ToolResult } from '../../tools/types.js';
import type { Transaction } from '../../workspace/transaction.js';
import type { FileView } from '../../workspace/view.js';
import type { ModelProvider } from '../providers/types.js';
import { afterVerification, attemptLines, HARD_STOP_AFTER, initialCounters, REPLAN_AFTER, type DebugCounters, type LoopDecision } from './counters.js';
import type { ContextRecorder, ScoutRecord } from './context.js';
import type { FileSource } from './file-source.js';
import { scoutCodebase, type CodebasePayload } from '../scouts/codebase.js';
import { interpretRun, scoutEnvironment, summarizeVerification, type EnvironmentPayload, type ToolVersion } from '../scouts/environment.js';
import type { HypothesisEntry, VerificationEntry } from './state.js';
import type { EditorHost } from './tools.js';
import { describeSteps, firstErrors, nothingToVerify, runVerification, verificationCommands, type Verification } from './verification.js';
import { appendAll } from '../../arrays.js';

export type EditorEvent =
  | { type: 'scout'; scout: 'codebase' | 'environment'; request: string }
  | { type: 'verify-start'; n: number; trigger: VerificationEntry['trigger'] }
  | { type: 'verify-end'; entry: VerificationEntry }
  | { type: 'replan'; strategy: number; context: string }
  | { type: 'context'; file: string }
  | { type: 'hard-stop'; reason: string };

export interface SessionDeps {
  runId: string;
  task: string;
  /** The workspace the Editor works in (the overlay's view in a dry run). */
  ws: FileView;
  config: Config;
  source: FileSource;
  recorder: ContextRecorder;
  dryRun: boolean;
  /** The scope section of every context snapshot (task + constraints), written once. */
  scope: string;
  scoutProvider?: ModelProvider;
  emit: (event: EditorEvent) => void;
  signal?: AbortSignal;
}

/** How much of a failing step's log goes back to the model. */
const TAIL_CHARS = 4000;

export class EditorSession implements EditorHost {
  counters: DebugCounters = initialCounters();
  strategy = 1;
  readonly verifications: VerificationEntry[] = [];
  readonly hypotheses: HypothesisEntry[] = [];
  greenRunId: string | null = null;
  /** Changes since the last green verification (true at the start: nothing is verified yet). */
  dirty = true;
  hardStop: string | null = null;
  blocked: string | null = null;
  completion: { summary: string; status: string } | null = null;
  environment: EnvironmentPayload | null = null;
  baselineRunId: string | null = null;
  runner: ToolRunner | null = null;
  /** The fix-forward transaction the writes join, when the session holds one. */
  tx: Transaction | null = null;
  /** Run ids of every verification this session started (the baseline and cancelled ones included): its evidence, which a cancel removes. */
  readonly evidenceRuns: string[] = [];
  private toolchain: ToolVersion[] | undefined;
  private pendingTokens = 0;

  constructor(readonly deps: SessionDeps) {}

  get dryRun(): boolean {
    return this.deps.dryRun;
  }

  // ---- scouts ---------------------------------------------------------------

  async codebase(query: string, paths?: string[], limit?: number): Promise<CodebasePayload> {
    this.deps.emit({ type: 'scout', scout: 'codebase', request: query });
    return scoutCodebase(this.deps.source, { query, ...(paths ? { paths } : {}), ...(limit ? { limit } : {}) });
  }

  async environmentScout(baseline: boolean | string): Promise<EnvironmentPayload> {
    this.deps.emit({ type: 'scout', scout: 'environment', request: baseline === true ? 'environment + baseline' : 'environment' });
    const { payload, baseline: run } = await scoutEnvironment(this.deps.ws, {
      config: this.deps.config,
      files: this.deps.source.files(),
      baseline,
      ...(this.toolchain ? { toolchain: this.toolchain } : {}),
      ...(this.deps.signal ? { signal: this.deps.signal } : {}),
    });
    this.toolchain = payload.toolchain;
    if (run) {
      this.baselineRunId = run.run_id;
      this.evidenceRuns.push(run.run_id);
    }
    if (!this.environment || run) this.environment = payload;
    return payload;
  }

  /** Records a payload raw in the current snapshot; with scouts.model, adds the model's summary for the Editor. */
  async recordPayload(record: ScoutRecord): Promise<string> {
    this.deps.recorder.record(record);
    return this.summarise(record.payload);
  }

  private async summarise(payload: unknown): Promise<string> {
    const raw = JSON.stringify(payload, null, 1);
    const provider = this.deps.scoutProvider;
    if (!provider) return raw;
    try {
      const turn = await provider.complete({
        system: 'You summarise a scout report for a coding agent in at most 12 lines. Keep every path, command, run_id and error message exact. No advice.',
        messages: [{ role: 'user', content: raw }],
        tools: [],
      });
      this.chargeTokens(turn.usage.input + turn.usage.output);
      return `Summary (scouts.model ${provider.id}):\n${turn.text.trim()}\n\nRaw payload:\n${raw}`;
    } catch {
      // A failing summariser must not cost the Editor its scout: the raw payload stands.
      return raw;
    }
  }

  private chargeTokens(n: number): void {
    if (this.runner) this.runner.recordUsage(n);
    else this.pendingTokens += n;
  }

  /** Charges scout-model tokens spent before the runner existed. */
  attachRunner(runner: ToolRunner): void {
    this.runner = runner;
    if (this.pendingTokens > 0) runner.recordUsage(this.pendingTokens);
    this.pendingTokens = 0;
  }

  async scoutCodebase(args: { query: string; paths?: string[] | undefined; limit: number }): Promise<ToolResult> {
    const payload = await this.codebase(args.query, args.paths, args.limit);
    const text = await this.recordPayload({ scout: 'codebase', request: `query ${JSON.stringify(args.query)}`, payload });
    return { ok: true, output: text, data: payload };
  }

  async scoutEnvironment(args: { run_id?: string | undefined; log_lines: number }): Promise<ToolResult> {
    if (args.run_id !== undefined) {
      this.deps.emit({ type: 'scout', scout: 'environment', request: `interpret ${args.run_id}` });
      const payload = interpretRun(this.deps.ws, args.run_id, args.log_lines);
      const text = await this.recordPayload({ scout: 'environment', request: `interpret run ${args.run_id}`, payload });
      return { ok: true, output: payload.steps.length === 0 ? `No verification evidence for run ${args.run_id}.` : text, data: payload };
    }
    const payload = await this.environmentScout(this.environment ? 'already recorded at the start of the session' : false);
    const full = this.environment && 'skipped' in payload.baseline ? { ...payload, baseline: this.environment.baseline } : payload;
    const text = await this.recordPayload({ scout: 'environment', request: 'environment', payload: full });
    return { ok: true, output: text, data: full };
  }

  recordHypothesis(args: { hypothesis: string; approach?: string | undefined }): ToolResult {
    this.hypotheses.push({ strategy: this.strategy, hypothesis: args.hypothesis, ...(args.approach ? { approach: args.approach } : {}), after_verification: this.verifications.length });
    return { ok: true, output: `Recorded for strategy ${this.strategy} (hypothesis ${this.hypotheses.length}).` };
  }

  /** A write happened: what is on disk is no longer what the last green verification saw. */
  markChanged(): void {
    this.dirty = true;
  }

  // ---- verification and the debug loop --------------------------------------

  /** One full verification, counted; null when the session was cancelled during it (not counted). */
  async verification(trigger: VerificationEntry['trigger'], signal?: AbortSignal): Promise<{ entry: VerificationEntry; run: Verification; context: string | null } | null> {
    const n = this.verifications.length + 1;
    this.deps.emit({ type: 'verify-start', n, trigger });
    const stop = anySignal(signal, this.deps.signal);
    let run: Verification | undefined;
    let thrown: unknown;
    const hook = async (): Promise<{ ok: boolean }> => {
      try {
        run = await runVerification(this.deps.ws, { config: this.deps.config, baseline: 'compare', ...(stop ? { signal: stop } : {}) });
        return { ok: run.passed };
      } catch (error) {
        thrown = error;
        return { ok: false };
      }
    };
    // Fix forward: the transaction stays open whatever the verdict (nothing is rolled back).
    if (this.tx && this.tx.state === 'open') await this.tx.verify(hook, 'fix-forward');
    else await hook();
    if (!run) throw thrown ?? nothingToVerify(this.deps.ws.root);
    this.evidenceRuns.push(run.run_id);
    if (stop?.aborted) return null;
    const step = afterVerification(this.counters, run.passed);
    this.counters = step.counters;
    const entry: VerificationEntry = {
      n,
      run_id: run.run_id,
      passed: run.passed,
      strategy: this.strategy,
      trigger,
      counters: { ...step.counters },
      reached: { ...step.reached },
      decision: step.decision.action,
      lines: describeSteps(run),
      first_errors: firstErrors(run),
    };
    this.verifications.push(entry);
    let context: string | null = null;
    switch (step.decision.action) {
      case 'green':
        this.greenRunId = run.run_id;
        this.dirty = false;
        break;
      case 'fix':
        break;
      case 'replan':
        context = await this.replan(run);
        break;
      case 'hard-stop':
        this.hardStop = `${HARD_STOP_AFTER} verification loops without a green one (hard stop)`;
        this.deps.emit({ type: 'hard-stop', reason: this.hardStop });
        break;
      default: {
        const never: never = step.decision;
        throw new Error(`unknown decision ${JSON.stringify(never)}`);
      }
    }
    this.deps.emit({ type: 'verify-end', entry });
    return { entry, run, context };
  }

  /**
   * REPLAN: a new strategy and a new snapshot; the scope stays. The scouts
   * are not re-queried here: the specification makes that the Editor's call
   * ("Optional Scout re-query … Skip re-query: failures are clearly
   * implementation logic errors"), so the model is told the choice and what
   * it asks (scout_codebase, scout_environment) is recorded in this snapshot.
   */
  private async replan(run: Verification): Promise<string> {
    this.strategy++;
    const failing = [
      ...new Set(
        run.steps
          .flatMap((s) => (s.baseline ? s.baseline.new : s.diagnostics))
          .map((d) => d.file)
          .filter((f): f is string => f !== null),
      ),
    ]
      .map((f) => relativeTo(this.deps.ws.root, f))
      .filter((f) => f !== null) as string[];
    const trigger = ['## The failure that triggered this REPLAN', '', `Verification run ${run.run_id}; files named by its diagnostics: ${failing.slice(0, 10).join(', ') || 'none'}.`, ''].join('\n');
    const file = this.deps.recorder.snapshot({ reason: 'replan', runId: this.deps.runId, scope: this.deps.scope, strategy: this.strategy, body: `${this.stateBody()}\n\n${trigger}` });
    this.deps.emit({ type: 'context', file });
    this.deps.emit({ type: 'replan', strategy: this.strategy, context: file });
    return file;
  }

  /** The markdown of a snapshot below its scope: strategy, counters, verifications, hypotheses. */
  stateBody(): string {
    const out: string[] = ['## Strategy', ''];
    out.push(`Strategy ${this.strategy}.${this.strategy > 1 ? ` Strategies 1–${this.strategy - 1} were abandoned after ${REPLAN_AFTER} consecutive failed verifications each; do not continue them.` : ''}`, '');
    for (const h of this.hypotheses.filter((x) => x.approach)) out.push(`- strategy ${h.strategy} approach: ${h.approach}`);
    out.push('', '## Debug loop', '');
    if (this.verifications.length > 0) appendAll(out, ['```', ...this.verifications.flatMap((v) => attemptLines(v.n, v.passed, v.reached, v.decision)), '```', '']);
    out.push(`Now: consecutive_failures ${this.counters.consecutive_failures} (REPLAN at ${REPLAN_AFTER}) · total_verify_loops ${this.counters.total_verify_loops} (hard stop at ${HARD_STOP_AFTER})`, '');
    const files = this.runner?.guard.changedFiles() ?? [];
    out.push(`Files changed so far: ${files.length === 0 ? 'none' : files.map((f) => `${f.path} (+${f.added} −${f.removed})`).join(', ')}`, '');
    out.push('## Verifications so far', '');
    if (this.verifications.length === 0) out.push(this.baselineRunId ? `None yet after the baseline (run ${this.baselineRunId}).` : 'None yet.');
    for (const v of this.verifications) out.push(`- #${v.n} run ${v.run_id} (strategy ${v.strategy}): ${v.passed ? 'PASS' : 'FAIL'} — ${v.lines.join('; ')}${v.first_errors.length > 0 ? ` — ${v.first_errors.slice(0, 2).join(' | ')}` : ''}`);
    out.push('', '## Hypotheses so far', '');
    if (this.hypotheses.length === 0) out.push('None recorded.');
    for (const h of this.hypotheses) out.push(`- strategy ${h.strategy}, after ${h.after_verification} verification(s): ${h.hypothesis}`);
    return out.join('\n');
  }

  /** What the model reads after a verification. */
  report(result: { entry: VerificationEntry; run: Verification; context: string | null }): string {
    const { entry, run } = result;
    const head = `${entry.passed ? 'PASS' : 'FAIL'} — verification ${entry.n} (run_id ${entry.run_id}), strategy ${entry.strategy}`;
    const lines = [head, ...entry.lines.map((l) => `  ${l}`)];
    if (!entry.passed) {
      for (const s of run.steps.filter((x) => !x.passed)) {
        if (s.baseline) {
          const fresh = s.baseline.new.filter((d) => d.severity === 'error').length;
          const old = s.baseline.old.filter((d) => d.severity === 'error').length;
          lines.push(`${s.kind}: ${fresh} failure(s) new since the baseline, ${old} already failing before any edit, ${s.baseline.fixed.length} fixed since then.`);
        }
        if (entry.first_errors.length > 0) appendAll(lines, ['First errors:', ...entry.first_errors.map((e) => `  - ${e}`)]);
        const tail = s.tail.length > TAIL_CHARS ? `…${s.tail.slice(-TAIL_CHARS)}` : s.tail;
        lines.push(`Log tail (${s.kind}, full log in the evidence of run ${entry.run_id}; scout_environment can interpret it):`, tail.trimEnd() || '(no output)');
      }
    }
    appendAll(lines, [...attemptLines(entry.n, entry.passed, entry.reached, entry.decision), `(REPLAN at consecutive=${REPLAN_AFTER}, hard stop at total=${HARD_STOP_AFTER})`]);
    appendAll(lines, decisionText(entry.decision, this.strategy, result.context, this.deps.task));
    return lines.join('\n');
  }

  async verify(signal: AbortSignal): Promise<ToolResult> {
    if (this.hardStop) return { ok: true, output: `The session has stopped: ${this.hardStop}.`, endsRun: true };
    const result = await this.verification('verify', signal);
    if (!result) return { ok: false, output: 'The verification was cancelled.', error: { code: 'E_CANCELLED', message: 'The verification was cancelled.', hint: 'The session is stopping.' } };
    return {
      ok: true,
      output: this.report(result),
      data: { run_id: result.entry.run_id, passed: result.entry.passed, decision: result.entry.decision, counters: result.entry.counters, run: summarizeVerification(result.run) },
      ...(this.hardStop ? { endsRun: true } : {}),
    };
  }

  async complete(args: { summary: string; status: 'done' | 'blocked' }, signal: AbortSignal): Promise<ToolResult> {
    if (args.status === 'blocked') {
      this.blocked = args.summary;
      this.hypotheses.push({ strategy: this.strategy, hypothesis: `Blocked: ${args.summary}`, after_verification: this.verifications.length, source: 'blocked' });
      return { ok: true, output: 'Session stopped as blocked; the stuck report is written.', endsRun: true };
    }
    if (this.dryRun) {
      this.completion = { summary: args.summary, status: 'done' };
      return { ok: true, output: 'Done: the proposal is saved.', endsRun: true, data: this.completion };
    }
    const commands = verificationCommands(this.deps.ws, this.deps.config);
    if (!this.dirty && this.greenRunId) {
      this.completion = { summary: args.summary, status: 'done' };
      return { ok: true, output: `Done: verified green in run ${this.greenRunId}.`, endsRun: true, data: this.completion };
    }
    if (!commands.build && !commands.test) {
      this.completion = { summary: args.summary, status: 'done' };
      return { ok: true, output: 'Done, unverified: the project has no build or test command.', endsRun: true, data: this.completion };
    }
    const result = await this.verification('completion', signal);
    if (!result) return { ok: false, output: 'The verification was cancelled.', error: { code: 'E_CANCELLED', message: 'The verification was cancelled.', hint: 'The session is stopping.' } };
    if (result.entry.passed) {
      this.completion = { summary: args.summary, status: 'done' };
      return { ok: true, output: `${this.report(result)}\nDone: the summary is written.`, endsRun: true, data: this.completion };
    }
    if (this.hardStop) return { ok: true, output: this.report(result), endsRun: true };
    return {
      ok: false,
      output: `${this.report(result)}\nNot done: the changes must verify green before the session can end.`,
      error: { code: 'E_VERIFY_FAILED', message: `Verification ${result.entry.n} (run ${result.entry.run_id}) failed; the task is not complete.`, hint: 'Fix forward, then call task_completion (or verify) again.' },
    };
  }
}

function decisionText(decision: LoopDecision['action'], strategy: number, context: string | null, task: string): string[] {
  switch (decision) {
    case 'green':
      return ['Full green: both counters are reset. If the task is done, call task_completion with a prose summary.'];
    case 'fix':
      return ['The broken state is kept (fix forward, nothing reverted): record_hypothesis, fix, verify again.'];
    case 'replan':
      return [
        `REPLAN — ${REPLAN_AFTER} consecutive failed verifications. Strategy ${strategy} starts now; the scope is unchanged: ${JSON.stringify(task.trim().split('\n')[0])}.`,
        `The approach so far did not work: do not continue it. The new context snapshot is ${context ?? 'written'}. Re-query the scouts only if it is warranted (what they answer is recorded in that snapshot):`,
        '- Re-query Scout A (scout_codebase) when the failures suggest wrong files targeted, missed dependencies, or violated invariants.',
        '- Re-query Scout B (scout_environment with the failing run_id) when they suggest misinterpreted build/test output or undetected environment issues.',
        '- Skip re-query when the failures are clearly implementation logic errors with no codebase context gap.',
        'Then record a new approach with record_hypothesis, and go on.',
      ];
    case 'hard-stop':
      return [`HARD STOP — ${HARD_STOP_AFTER} verifications without a green one. The session ends here; your changes are kept and a stuck report is written from your hypotheses.`];
    default: {
      const never: never = decision;
      return [String(never)];
    }
  }
}

function relativeTo(root: string, file: string): string | null {
  const normal = file.replace(/\\/g, '/');
  const prefix = `${root.replace(/\\/g, '/')}/`;
  const rel = normal.startsWith(prefix) ? normal.slice(prefix.length) : normal;
  return rel.startsWith('/') || rel.startsWith('..') ? null : rel.replace(/^\.\//, '');
}

function anySignal(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}
