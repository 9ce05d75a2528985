/**
 * How an Editor session ends, once: from its status and reason, the record
 * (`editor.json`), the artifact of that ending (summary, proposal or stuck
 * report), the fix-forward transaction settled, the transcript's end line,
 * the stop event, and metrics.json — all from one RunOutcome, through the
 * ToolRunner's finish (the one writer of metrics.json). It decides nothing
 * about how the session ended: `judge` in verdict.ts does.
 *
 * A cancel is the specification's "Partial changes preserved — no artifact
 * created" (docs/designs.md says how we read it): the project's files keep
 * what the session did (undoable like any change), and of the session's own
 * records only metrics.json stays, saying cancelled; its editor.json,
 * transcript, calls, context snapshots and the Verifier's evidence of its
 * verifications are removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { METRICS_FILE } from '../../runs/records.js';
import type { Config } from '../../config/config.js';
import type { ErrorInfo } from '../../errors.js';
import type { RunOutcome } from '../../runs/outcome.js';
import type { RunProfile } from '../../runs/profile.js';
import { runDir as runFolder } from '../../runs/runs.js';
import { ToolRunner } from '../../tools/runner.js';
import type { Run } from '../../runs/run.js';
import type { Project } from '../../host/project.js';
import type { AgentEvent, AgentOutcome } from '../loop.js';
import type { ModelProvider } from '../providers/types.js';
import type { Transcript } from '../transcript.js';
import type { ContextRecorder } from './context.js';
import { renderProposal } from './proposal.js';
import { removeRecords, writeRecord } from './records.js';
import { renderStuckReport, renderSummary } from './reports.js';
import { PROPOSAL_FILE, saveRecord, STUCK_REPORT_FILE, SUMMARY_FILE, type StuckSeed } from './retry.js';
import type { EditorEvent, EditorSession } from './session.js';
import { EXIT_CODES, type EditorFlavour, type EditorRecord, type EditorStatus } from './state.js';
import type { EditorSurface } from './surface.js';

export type EditorRunEvent = EditorEvent | { type: 'agent'; event: AgentEvent };

export interface EditorResult {
  status: EditorStatus;
  exitCode: number;
  reason: string;
  runId: string;
  runDir: string;
  record: EditorRecord;
  /** Absolute paths of what was written for the person. */
  summaryFile?: string;
  stuckReportFile?: string;
  proposalFile?: string;
  /** Context snapshots written (relative to the root). */
  contexts: string[];
  /** Dry run: the proposal's diff. */
  diff?: string;
  agent?: AgentOutcome;
  transcriptFile?: string | null;
  metricsFile?: string | null;
  error?: ErrorInfo;
}

/**
 * One session on its way: what was fixed when it started (its `Run`, which
 * owns the session's transaction), and the three things that come to exist
 * as it goes (the runner, the transcript, the loop's outcome) — one value the steps pass
 * along, instead of variables captured by closures.
 */
export interface EditorRun {
  /** The project the session works in (host/project.ts), whole. */
  readonly project: Project;
  readonly task: string;
  readonly taskKey: string;
  readonly flavour: EditorFlavour;
  readonly provider: ModelProvider | undefined;
  readonly seed: StuckSeed | null;
  readonly runId: string;
  readonly runDir: string;
  readonly startedAt: string;
  readonly now: () => Date;
  readonly surface: EditorSurface;
  readonly recorder: ContextRecorder;
  readonly session: EditorSession;
  readonly emit: (event: EditorRunEvent) => void;
  /** The config and profile the session runs under (a cancel before the model loop still records its metrics under them). */
  readonly config: Config;
  readonly profile: RunProfile;
  /** The run: the transaction the session's writes join, settled by the profile's failure policy when the session closes. */
  readonly owner: Run;
  runner: ToolRunner | null;
  transcript: Transcript | null;
  outcome: AgentOutcome | undefined;
}

/** Ends the session with this status: every record of it written from the one outcome. */
export function closeEditorRun(run: EditorRun, status: EditorStatus, reason: string, error?: ErrorInfo): EditorResult {
  const final: RunOutcome = { status, reason, exit_code: EXIT_CODES[status] };
  // A cancel before the model loop had a runner still leaves its one record, metrics.json, through a runner (its one writer) that runs nothing.
  if (status === 'cancelled' && !run.runner) run.runner = ToolRunner.start({ project: run.project, view: run.surface.ws, run: run.owner, toolset: { config: run.config, tools: [] } });
  // The runner finishes first: it settles the run by its failure policy (a violation under rollback is put back before the
  // changed files are counted; fix forward commits a success and keeps anything else); metrics.json is written here, once.
  const summary = run.runner?.finish({ outcome: final, sections: metricsSections(run, final) });
  // Without a runner (the proposal did not apply, the run failed before its model loop) the run is settled here, by the same rule.
  run.owner.settle({ violated: status === 'violation', succeeded: final.exit_code === 0 });
  const record = editorRecord(run, status, reason);
  const result: EditorResult = { status, exitCode: final.exit_code, reason, runId: run.runId, runDir: run.runDir, record, contexts: record.reports.contexts, ...(error ? { error } : {}) };
  try {
    writeArtifact(run, record, result);
  } finally {
    if (status === 'cancelled') discardSessionRecords(run, result);
    else saveRecord(run.runDir, record);
  }
  // One outcome for every record: editor.json (above), the transcript's end line, the stop line on the terminal, metrics.json and the exit code.
  if (run.transcript && status !== 'cancelled') run.transcript.write({ type: 'end', ...final });
  if (run.outcome) run.emit({ type: 'agent', event: { type: 'stop', status, reason } });
  if (summary) result.metricsFile = summary.reports.metrics ?? null;
  if (run.outcome) result.agent = run.outcome;
  if (run.transcript && status !== 'cancelled') result.transcriptFile = run.transcript.file;
  return result;
}

/**
 * The records a cancel does not keep: all but metrics.json in the run folder,
 * the session's context snapshots, and the evidence of its verifications.
 * Each removal is on its own: one that fails leaves that record (more said,
 * never less) and must not turn a clean cancel into a crash.
 */
function discardSessionRecords(run: EditorRun, result: EditorResult): void {
  const attempt = (remove: () => void): boolean => {
    try {
      remove();
      return true;
    } catch {
      // Left in place; see above.
      return false;
    }
  };
  for (const id of run.session.evidenceRuns) {
    // The Verifier's evidence of this session's verifications (the baseline included), each in its own run folder.
    if (id !== run.runId) attempt(() => fs.rmSync(runFolder(run.project.ws, id), { recursive: true, force: true }));
  }
  attempt(() => {
    for (const name of fs.readdirSync(run.runDir)) if (name !== METRICS_FILE) fs.rmSync(path.join(run.runDir, name), { recursive: true, force: true });
  });
  if (attempt(() => removeRecords(run.surface.target, run.recorder.written))) {
    result.contexts = [];
    result.record.reports.contexts = [];
  }
}

function editorRecord(run: EditorRun, status: EditorStatus, reason: string): EditorRecord {
  const { session } = run;
  return {
    version: 1,
    run_id: run.runId,
    flavour: run.flavour,
    task: run.task,
    task_key: run.taskKey,
    model: run.provider?.id ?? null,
    status,
    exit_code: EXIT_CODES[status],
    reason,
    started_at: run.startedAt,
    finished_at: run.now().toISOString(),
    strategy: session.strategy,
    counters: session.counters,
    verifications: session.verifications,
    baseline_run_id: session.baselineRunId,
    green_run_id: session.greenRunId,
    hypotheses: session.hypotheses,
    files_changed: run.surface.changedFiles(),
    ...(session.completion ? { completion: session.completion } : {}),
    ...(run.seed ? { seeded_from: run.seed.runId } : {}),
    reports: { contexts: [...run.recorder.written] },
  };
}

/** metrics.json's `editor` section and, when the model loop ran, its `agent` section. */
function metricsSections(run: EditorRun, final: RunOutcome): Record<string, unknown> {
  const { session, outcome } = run;
  return {
    editor: { status: final.status, exit_code: final.exit_code, reason: final.reason, strategy: session.strategy, counters: session.counters, verifications: session.verifications.length, green_run_id: session.greenRunId },
    // How the model loop ended is not the session's outcome (a task_completion may still end in a hard stop): named apart.
    ...(outcome ? { agent: { model: run.provider?.id, loop_ended_by: outcome.status, turns: outcome.turns, usage: outcome.usage, tool_calls: outcome.toolCalls, malformed_calls: outcome.malformedCalls } } : {}),
  };
}

/** The artifact of this ending: the summary (success), the proposal (dry run), the stuck report (hard stop), or nothing. */
function writeArtifact(run: EditorRun, record: EditorRecord, result: EditorResult): void {
  const root = run.project.ws.root;
  const inRoot = (file: string): string => path.relative(root, file).split(path.sep).join('/');
  switch (record.status) {
    case 'success': {
      const text = renderSummary(record);
      record.reports.summary = writeRecord(run.surface.target, SUMMARY_FILE, text);
      fs.writeFileSync(path.join(run.runDir, SUMMARY_FILE), text);
      result.summaryFile = path.join(root, record.reports.summary);
      return;
    }
    case 'proposal': {
      const diff = run.surface.diff();
      const file = path.join(run.runDir, PROPOSAL_FILE);
      fs.writeFileSync(file, renderProposal(run.task, run.runId, diff));
      record.reports.proposal = inRoot(file);
      result.proposalFile = file;
      result.diff = diff;
      return;
    }
    case 'hard-stop': {
      const text = renderStuckReport(record);
      // The run folder's copy is what --retry reads; agent/ has the latest one for the person.
      const file = path.join(run.runDir, STUCK_REPORT_FILE);
      fs.writeFileSync(file, text);
      record.reports.stuck_report = run.surface.target.kind === 'run-folder' ? inRoot(file) : writeRecord(run.surface.target, STUCK_REPORT_FILE, text);
      result.stuckReportFile = path.join(root, record.reports.stuck_report);
      return;
    }
    case 'cancelled':
    case 'violation':
    case 'verify-failed':
    case 'failed':
      return;
    default: {
      const never: never = record.status;
      throw new Error(`unknown status ${String(never)}`);
    }
  }
}
