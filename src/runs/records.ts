/**
 * The records a ToolRunner run leaves in its run folder: calls.jsonl (one
 * line per call, appended as it ends), then, once, when the run finishes,
 * metrics.json (with the mode's outcome when it has one) and, after a
 * violation, violation.md / violation.json. This is the one place that
 * writes them, so metrics.json is written once per run. It writes only
 * inside the run folder it is given, never a project file, and a record it
 * cannot write never fails the call it records. It lives in runs/ (beside
 * the run folders and the outcome), below tools/, so the runner records
 * without importing a floor above it; report/ renders the modes' reports.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Violation } from '../guard/violations.js';
import { atomicWriteFile } from '../workspace/atomic.js';
import type { RollbackResult } from '../workspace/transaction.js';
import type { RunMetrics } from './metrics.js';
import { closedMetrics, type RunClosing } from './outcome.js';
import { renderViolationMarkdown, type ReportCall, type ViolationReport } from './violation-report.js';
import { defined } from '../defined.js';

const CALLS_FILE = 'calls.jsonl';
export const METRICS_FILE = 'metrics.json';
const VIOLATION_MD = 'violation.md';
const VIOLATION_JSON = 'violation.json';

/** A call as it is recorded (the runner's CallRecord has this shape). */
export interface LoggedCall {
  index: number;
  tool: string;
  status: string;
  output: string;
  data?: unknown;
  /** A command's diff (for the event log): left out here, as data is. */
  effects?: unknown;
  error?: { code: string; message: string } | undefined;
  files: string[];
}

/** The paths of the records written when the run finished. */
export interface RunReports {
  metrics?: string;
  violationMarkdown?: string;
  violationJson?: string;
}

/** Longest tool output kept per line of calls.jsonl. */
const MAX_LOGGED_OUTPUT = 4000;

/** Appends one call to calls.jsonl (its data and a command's diff are left out; its output cut at MAX_LOGGED_OUTPUT). */
export function appendCallRecord(runDir: string, record: LoggedCall): void {
  const { data: _data, effects: _effects, ...rest } = record;
  const line = { ...rest, output: record.output.length > MAX_LOGGED_OUTPUT ? `${record.output.slice(0, MAX_LOGGED_OUTPUT)}…` : record.output };
  try {
    fs.appendFileSync(path.join(runDir, CALLS_FILE), `${JSON.stringify(line)}\n`);
  } catch {
    // The log is evidence, not function: a full disk must not fail the call.
  }
}

export interface RunRecords {
  metrics: RunMetrics;
  /** The mode's outcome and sections; metrics.json carries them when given. */
  closing?: RunClosing | undefined;
  violation: Violation | null;
  calls: readonly LoggedCall[];
  rollback: RollbackResult | null;
  /** Why the rollback did not finish, when it did not. */
  note?: string | undefined;
}

/** Files listed per call in the violation report (the rest counted: the event log's side files hold every path). */
const REPORT_FILES_PER_CALL = 100;

/** A record of the run folder, replaced whole (atomically: a reader never sees half of it). */
function writeRecord(runDir: string, name: string, text: string): string {
  const file = path.join(runDir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  atomicWriteFile(file, Buffer.from(text, 'utf8'));
  return file;
}

function writeViolationReport(runDir: string, report: ViolationReport): { markdown: string; json: string } {
  const json = writeRecord(runDir, VIOLATION_JSON, `${JSON.stringify(report, null, 2)}\n`);
  return { json, markdown: writeRecord(runDir, VIOLATION_MD, renderViolationMarkdown(report)) };
}

/** Writes metrics.json and, after a violation, its report: once, when the run finishes. */
export function writeRunRecords(runDir: string, run: RunRecords): RunReports {
  const reports: RunReports = { metrics: writeRecord(runDir, METRICS_FILE, `${JSON.stringify(closedMetrics(run.metrics, run.closing), null, 2)}\n`) };
  if (!run.violation) return reports;
  // Each call's files cut to its first REPORT_FILES_PER_CALL: 100 commands of 20,000 files each made a report longer than a string may be (RangeError).
  const calls: ReportCall[] = run.calls.map((r) => ({
    index: r.index,
    tool: r.tool,
    status: r.status,
    files: r.files.slice(0, REPORT_FILES_PER_CALL),
    ...defined({ files_total: r.files.length > REPORT_FILES_PER_CALL ? r.files.length : undefined, error: r.error ? `${r.error.code}: ${r.error.message}` : undefined }),
  }));
  const written = writeViolationReport(runDir, {
    violation: run.violation,
    metrics: run.metrics,
    calls,
    rollback: run.rollback ? { written: run.rollback.written, removed: run.rollback.removed } : null,
    ...defined({ error: run.note || undefined }),
  });
  reports.violationMarkdown = written.markdown;
  reports.violationJson = written.json;
  return reports;
}
