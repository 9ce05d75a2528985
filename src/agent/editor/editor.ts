/**
 * The Editor: `runEditor` runs one session end to end — Scout B first (the
 * baseline must come before any edit), the fix-forward transaction, the
 * proposal when applying one, Scout A and the first context snapshot, the
 * model loop with the Editor's tools, and the closing (closing.ts): summary
 * on success, stuck report on hard stop, proposal after a dry run, nothing
 * after a cancel; `editor.json` and metrics in the run folder; the exit code
 * of DESIGN.md. Its three flavours are one RunProfile (mode editor, dry run
 * or not) and its input (a proposal to apply first, or not); what a dry run
 * changes is the surface the session works on (surface.ts). The CLI (`run
 * --mode editor`, `apply-proposal`), the demo and the tests all start
 * sessions here. The Editor writes project files only through the
 * ToolRunner (the model's edits), applyProposal and records.ts; every one of
 * those paths goes through the workspace sandbox.
 */
import type { ApplyOptions } from '../../apply/pipeline.js';
import type { Config } from '../../config/config.js';
import { editOptionsFromConfig } from '../../config/edit-options.js';
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../../errors.js';
import { configUnder, editorFlavour, runProfile, type RunProfile } from '../../runs/profile.js';
import { ensureRunDir, newRunId } from '../../runs/runs.js';
import { readFileTool } from '../../tools/read-file.js';
import { ToolRunner, type RunnerEvent } from '../../tools/runner.js';
import { toolsetFor } from '../../tools/toolset.js';
import type { AnyTool } from '../../tools/types.js';
import type { TransactionLayer } from '../../workspace/transaction.js';
import type { Workspace } from '../../workspace/workspace.js';
import { runAgent } from '../loop.js';
import type { ModelProvider } from '../providers/types.js';
import { Transcript } from '../transcript.js';
import { editorReadFile } from './artifact-read.js';
import { closeEditorRun, type EditorResult, type EditorRun, type EditorRunEvent } from './closing.js';
import { ContextRecorder } from './context.js';
import { buildEditorPrompt, firstMessage, scoutDigest } from './prompt.js';
import { applyProposal, readProposalHeader } from './proposal.js';
import { latestStuckReport, noStuckReport } from './retry.js';
import { EditorSession } from './session.js';
import { taskKey } from './state.js';
import { diskSurface, overlaySurface } from './surface.js';
import { editorToolNames, editorTools } from './tools.js';
import { askForHypotheses, judge, messageHistory } from './verdict.js';

export type { EditorResult, EditorRunEvent } from './closing.js';

export interface RunEditorOptions {
  ws: Workspace;
  transactions?: TransactionLayer;
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
  config: Config;
  /** The Editor model. Required, except for apply-proposal, which then only verifies. */
  provider?: ModelProvider;
  task: string;
  /** How the session runs (mode editor); built from `dryRun` and `configured` when omitted. */
  profile?: RunProfile;
  /** The config keys the user set (config/configured.ts), for the profile built when `profile` is omitted. */
  configured?: readonly string[];
  /** Work against an overlay; the result is a proposal (one unified diff) in the run folder. Ignored when `profile` is given. */
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

/**
 * The config the Editor runs under: its profile's network and size limits
 * (runs/profile.ts: network on and no size limits unless the user set them),
 * what its toolset allows (its own tools always), and in a dry run nothing on
 * disk to roll back.
 */
export function editorConfig(config: Config, profile: RunProfile): Config {
  const ruled = toolsetFor(profile, configUnder(config, profile), { own: editorToolNames() }).config;
  return profile.dryRun ? { ...ruled, constraints: { ...ruled.constraints, on_violation: 'keep' } } : ruled;
}

/** A limit for people and the model: "none" where the Editor has no size limit. */
function limit(n: number): string {
  return Number.isFinite(n) ? String(n) : 'none';
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
    `Constraints: max_files ${limit(c.max_files)}, max_lines_changed ${limit(c.max_lines_changed)}, allowed_patterns ${JSON.stringify(c.allowed_patterns)}, denied_patterns ${JSON.stringify(c.denied_patterns)}, max_tokens ${c.max_tokens}, timeout ${c.timeout} s.`,
    `Mode: editor${dryRun ? ' (dry run: overlay, no verification)' : ' (fix forward)'}.`,
  ].join('\n');
}

function usage(message: string, hint: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.USAGE, message, hint });
}

export async function runEditor(o: RunEditorOptions): Promise<EditorResult> {
  const profile = o.profile ?? runProfile('editor', { config: o.config, dryRun: o.dryRun, configured: o.configured });
  const run = startEditorRun(o, profile);
  try {
    return await driveSession(run, o, profile);
  } catch (error) {
    const info = toErrorInfo(error);
    const cancelled = o.signal?.aborted === true;
    return closeEditorRun(run, cancelled ? 'cancelled' : 'failed', cancelled ? 'Cancelled.' : `${info.code}: ${info.message}`, info);
  }
}

/** Refuses what cannot run (before any folder exists), then names the run, its folder, its surface and its session. */
function startEditorRun(o: RunEditorOptions, profile: RunProfile): EditorRun & { scope: string } {
  const now = o.now ?? (() => new Date());
  const startedAt = now().toISOString();
  if (profile.dryRun && o.proposal) throw usage('A proposal cannot be applied in a dry run.', 'Drop --dry-run to apply the proposal.');
  if (!o.provider && !o.proposal) throw usage('The Editor needs a model.', 'Pass --model provider:model.');
  const key = taskKey(o.task);
  const seed = o.retry ? latestStuckReport(o.ws, key) : null;
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
  const config = editorConfig(o.config, profile);
  const surface = profile.dryRun ? overlaySurface(o.ws, runDir) : diskSurface(o.ws, o.transactions);
  const recorder = new ContextRecorder(surface.target, now);
  const scope = scopeOf(o.task, config, profile.dryRun);
  const session = new EditorSession({
    runId,
    task: o.task,
    ws: surface.ws,
    config,
    source: surface.source,
    recorder,
    dryRun: profile.dryRun,
    scope,
    ...(o.scoutProvider ? { scoutProvider: o.scoutProvider } : {}),
    emit,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const flavour = editorFlavour(profile, o.proposal !== undefined);
  return { ws: o.ws, task: o.task, taskKey: key, flavour, provider: o.provider, seed, runId, runDir, startedAt, now, surface, recorder, session, emit, tx: null, runner: null, transcript: null, outcome: undefined, config, profile, scope };
}

type Started = ReturnType<typeof startEditorRun>;

/** The session's steps, in the order the design gives them. */
async function driveSession(run: Started, o: RunEditorOptions, profile: RunProfile): Promise<EditorResult> {
  const { session, config } = run;
  // 1. Scout B first: the baseline of failures is taken before any edit.
  const environment = await session.environmentScout(profile.dryRun ? 'dry run: no verification runs' : true);
  if (o.signal?.aborted) return closeEditorRun(run, 'cancelled', 'Cancelled before the first edit.');

  // 2. The fix-forward transaction every write of the session joins (a run under on_violation: rollback has the runner's instead).
  if (run.surface.transactions && config.constraints.on_violation !== 'rollback') {
    run.tx = run.surface.transactions.begin({ name: `editor ${run.runId}`, reason: `editor session: ${o.task.trim().split('\n')[0]?.slice(0, 80)}`, onFailure: 'fix-forward' });
    session.tx = run.tx;
  }

  // 3. apply-proposal: the diff, all or nothing, through the sandbox.
  if (o.proposal) {
    const refused = await applyProposalFirst(run, o, o.proposal);
    if (refused) return closeEditorRun(run, 'failed', refused.reason, refused.info);
  }

  // 4. Scout A on the task, and the first context snapshot with both payloads raw.
  const code = await session.codebase(o.task);
  const first = run.recorder.snapshot({ reason: 'start', runId: run.runId, scope: run.scope, strategy: 1, body: session.stateBody() }, [
    { scout: 'environment', request: profile.dryRun ? 'start (dry run: no baseline)' : 'start: environment and baseline before any edit', payload: environment },
    { scout: 'codebase', request: 'start: the task as the query', payload: code },
  ]);
  run.emit({ type: 'context', file: first });

  // 5. apply-proposal: the full verification now; a model (if any) takes over on FAIL.
  let proposalFailure: string | null = null;
  if (o.proposal) {
    const verified = await session.verification('proposal', o.signal);
    if (!verified) return closeEditorRun(run, 'cancelled', 'Cancelled during the verification.');
    if (verified.entry.passed) {
      const header = readProposalHeader(o.proposal.text);
      session.completion = { summary: `Applied the proposal ${o.proposal.file}${header.runId ? `, written by dry run ${header.runId}` : ''}, unchanged.`, status: 'done' };
      return closeEditorRun(run, 'success', `The proposal applied and verified green (run ${verified.entry.run_id}).`);
    }
    if (!o.provider) return closeEditorRun(run, 'verify-failed', `The proposal applied, but verification ${verified.entry.run_id} failed; the changes are kept (fix forward). Pass --model to let the Editor fix it.`);
    proposalFailure = session.report(verified);
  }

  // 6. The model loop.
  let message = firstMessage(o.task, scoutDigest(code, environment), first, run.seed);
  if (proposalFailure) message += `\n## The proposal was applied, and its verification failed\n\n${proposalFailure}\n`;
  const system = await runModelLoop(run, o, profile, message, { environment, layoutHint: code.conventions.tests.naming });
  const outcome = run.outcome;
  if (!outcome) throw new Error('the model loop ended without an outcome');
  const judged = judge(outcome, session, profile.dryRun);
  if (judged[0] === 'hard-stop') await askForHypotheses(o.provider as ModelProvider, system, messageHistory(message, outcome), session, judged[1], o.signal);
  return closeEditorRun(run, ...judged);
}

/** Writes the proposal all or nothing; the refusal (nothing written) when it does not apply. */
async function applyProposalFirst(run: Started, o: RunEditorOptions, proposal: { text: string; file: string }): Promise<{ reason: string; info: ErrorInfo } | null> {
  const options = { edit: editOptionsFromConfig(run.config), ...o.applyHooks };
  const planned = await applyProposal(o.ws, proposal.text, { ...options, dryRun: true });
  for (const f of planned.files) run.surface.capture(f);
  const applied = await applyProposal(o.ws, proposal.text, options);
  if (!applied.ok) {
    const bad = applied.results.find((r) => r.error && r.error.code !== ErrorCode.ABORTED) ?? applied.results.find((r) => r.error);
    const info = bad?.error ?? { code: ErrorCode.PARSE, message: 'The proposal holds no file change.', hint: 'Pass a proposal file written by a dry run.' };
    return { reason: `The proposal did not apply (nothing was written): ${bad?.path ? `${bad.path}: ` : ''}${info.message}`, info };
  }
  if (applied.results.length === 0) {
    const info: ErrorInfo = { code: ErrorCode.PARSE, message: `${proposal.file} holds no file change.`, hint: 'Pass a proposal file written by `editwarden run --mode editor --dry-run`.' };
    return { reason: info.message, info };
  }
  run.session.markChanged();
  return null;
}

/** The tools the Editor's model gets: the file tools the constraints allow (read_file with the Verifier's evidence), the surface's read tools, and its own. */
function editorToolset(run: Started, o: RunEditorOptions, profile: RunProfile): AnyTool[] {
  // Reading and writing, no commands (only the Verifier's run), nobody to ask: the toolset's file tools.
  const fileTools = toolsetFor(profile, run.config, { own: editorToolNames() }).tools;
  const readTools = run.surface.readTools();
  // The Editor reads the Verifier's evidence (read-only, the design's write-authority table) with its read_file.
  const withArtifacts = fileTools.map((t) => (t.name === 'read_file' ? editorReadFile(readFileTool, o.ws) : t));
  return [...withArtifacts.filter((t) => !readTools.some((r) => r.name === t.name)), ...readTools, ...editorTools(run.session)];
}

/** The runner, the prompt, the transcript and the loop; leaves the runner, transcript and outcome on `run` and answers the system prompt. */
async function runModelLoop(run: Started, o: RunEditorOptions, profile: RunProfile, message: string, prompt: Pick<Parameters<typeof buildEditorPrompt>[0], 'environment' | 'layoutHint'>): Promise<string> {
  const { config, session, surface } = run;
  const provider = o.provider as ModelProvider;
  const tools = editorToolset(run, o, profile);
  const runner = ToolRunner.start({
    ws: surface.ws,
    config,
    profile,
    runId: run.runId,
    tools,
    // A dry run's runner still checkpoints through the disk's layer (commands); its writes stay in the overlay.
    transactions: o.transactions ?? o.ws.transactions,
    // Ctrl-C stops the running tool call at once (a command's process group is killed); work so far is kept.
    ...(o.signal ? { signal: o.signal } : {}),
    apply: { edit: editOptionsFromConfig(config), ...o.applyHooks },
    // Headless: nobody approves; the hook only notes what each write is about to change.
    approve: (request) => {
      for (const c of request.changes ?? []) surface.capture(c.path);
      return { approved: true };
    },
    onEvent: (event) => {
      if (event.type === 'call-end' && event.record.files.length > 0) session.markChanged();
      o.onRunnerEvent?.(event);
    },
  });
  run.runner = runner;
  session.attachRunner(runner);
  const names = tools.map((t) => t.name);
  const activeEdit = o.activeEdit ?? config.active_edit_enabled;
  const system = buildEditorPrompt({ dryRun: profile.dryRun, activeEdit, tools: names, environment: prompt.environment, layoutHint: prompt.layoutHint });
  const transcript = new Transcript(runner.runDir);
  run.transcript = transcript;
  transcript.write({ type: 'start', run_id: run.runId, model: provider.id, mode: 'editor', task: message, tools: names, active_edit: activeEdit, system });
  run.outcome = await runAgent({
    provider,
    runner,
    ws: surface.ws,
    config,
    mode: 'headless',
    task: message,
    system,
    tools: names,
    activeEdit,
    transcript,
    ...(o.signal ? { signal: o.signal } : {}),
    onEvent: (event) => run.emit({ type: 'agent', event }),
    ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
    ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
    // The session's outcome is judged by the caller; the closing writes the end line and the stop event from it.
    recordEnd: false,
  });
  return system;
}
