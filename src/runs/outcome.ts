/**
 * A run's one outcome — status, reason, exit code — and the records derived from it. Every
 * record of a run (metrics.json, the transcript's end line, the terminal's stop line, the Editor's
 * editor.json, the process exit code) is written from one RunOutcome value, so no two of them can
 * name different endings. This module only shapes values; it never decides how a run ended.
 *
 * It is also where a run's status words live, one vocabulary per question: how a run ended
 * (`RunStatus`, the modes' `AgentStatus` and `EditorStatus` are parts of it), where the runner is
 * (`RunnerState`), the ADR's summary status of metrics.json (`SummaryStatus`) and what became of the
 * run's changes (`ChangesOutcome`). Each is derived from the others where they share a word, so a
 * word means one thing in every record; `test/package/architecture.test.ts` keeps them here.
 */
import type { RunMetrics } from './metrics.js';

/**
 * Every way a run ends, in one vocabulary; each mode ends with a subset (the agent loop, controlled mode,
 * the Editor). The values are what the records say (metrics.json's `result`, the transcript's end line,
 * editor.json), so they are stable: `interrupted` (the agent loop) and `cancelled` (the Editor) both name a
 * Ctrl-C and stay two words because both are already on disk; `violation` is one ending shared by all.
 */
export type RunStatus =
  /** task_completion was called (the agent loop). */
  | 'completed'
  /** A constraint was violated (exit 2), in every mode. */
  | 'violation'
  /** controlled mode: the one edit and its build happened, or the attempt was refused; the session is over. */
  | 'controlled'
  /** The same failing call 3 times in a row. */
  | 'stuck'
  /** The model stopped calling tools without task_completion. */
  | 'no-completion'
  /** --max-turns reached. */
  | 'turn-limit'
  /** Ctrl-C / abort signal (the agent loop). */
  | 'interrupted'
  /** The person chose "quit" at an approval prompt. */
  | 'quit'
  /** The provider failed (HTTP error, unreachable, script exhausted). */
  | 'provider-error'
  /** Editor: full green and the task declared done (exit 0). */
  | 'success'
  /** Editor, dry run: the proposal was saved (exit 0). */
  | 'proposal'
  /** Editor: 12 verifications without green, or it gave up or got stuck (exit 4). */
  | 'hard-stop'
  /** Editor: Ctrl-C, partial changes kept, no artifact (exit 130). */
  | 'cancelled'
  /** Editor, apply-proposal without a model: the verification failed, changes kept (exit 3). */
  | 'verify-failed'
  /** Editor: the proposal did not apply, the provider failed, or the run could not start (exit 1). */
  | 'failed';

/**
 * Where a ToolRunner is: running until a violation aborts it, task_completion completes it, its signal cancels it,
 * or finish() has been called. `completed` and `cancelled` are the run endings of the same name.
 */
export type RunnerState = 'running' | 'aborted' | 'finished' | Extract<RunStatus, 'completed' | 'cancelled'>;

/**
 * metrics.json's top-level `status`, the headless ADR's summary: the runner's state while it runs and when it
 * finished (completed: task_completion was called), and `failed` — the run's ending of that name — on a
 * violation or a mode's non-zero exit code.
 */
export type SummaryStatus = Extract<RunnerState, 'running' | 'completed' | 'finished'> | Extract<RunStatus, 'failed'>;

/** What happened to a run's changes at the end (metrics.json's `outcome`): kept, rolled back, or still open. */
export type ChangesOutcome = 'kept' | 'rolled-back' | 'open';

/** The summary status of a finished run: failed on a violation, else completed when task_completion was called. */
export function finishedStatus(violated: boolean, completed: boolean): SummaryStatus {
  return violated ? 'failed' : completed ? 'completed' : 'finished';
}

export interface RunOutcome {
  /** How the run ended, in the one vocabulary of every record. */
  status: RunStatus;
  reason: string;
  exit_code: number;
}

/**
 * metrics.json with the outcome: `result` names it; the top-level `status` is the ADR's summary
 * status derived from the same value (completed on exit 0, failed otherwise).
 */
function metricsWithOutcome<T extends RunMetrics>(metrics: T, outcome: RunOutcome): T & { result: RunOutcome } {
  return { ...metrics, status: outcome.exit_code === 0 ? 'completed' : 'failed', result: { ...outcome } };
}

/**
 * How a mode closes its run: the one outcome, and the mode's own sections of metrics.json
 * (`agent`, `editor`) that ride along. Given to `ToolRunner.finish`, so metrics.json is written
 * once per run, with the outcome, by one function (runs/records.ts).
 */
export interface RunClosing {
  outcome: RunOutcome;
  sections?: Record<string, unknown>;
}

/** metrics.json as a closed run writes it: the runner's metrics, the outcome, the mode's sections. */
export function closedMetrics<T extends RunMetrics>(metrics: T, closing?: RunClosing): T & { result?: RunOutcome } {
  if (!closing) return metrics;
  // Readers ignore keys they do not know.
  return { ...metricsWithOutcome(metrics, closing.outcome), ...closing.sections };
}
