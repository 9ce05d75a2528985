/**
 * The one-line live status of a headless run for a person at a terminal:
 * files x/10 · lines y/500 · tokens · elapsed, redrawn in place. Only for a
 * TTY; it must never write to a pipe (logs and CI read the per-call lines).
 */
import type { ConstraintsConfig } from '../config/config.js';
import type { ConstraintTotals } from '../guard/constraints.js';

export interface StatusStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

export function formatStatus(totals: ConstraintTotals, config: ConstraintsConfig, current?: string): string {
  const lines = totals.lines_added + totals.lines_removed;
  // A limit the run does not have (an interactive session's unset caps: Infinity) shows the count alone.
  const of = (limit: number, unit = ''): string => (Number.isFinite(limit) ? `/${limit}${unit}` : '');
  const parts = [
    `files ${totals.files_modified}${of(config.max_files)}`,
    `lines ${lines}${of(config.max_lines_changed)}`,
    `tokens ${totals.tokens_used}${of(config.max_tokens)}`,
    `${totals.elapsed_seconds.toFixed(1)}s${of(config.timeout, 's')}`,
  ];
  return `⏵ ${parts.join(' · ')}${current ? `  │ ${current}` : ''}`;
}

export interface LiveRunStatus {
  update(current?: string): void;
  stop(): void;
}

/** Redraws every `intervalMs` (elapsed time moves) and on every update; a no-op off a TTY. */
export function startRunStatus(stream: StatusStream, totals: () => ConstraintTotals, config: ConstraintsConfig, intervalMs = 250): LiveRunStatus {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let current: string | undefined;
  const draw = (): void => {
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    stream.write(`\r\u001b[K${[...formatStatus(totals(), config, current)].slice(0, width).join('')}`);
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  timer.unref();
  return {
    update(next) {
      current = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[K');
    },
  };
}
