/**
 * A run's one outcome — status, reason, exit code — and the records derived from it. Every
 * record of a run (metrics.json, the transcript's end line, the terminal's stop line, the Editor's
 * editor.json, the process exit code) is written from one RunOutcome value, so no two of them can
 * name different endings. This module only shapes values; it never decides how a run ended.
 */
import type { RunMetrics } from '../guard/metrics.js';

export interface RunOutcome {
  /** The mode's own name for the ending (completed, violation, hard-stop, controlled …). */
  status: string;
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
