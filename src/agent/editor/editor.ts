/**
 * The Editor: `runEditor` runs one session end to end — Scout B first (the
 * baseline must come before any edit), the fix-forward transaction, the
 * proposal when applying one, Scout A and the first context snapshot, the
 * model loop with the Editor's tools, and the closing: summary on success,
 * stuck report on hard stop, proposal after a dry run, nothing after a
 * cancel; `editor.json` and metrics in the run folder; the exit code of
 * DESIGN.md. The CLI (`run --mode editor`, `apply-proposal`), the demo and
 * the tests all start sessions here. The Editor writes project files only
 * through the ToolRunner (the model's edits), applyProposal and records.ts;
 * every one of those paths goes through the workspace sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApplyOptions } from '../../apply/apply-requests.js';
import type { Config } from '../../config/config.js';
import { editOptionsFromConfig } from '../../config/edit-options.js';
import { unifiedDiff } from '../../edit/diff.js';
import { decodeText } from '../../edit/text.js';
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../../errors.js';
import { writeMetrics } from '../../guard/report.js';
import { ensureRunDir, newRunId } from '../../runs/runs.js';
import { metricsWithOutcome } from '../../runs/outcome.js';
import { readFileTool } from '../../tools/read-file.js';
import { BUILTIN_TOOLS } from '../../tools/registry.js';
import { ToolRunner, type RunnerEvent, type RunSummary } from '../../tools/runner.js';
import type { AnyTool } from '../../tools/types.js';
import { installTransactions, type Transaction, type TransactionLayer } from '../../workspace/transaction.js';
import type { Workspace } from '../../workspace/workspace.js';
import { runAgent, type AgentEvent, type AgentOutcome } from '../loop.js';
import type { ModelProvider } from '../providers/types.js';
import { Transcript } from '../transcript.js';
import { editorReadFile } from './artifact-read.js';
import { ContextRecorder } from './context.js';
import { workspaceSource } from './file-source.js';
import { Overlay } from './overlay.js';
import { buildEditorPrompt, firstMessage, scoutDigest } from './prompt.js';
import { applyProposal, readProposalHeader, renderProposal } from './proposal.js';
import { writeRecord, type RecordTarget } from './records.js';
import { renderStuckReport, renderSummary } from './reports.js';
import { latestStuckReport, noStuckReport, PROPOSAL_FILE, saveRecord, STUCK_REPORT_FILE, SUMMARY_FILE, type StuckSeed } from './retry.js';
import { EditorSession, type EditorEvent } from './session.js';
import { EXIT_CODES, taskKey, type EditorFlavour, type EditorRecord, type EditorStatus, type FileChangeEntry } from './state.js';
import { editorTools, EDITOR_TOOL_NAMES, overlayReadTools } from './tools.js';

export type EditorRunEvent = EditorEvent | { type: 'agent'; event: AgentEvent };

export interface RunEditorOptions {
  ws: Workspace;
  transactions?: TransactionLayer;
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
  config: Config;
  /** The Editor model. Required, except for apply-proposal, which then only verifies. */
  provider?: ModelProvider;
  task: string;
  /** Work against an overlay; the result is a proposal (one unified diff) in the run folder. */
  dryRun?: boolean;
  /** Seed the session with the latest stuck report of the same task (refused when there is none). */
  retry?: boolean;
  /** apply-proposal: this proposal is written first, then verified with the normal debug loop. */
  proposal?: { text: string; file: string };
  /** scouts.model: summarises scout payloads for the Editor (the raw payloads are recorded either way). */
  scoutProvider?: ModelProvider;
  runId?: string;
  activeEdit?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: EditorRunEvent) => void;
  onRunnerEvent?: (event: RunnerEvent) => void;
  onStart?: (info: { runId: string; runDir: string }) => void;
  maxTurns?: number;
  maxOutputTokens?: number;
  now?: () => Date;
}

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

/** The file tools the Editor gets: reading and writing, no commands (only the Verifier's run), nobody to ask. */
const FILE_TOOLS = ['read_file', 'list_files', 'search_files', 'edit_file', 'write_file', 'apply_patch'];

/** The config the Editor runs under: its own tools are always allowed; a dry run has nothing on disk to roll back. */
export function editorConfig(config: Config, dryRun: boolean): Config {
  const allowed = config.constraints.allowed_tools;
  const tools = allowed.length === 0 ? allowed : [...new Set([...allowed, ...EDITOR_TOOL_NAMES])];
  return { ...config, constraints: { ...config.constraints, allowed_tools: tools, ...(dryRun ? { on_violation: 'keep' as const } : {}) } };
}

function scopeOf(task: string, config: Config, dryRun: boolean): string {
  const c = config.constraints;
  const quoted = task
    .trim()
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
  return [
    'Task:',
    '',
    quoted,
    '',
    `Constraints: max_files ${c.max_files}, max_lines_changed ${c.max_lines_changed}, allowed_patterns ${JSON.stringify(c.allowed_patterns)}, denied_patterns ${JSON.stringify(c.denied_patterns)}, max_tokens ${c.max_tokens}, timeout ${c.timeout} s.`,
    `Mode: editor${dryRun ? ' (dry run: overlay, no verification)' : ' (fix forward)'}.`,
  ].join('\n');
}

function usage(message: string, hint: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint });
}

export async function runEditor(o: RunEditorOptions): Promise<EditorResult> {
  const now = o.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const dryRun = o.dryRun === true;
  if (dryRun && o.proposal) throw usage('A proposal cannot be applied in a dry run.', 'Drop --dry-run to apply the proposal.');
  if (!o.provider && !o.proposal) throw usage('The Editor needs a model.', 'Pass --model provider:model.');
  const flavour: EditorFlavour = o.proposal ? 'apply-proposal' : dryRun ? 'dry-run' : 'editor';
  const key = taskKey(o.task);
  const seed: StuckSeed | null = o.retry ? latestStuckReport(o.ws, key) : null;
  if (o.retry && !seed) throw noStuckReport();

  const runId = o.runId ?? newRunId(now());
  const runDir = ensureRunDir(o.ws, runId);
  o.onStart?.({ runId, runDir });
  const emit = (event: EditorRunEvent): void => {
    try {
      o.onEvent?.(event);
    } catch {
      // A display must not break the session it displays.
    }
  };
  const config = editorConfig(o.config, dryRun);
  const overlay = dryRun ? new Overlay(o.ws) : null;
  const view = overlay ? overlay.ws : o.ws;
  const source = workspaceSource(view, overlay ?? undefined);
  const target: RecordTarget = dryRun ? { kind: 'run-folder', runDir, root: o.ws.root } : { kind: 'project', ws: o.ws };
  const recorder = new ContextRecorder(target, now);
  const scope = scopeOf(o.task, config, dryRun);
  const session = new EditorSession({
    runId,
    task: o.task,
    ws: view,
    config,
    source,
    recorder,
    dryRun,
    scope,
    ...(o.scoutProvider ? { scoutProvider: o.scoutProvider } : {}),
    emit,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const transactions = dryRun ? null : (o.transactions ?? installTransactions(o.ws));
  let tx: Transaction | null = null;
  let runner: ToolRunner | null = null;
  let runnerSummary: RunSummary | null = null;
  let outcome: AgentOutcome | undefined;
  let transcript: Transcript | null = null;
  const cancelled = (): boolean => o.signal?.aborted === true;

  const close = (status: EditorStatus, reason: string, error?: ErrorInfo): EditorResult => {
    if (runner && !runnerSummary) runnerSummary = runner.finish();
    const files = changedFiles();
    const record: EditorRecord = {
      version: 1,
      run_id: runId,
      flavour,
      task: o.task,
      task_key: key,
      model: o.provider?.id ?? null,
      status,
      exit_code: EXIT_CODES[status],
      reason,
      started_at: startedAt,
      finished_at: now().toISOString(),
      strategy: session.strategy,
      counters: session.counters,
      verifications: session.verifications,
      baseline_run_id: session.baselineRunId,
      green_run_id: session.greenRunId,
      hypotheses: session.hypotheses,
      files_changed: files,
      ...(session.completion ? { completion: session.completion } : {}),
      ...(seed ? { seeded_from: seed.runId } : {}),
      reports: { contexts: [...recorder.written] },
    };
    const result: EditorResult = { status, exitCode: EXIT_CODES[status], reason, runId, runDir, record, contexts: record.reports.contexts, ...(error ? { error } : {}) };
    try {
      switch (status) {
        case 'success': {
          const text = renderSummary(record);
          record.reports.summary = writeRecord(target, SUMMARY_FILE, text);
          fs.writeFileSync(path.join(runDir, SUMMARY_FILE), text);
          result.summaryFile = path.join(o.ws.root, record.reports.summary);
          break;
        }
        case 'proposal': {
          const diff = overlay ? overlay.diff() : '';
          const file = path.join(runDir, PROPOSAL_FILE);
          fs.writeFileSync(file, renderProposal(o.task, runId, diff));
          record.reports.proposal = path.relative(o.ws.root, file).split(path.sep).join('/');
          result.proposalFile = file;
          result.diff = diff;
          break;
        }
        case 'hard-stop': {
          const text = renderStuckReport(record);
          // The run folder's copy is what --retry reads; agent/ has the latest one for the person.
          fs.writeFileSync(path.join(runDir, STUCK_REPORT_FILE), text);
          record.reports.stuck_report = dryRun ? path.relative(o.ws.root, path.join(runDir, STUCK_REPORT_FILE)).split(path.sep).join('/') : writeRecord(target, STUCK_REPORT_FILE, text);
          result.stuckReportFile = path.join(o.ws.root, record.reports.stuck_report);
          break;
        }
        case 'cancelled':
        case 'violation':
        case 'verify-failed':
        case 'failed':
          break;
        default: {
          const never: never = status;
          throw new Error(`unknown status ${String(never)}`);
        }
      }
    } finally {
      // Success leaves the changes for review (committed to disk, not to git); everything else keeps them too: fix forward never reverts.
      if (tx && tx.state === 'open') {
        if (status === 'success') tx.commit();
        else tx.keep();
      }
      saveRecord(runDir, record);
    }
    // One outcome for every record: editor.json (above), the transcript's end line, the stop line on the terminal, metrics.json and the exit code.
    const final = { status, reason, exit_code: result.exitCode };
    if (transcript) transcript.write({ type: 'end', ...final });
    if (outcome) emit({ type: 'agent', event: { type: 'stop', status, reason } });
    if (runner && runnerSummary) {
      result.metricsFile = writeMetrics(runDir, {
        ...metricsWithOutcome(runnerSummary.metrics, final),
        editor: { status, exit_code: result.exitCode, reason, strategy: session.strategy, counters: session.counters, verifications: session.verifications.length, green_run_id: session.greenRunId },
        // How the model loop ended is not the session's outcome (a task_completion may still end in a hard stop): named apart.
        ...(outcome ? { agent: { model: o.provider?.id, loop_ended_by: outcome.status, turns: outcome.turns, usage: outcome.usage, tool_calls: outcome.toolCalls, malformed_calls: outcome.malformedCalls } } : {}),
      } as typeof runnerSummary.metrics);
    }
    if (outcome) result.agent = outcome;
    if (transcript) result.transcriptFile = transcript.file;
    return result;
  };

  // What each file held before the session first wrote it: the summary reports the net change, not the churn.
  const originals = new Map<string, string | null>();
  const capture = (requested: string): void => {
    try {
      const rel = o.ws.resolve(requested).relative;
      if (originals.has(rel)) return;
      const snap = o.ws.read(rel);
      originals.set(rel, snap ? decodeText(snap.bytes, rel).text : null);
    } catch {
      // A path the sandbox refuses is never written; one that is not text has no line count.
    }
  };
  const changedFiles = (): FileChangeEntry[] => {
    if (overlay) return overlay.fileDiffs().map((f) => ({ path: f.path, added: f.added, removed: f.removed, created: f.kind === 'created' }));
    const out: FileChangeEntry[] = [];
    for (const [rel, before] of [...originals.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      let after: string | null = null;
      try {
        const snap = o.ws.read(rel);
        after = snap ? decodeText(snap.bytes, rel).text : null;
      } catch {
        continue;
      }
      if (after === before) continue;
      const d = unifiedDiff({ oldPath: rel, newPath: rel, before, after });
      out.push({ path: rel, added: d.added, removed: d.removed, created: before === null });
    }
    return out;
  };

  try {
    // 1. Scout B first: the baseline of failures is taken before any edit.
    const environment = await session.environmentScout(dryRun ? 'dry run: no verification runs' : true);
    if (cancelled()) return close('cancelled', 'Cancelled before the first edit.');

    // 2. The fix-forward transaction every write of the session joins (a run under on_violation: rollback has the runner's instead).
    if (transactions && config.constraints.on_violation !== 'rollback') {
      tx = transactions.begin({ name: `editor ${runId}`, reason: `editor session: ${o.task.trim().split('\n')[0]?.slice(0, 80)}`, onFailure: 'fix-forward' });
      session.tx = tx;
    }

    // 3. apply-proposal: the diff, all or nothing, through the sandbox.
    if (o.proposal) {
      const planned = await applyProposal(o.ws, o.proposal.text, { edit: editOptionsFromConfig(config), ...o.applyHooks, dryRun: true });
      for (const f of planned.files) capture(f);
      const applied = await applyProposal(o.ws, o.proposal.text, { edit: editOptionsFromConfig(config), ...o.applyHooks });
      if (!applied.ok) {
        const bad = applied.results.find((r) => r.error && r.error.code !== ErrorCode.ABORTED) ?? applied.results.find((r) => r.error);
        const info = bad?.error ?? { code: ErrorCode.PARSE, message: 'The proposal holds no file change.', hint: 'Pass a proposal file written by a dry run.' };
        return close('failed', `The proposal did not apply (nothing was written): ${bad?.path ? `${bad.path}: ` : ''}${info.message}`, info);
      }
      if (applied.results.length === 0) {
        const info = { code: ErrorCode.PARSE, message: `${o.proposal.file} holds no file change.`, hint: 'Pass a proposal file written by `editwarden run --mode editor --dry-run`.' } as ErrorInfo;
        return close('failed', info.message, info);
      }
      session.markChanged();
    }

    // 4. Scout A on the task, and the first context snapshot with both payloads raw.
    const code = await session.codebase(o.task);
    const first = recorder.snapshot({ reason: 'start', runId, scope, strategy: 1, body: session.stateBody() }, [
      { scout: 'environment', request: dryRun ? 'start (dry run: no baseline)' : 'start: environment and baseline before any edit', payload: environment },
      { scout: 'codebase', request: 'start: the task as the query', payload: code },
    ]);
    emit({ type: 'context', file: first });

    // 5. apply-proposal: the full verification now; a model (if any) takes over on FAIL.
    let proposalFailure: string | null = null;
    if (o.proposal) {
      const verified = await session.verification('proposal', o.signal);
      if (!verified) return close('cancelled', 'Cancelled during the verification.');
      if (verified.entry.passed) {
        const header = readProposalHeader(o.proposal.text);
        session.completion = { summary: `Applied the proposal ${o.proposal.file}${header.runId ? `, written by dry run ${header.runId}` : ''}, unchanged.`, status: 'done' };
        return close('success', `The proposal applied and verified green (run ${verified.entry.run_id}).`);
      }
      if (!o.provider) return close('verify-failed', `The proposal applied, but verification ${verified.entry.run_id} failed; the changes are kept (fix forward). Pass --model to let the Editor fix it.`);
      proposalFailure = session.report(verified);
    }

    // 6. The model loop.
    const provider = o.provider as ModelProvider;
    const allowed = config.constraints.allowed_tools;
    const fileTools = BUILTIN_TOOLS.filter((t) => FILE_TOOLS.includes(t.name) && (allowed.length === 0 || allowed.includes(t.name)));
    const readTools = overlay ? overlayReadTools(source, (p) => (p === '.' ? '' : view.resolve(p).relative)) : [];
    // The Editor reads the Verifier's evidence (read-only, the design's write-authority table) with its read_file.
    const withArtifacts = fileTools.map((t) => (t.name === 'read_file' ? editorReadFile(readFileTool, o.ws) : t));
    const tools: AnyTool[] = [...withArtifacts.filter((t) => !readTools.some((r) => r.name === t.name)), ...readTools, ...editorTools(session)];
    runner = ToolRunner.start({
      ws: view,
      config,
      mode: 'headless',
      runId,
      tools,
      ...(transactions ? { transactions } : {}),
      // Ctrl-C stops the running tool call at once (a command's process group is killed); work so far is kept.
      ...(o.signal ? { signal: o.signal } : {}),
      apply: { edit: editOptionsFromConfig(config), ...o.applyHooks },
      // Headless: nobody approves; the hook only notes what each write is about to change.
      approve: (request) => {
        for (const c of request.changes ?? []) capture(c.path);
        return { approved: true };
      },
      onEvent: (event) => {
        if (event.type === 'call-end' && event.record.files.length > 0) session.markChanged();
        o.onRunnerEvent?.(event);
      },
    });
    session.attachRunner(runner);
    const names = tools.map((t) => t.name);
    const activeEdit = o.activeEdit ?? config.active_edit_enabled;
    const system = buildEditorPrompt({ dryRun, activeEdit, tools: names, environment, layoutHint: code.conventions.tests.naming });
    let message = firstMessage(o.task, scoutDigest(code, environment), first, seed);
    if (proposalFailure) message += `\n## The proposal was applied, and its verification failed\n\n${proposalFailure}\n`;
    transcript = new Transcript(runner.runDir);
    transcript.write({ type: 'start', run_id: runId, model: provider.id, mode: 'editor', task: message, tools: names, active_edit: activeEdit, system });
    outcome = await runAgent({
      provider,
      runner,
      ws: view,
      config,
      mode: 'headless',
      task: message,
      system,
      tools: names,
      activeEdit,
      transcript,
      ...(o.signal ? { signal: o.signal } : {}),
      onEvent: (event) => emit({ type: 'agent', event }),
      ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
      ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
      // The session's outcome is judged below; close() writes the end line and the stop event from it.
      recordEnd: false,
    });
    runnerSummary = runner.finish();
    const judged = judge(outcome, session, dryRun);
    if (judged[0] === 'hard-stop') await askForHypotheses(provider, system, messageHistory(message, outcome), session, judged[1], o.signal);
    return close(...judged);
  } catch (error) {
    const info = toErrorInfo(error);
    return close(cancelled() ? 'cancelled' : 'failed', cancelled() ? 'Cancelled.' : `${info.code}: ${info.message}`, info);
  }
}

/** The conversation the hypotheses question follows: the task and how the loop ended (the model's own turns are in the transcript). */
function messageHistory(task: string, outcome: AgentOutcome): string {
  return `${task}\n\n(The session has ended: ${outcome.reason})`;
}

/**
 * The design's stuck report carries "Editor-generated diagnostic theories": at a hard stop with no
 * hypothesis recorded, the Editor is asked once, without tools, for its hypotheses. When it cannot
 * answer, the last failing verification stands in, named as such — the report is never empty.
 */
async function askForHypotheses(provider: ModelProvider, system: string, task: string, session: EditorSession, reason: string, signal?: AbortSignal): Promise<void> {
  if (session.hypotheses.some((h) => h.source === undefined || h.source === 'record_hypothesis')) return;
  const failures = session.verifications.filter((v) => !v.passed);
  const evidence = failures.map((v) => `- verification ${v.n} (run ${v.run_id}): ${v.first_errors.slice(0, 3).join(' | ') || 'failed'}`).join('\n');
  try {
    if (signal?.aborted) throw new Error('cancelled');
    const turn = await provider.complete(
      {
        system,
        messages: [
          { role: 'user', content: task },
          {
            role: 'user',
            content: `HARD STOP: ${reason}\nYou recorded no hypothesis. In a few numbered sentences, give your hypotheses: why the task is not done, and what a next session should try first. No tools are available; answer in text only.${evidence ? `\n\nFailed verifications:\n${evidence}` : ''}`,
          },
        ],
        tools: [],
      },
      signal ? { signal } : {},
    );
    const text = turn.text.trim();
    if (text) {
      session.hypotheses.push({ strategy: session.strategy, hypothesis: text, after_verification: session.verifications.length, source: 'asked-at-hard-stop' });
      return;
    }
  } catch {
    // The model could not answer (provider down, script exhausted): the evidence below stands in.
  }
  const last = failures.at(-1);
  const fallback = last
    ? `The Editor gave no hypothesis; the last failing verification (run ${last.run_id}) reported: ${last.first_errors.slice(0, 3).join(' | ') || 'a failure without a parsed error'}.`
    : `The Editor gave no hypothesis; the session stopped because: ${reason}`;
  session.hypotheses.push({ strategy: session.strategy, hypothesis: fallback, after_verification: session.verifications.length, source: 'last-failure' });
}

/** How the session ended, from the loop's outcome and the session's own state. */
function judge(outcome: AgentOutcome, session: EditorSession, dryRun: boolean): [EditorStatus, string] {
  if (session.hardStop) return ['hard-stop', `${session.hardStop}.`];
  switch (outcome.status) {
    case 'violation':
      return ['violation', outcome.reason];
    case 'interrupted':
      return ['cancelled', 'Cancelled (Ctrl-C): the partial changes are kept; no summary or report is written.'];
    case 'completed':
      if (session.blocked) return ['hard-stop', `The Editor declared itself blocked: ${session.blocked}`];
      if (session.completion) return dryRun ? ['proposal', 'Dry run finished: the proposal is saved.'] : ['success', `Verified green (run ${session.greenRunId ?? 'none: nothing to verify with'}).`];
      return ['failed', outcome.reason];
    case 'stuck':
    case 'turn-limit':
    case 'no-completion':
      return ['hard-stop', `The Editor stopped without finishing: ${outcome.reason}`];
    case 'controlled':
    case 'quit':
    case 'provider-error':
      return ['failed', outcome.reason];
    default: {
      const never: never = outcome.status;
      return ['failed', String(never)];
    }
  }
}
