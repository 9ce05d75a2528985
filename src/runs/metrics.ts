/**
 * The run's metrics in the headless ADR's shape — execution_id and
 * constraints.{configured, actual, utilization, violations} — plus what the
 * ADR lacks: per-tool call counts and timings, the files changed, and how
 * the run ended. Pure: builds the object; records.ts writes it.
 */
import type { ConstraintsConfig } from '../config/config.js';
import type { ConstraintTotals, FileChange } from '../guard/constraints.js';
import type { Violation } from '../guard/violations.js';
import type { ChangesOutcome, SummaryStatus } from './outcome.js';
import { defined } from '../defined.js';

export interface ToolStats {
  calls: number;
  ok: number;
  failed: number;
  /** Refused by a constraint, or declined at approval. */
  refused: number;
  total_ms: number;
  max_ms: number;
  mean_ms: number;
}

export interface RunMetrics {
  execution_id: string;
  /** The ADR's summary status: 'failed' on a constraint violation (`error` then holds the violation's message). */
  status: SummaryStatus;
  /** The ADR's summary.Error: `constraint violated: <Type> - <detail>` when a constraint was violated. */
  error?: string;
  mode: 'headless' | 'interactive';
  started_at: string;
  finished_at: string | null;
  on_violation: 'keep' | 'rollback';
  /** What happened to the run's changes at the end. */
  outcome: ChangesOutcome;
  constraints: {
    configured: {
      max_files: number;
      max_lines_changed: number;
      max_tokens: number;
      timeout_seconds: number;
      allowed_patterns: string[];
      denied_patterns: string[];
      allowed_tools: string[];
    };
    actual: ConstraintTotals;
    utilization: { files: number | null; lines: number | null; tokens: number | null; time: number | null };
    violations: Violation[];
  };
  tools: Record<string, ToolStats>;
  calls: number;
  files: Array<FileChange & { by: string[] }>;
}

/** Share of a limit used; null for a limit of 0 (no share of nothing). */
export function utilization(actual: number, limit: number): number | null {
  if (limit <= 0) return null;
  return Math.round((actual / limit) * 10_000) / 10_000;
}

export interface MetricsInput {
  runId: string;
  status: SummaryStatus;
  mode: 'headless' | 'interactive';
  startedAt: string;
  finishedAt: string | null;
  outcome: RunMetrics['outcome'];
  config: ConstraintsConfig;
  totals: ConstraintTotals;
  violations: Violation[];
  tools: Record<string, ToolStats>;
  calls: number;
  files: Array<FileChange & { by: string[] }>;
}

export function buildMetrics(input: MetricsInput): RunMetrics {
  const c = input.config;
  const t = input.totals;
  return {
    execution_id: input.runId,
    status: input.status,
    ...defined({ error: input.violations[0] ? input.violations[0].message : undefined }),
    mode: input.mode,
    started_at: input.startedAt,
    finished_at: input.finishedAt,
    on_violation: c.on_violation,
    outcome: input.outcome,
    constraints: {
      configured: {
        max_files: c.max_files,
        max_lines_changed: c.max_lines_changed,
        max_tokens: c.max_tokens,
        timeout_seconds: c.timeout,
        allowed_patterns: [...c.allowed_patterns],
        denied_patterns: [...c.denied_patterns],
        allowed_tools: [...c.allowed_tools],
      },
      actual: t,
      utilization: {
        files: utilization(t.files_modified, c.max_files),
        lines: utilization(t.lines_added + t.lines_removed, c.max_lines_changed),
        tokens: utilization(t.tokens_used, c.max_tokens),
        time: utilization(t.elapsed_seconds, c.timeout),
      },
      violations: input.violations,
    },
    tools: input.tools,
    calls: input.calls,
    files: input.files,
  };
}

export function emptyToolStats(): ToolStats {
  return { calls: 0, ok: 0, failed: 0, refused: 0, total_ms: 0, max_ms: 0, mean_ms: 0 };
}

export function addTiming(stats: ToolStats, ms: number, outcome: keyof Pick<ToolStats, 'ok' | 'failed' | 'refused'>): void {
  stats.calls++;
  stats[outcome]++;
  stats.total_ms = Math.round((stats.total_ms + ms) * 1000) / 1000;
  stats.max_ms = Math.max(stats.max_ms, Math.round(ms * 1000) / 1000);
  stats.mean_ms = Math.round((stats.total_ms / stats.calls) * 1000) / 1000;
}
