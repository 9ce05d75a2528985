/**
 * The violation report of a run, for people (violation.md) and programs
 * (violation.json): what was violated, what became of the partial work, the
 * usage against the limits, the files and the calls. Pure: builds the text;
 * records.ts writes it into the run folder, with metrics.json.
 */
import type { RunMetrics } from './metrics.js';
import type { Violation } from '../guard/violations.js';

/** One call as the report lists it. */
export interface ReportCall {
  index: number;
  tool: string;
  status: string;
  files: string[];
  /** How many files the call changed, when `files` holds only the first of them. */
  files_total?: number;
  error?: string;
}

export interface ViolationReport {
  violation: Violation;
  metrics: RunMetrics;
  calls: ReportCall[];
  /** What happened to the partial work. */
  rollback?: { written: string[]; removed: string[] } | null;
  error?: string;
}

function fmtLimit(limit: Violation['limit']): string {
  return Array.isArray(limit) ? limit.join(', ') || '(none)' : String(limit);
}

export function renderViolationMarkdown(report: ViolationReport): string {
  const v = report.violation;
  const m = report.metrics;
  const a = m.constraints.actual;
  const c = m.constraints.configured;
  const u = m.constraints.utilization;
  const pct = (x: number | null): string => (x === null ? '—' : `${Math.round(x * 100)}%`);
  const lines: string[] = [
    `# Constraint violation: ${v.type}`,
    '',
    `Run \`${m.execution_id}\` (${m.mode}) was stopped at call #${v.call !== undefined ? v.call + 1 : '?'}${v.tool ? ` (\`${v.tool}\`)` : ''}, ${v.elapsed_seconds} s after it started.`,
    '',
    `**${v.message}**`,
    '',
    `- Limit: \`constraints.${v.constraint === 'headless' ? 'allowed_tools (interactive tools are never allowed headless)' : v.constraint}\` = ${fmtLimit(v.limit)}`,
    `- Reached: ${v.actual}`,
    ...(v.path ? [`- Path: \`${v.path}\``] : []),
    `- ${v.prevented ? 'The offending change was refused before anything of it was written.' : 'The offending change had already happened (a command made it) when it was detected.'}`,
    `- What to do: ${v.hint}`,
    '',
    '## Partial work',
    '',
  ];
  if (m.outcome === 'rolled-back') {
    lines.push('`on_violation: rollback` — every change of the run was undone.');
    if (report.rollback) lines.push('', `Files put back: ${report.rollback.written.length}; files removed: ${report.rollback.removed.length}.`);
  } else if (m.outcome === 'kept') {
    lines.push('`on_violation: keep` — the changes made before the violation are kept for inspection (`git diff` shows them).');
  } else {
    lines.push('The run is still open.');
  }
  if (report.error) lines.push('', `Note: ${report.error}`);
  lines.push('', '## Usage', '', '| | used | limit | share |', '|---|---:|---:|---:|');
  lines.push(`| files | ${a.files_modified} | ${c.max_files} | ${pct(u.files)} |`);
  lines.push(`| lines (+${a.lines_added} −${a.lines_removed}) | ${a.lines_added + a.lines_removed} | ${c.max_lines_changed} | ${pct(u.lines)} |`);
  lines.push(`| tokens | ${a.tokens_used} | ${c.max_tokens} | ${pct(u.tokens)} |`);
  lines.push(`| seconds | ${a.elapsed_seconds} | ${c.timeout_seconds} | ${pct(u.time)} |`);
  if (m.files.length > 0) {
    lines.push('', '## Files changed', '', '| file | + | − | by |', '|---|---:|---:|---|');
    for (const f of m.files) lines.push(`| \`${f.path}\` | ${f.added} | ${f.removed} | ${f.by.join(', ')} |`);
  }
  if (report.calls.length > 0) {
    lines.push('', '## Calls', '', '| # | tool | status | files | error |', '|---:|---|---|---|---|');
    for (const call of report.calls) {
      lines.push(`| ${call.index + 1} | ${call.tool} | ${call.status} | ${call.files.join(', ')} | ${(call.error ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
