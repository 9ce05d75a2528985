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
import type { Config } from '../../config/config.js';
import { projectOf, type OpenedParts, type Project } from '../../host/project.js';
import { EditwardenError, ErrorCode, toErrorInfo, type ErrorInfo } from '../../errors.js';
import { configUnder, editorFlavour, runProfile, type RunProfile } from '../../runs/profile.js';
import { Run } from '../../runs/run.js';
import { ensureRunDir, newRunId } from '../../runs/runs.js';
import { readFileTool } from '../../tools/read-file.js';
import { ToolRunner, type RunnerEvent } from '../../tools/runner.js';
import { toolsetFor } from '../../tools/toolset.js';
import type { AnyTool } from '../../tools/types.js';
import { runAgent, type LoopLimits } from '../loop.js';
import type { RunControl } from '../run-control.js';
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
  /**
   * The project as the entry opened it (host/project.ts `openProject`), whole. Deprecated: the pieces of one
   * (`{ ws, config, transactions?, applyHooks? }`), still taken and made a Project at the door.
   */
  project: Project | OpenedParts;
  /** The Editor model. Required, except for apply-proposal, which then only verifies. */
  provider?: ModelProvider;
  task: string;
  /** Work against an overlay; the result is a proposal (one unified diff) in the run folder. */
  dryRun?: boolean;
  /** The config keys the user set (config/configured.ts): the Editor's own defaults give way to them (runs/profile.ts). */
  configured?: readonly string[];
  /** Seed the session with the latest stuck report of the same task (refused when there is none). */
  retry?: boolean;
  /** apply-proposal: this proposal is written first, then verified with the normal debug loop. */
  proposal?: { text: string; file: string };
  /** scouts.model: summarises scout payloads for the Editor (the raw payloads are recorded either way). */
  scoutProvider?: ModelProvider;
  activeEdit?: boolean;
  run?: RunControl;
  listeners?: EditorListeners;
  limits?: LoopLimits;
}

interface EditorListeners {
  onEvent?: (event: EditorRunEvent) => void;
  onRunnerEvent?: (event: RunnerEvent) => void;
  onStart?: (info: { runId: string; runDir: string }) => void;
}

/**
 * The config the Editor runs under: its profile's network and size limits
 * (runs/profile.ts: network on and no size limits unless the user set them),
 * what its toolset allows (its own tools always). A dry run's records say
 * on_violation: keep, as its profile's failure policy is (nothing on disk to
 * roll back); the policy itself is the profile's, not this value.
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

/** The options once the door has made the project whole. */
type EditorStart = RunEditorOptions & { project: Project };

export async function runEditor(options: RunEditorOptions): Promise<EditorResult> {
  const o: EditorStart = { ...options, project: 'applyOptions' in options.project ? options.project : projectOf(options.project) };
  const profile = runProfile('editor', { config: o.project.config, dryRun: o.dryRun, configured: o.configured });
  const run = startEditorRun(o, profile);
  try {
    return await driveSession(run, o, profile);
  } catch (error) {
    const info = toErrorInfo(error);
    const cancelled = o.run?.signal?.aborted === true;
    return closeEditorRun(run, cancelled ? 'cancelled' : 'failed', cancelled ? 'Cancelled.' : `${info.code}: ${info.message}`, info);
  }
}

/** Refuses what cannot run (before any folder exists), then names the run, its folder, its surface and its session. */
function startEditorRun(o: EditorStart, profile: RunProfile): EditorRun & { scope: string } {
  const now = o.run?.now ?? (() => new Date());
  const startedAt = now().toISOString();
  if (profile.dryRun && o.proposal) throw usage('A proposal cannot be applied in a dry run.', 'Drop --dry-run to apply the proposal.');
  if (!o.provider && !o.proposal) throw usage('The Editor needs a model.', 'Pass --model provider:model.');
  const key = taskKey(o.task);
  const seed = o.retry ? latestStuckReport(o.project.ws, key) : null;
  if (o.retry && !seed) throw noStuckReport();

  const runId = o.run?.id ?? newRunId(now());
  const runDir = ensureRunDir(o.project.ws, runId);
  o.listeners?.onStart?.({ runId, runDir });
  const emit = (event: EditorRunEvent): void => {
    try {
      o.listeners?.onEvent?.(event);
    } catch {
      // A display must not break the session it displays.
    }
  };
  const config = editorConfig(o.project.config, profile);
  const surface = profile.dryRun ? overlaySurface(o.project.ws, runDir) : diskSurface(o.project.ws, o.project.transactions);
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
    ...(o.run?.signal ? { signal: o.run.signal } : {}),
  });
  const flavour = editorFlavour(profile, o.proposal !== undefined);
  const owner = new Run({ profile, id: runId, ...(o.run?.signal ? { signal: o.run.signal } : {}) });
  return {
    project: o.project,
    task: o.task,
    taskKey: key,
    flavour,
    provider: o.provider,
    seed,
    runId,
    runDir,
    startedAt,
    now,
    surface,
    recorder,
    session,
    emit,
    owner,
    runner: null,
    transcript: null,
    outcome: undefined,
    config,
    profile,
    scope,
  };
}

type Started = ReturnType<typeof startEditorRun>;

/** The session's steps, in the order the design gives them. */
async function driveSession(run: Started, o: EditorStart, profile: RunProfile): Promise<EditorResult> {
  const { session } = run;
  // 1. Scout B first: the baseline of failures is taken before any edit.
  const environment = await session.environmentScout(profile.dryRun ? 'dry run: no verification runs' : true);
  if (o.run?.signal?.aborted) return closeEditorRun(run, 'cancelled', 'Cancelled before the first edit.');

  // 2. The run's transaction every write of the session joins, as its failure policy wants it (fix forward; rollback under
  // on_violation: rollback; none in a dry run, whose surface has no transactions).
  session.tx = run.owner.open(run.surface.transactions, { name: `editor ${run.runId}`, reason: `editor session: ${o.task.trim().split('\n')[0]?.slice(0, 80)}` });

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
    const verified = await session.verification('proposal', o.run?.signal);
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
  if (judged[0] === 'hard-stop') await askForHypotheses(o.provider as ModelProvider, system, messageHistory(message, outcome), session, judged[1], o.run?.signal);
  return closeEditorRun(run, ...judged);
}

/** Writes the proposal all or nothing; the refusal (nothing written) when it does not apply. */
async function applyProposalFirst(run: Started, o: EditorStart, proposal: { text: string; file: string }): Promise<{ reason: string; info: ErrorInfo } | null> {
  const options = o.project.applyOptions;
  const planned = await applyProposal(o.project.ws, proposal.text, { ...options, dryRun: true });
  for (const f of planned.files) run.surface.capture(f);
  const applied = await applyProposal(o.project.ws, proposal.text, options);
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
function editorToolset(run: Started, o: EditorStart, profile: RunProfile): AnyTool[] {
  // Reading and writing, no commands (only the Verifier's run), nobody to ask: the toolset's file tools.
  const fileTools = toolsetFor(profile, run.config, { own: editorToolNames() }).tools;
  const readTools = run.surface.readTools();
  // The Editor reads the Verifier's evidence (read-only, the design's write-authority table) with its read_file.
  const withArtifacts = fileTools.map((t) => (t.name === readFileTool.name ? editorReadFile(readFileTool, o.project.ws) : t));
  return [...withArtifacts.filter((t) => !readTools.some((r) => r.name === t.name)), ...readTools, ...editorTools(run.session)];
}

/** The runner, the prompt, the transcript and the loop; leaves the runner, transcript and outcome on `run` and answers the system prompt. */
async function runModelLoop(run: Started, o: EditorStart, profile: RunProfile, message: string, prompt: Pick<Parameters<typeof buildEditorPrompt>[0], 'environment' | 'layoutHint'>): Promise<string> {
  const { config, session, surface } = run;
  const provider = o.provider as ModelProvider;
  const tools = editorToolset(run, o, profile);
  const runner = ToolRunner.start({
    project: o.project,
    // A dry run's runner works on the overlay; it still checkpoints through the project's layer (commands).
    view: surface.ws,
    // The session's run: its transaction (opened in step 2) is settled by the runner's finish; Ctrl-C (its signal)
    // stops the running tool call at once (a command's process group is killed); work so far is kept.
    run: run.owner,
    toolset: { config, tools },
    // Headless: nobody approves; the hook only notes what each write is about to change.
    approve: (request) => {
      for (const c of request.changes ?? []) surface.capture(c.path);
      return { approved: true };
    },
    ...(o.listeners?.onRunnerEvent ? { onEvent: o.listeners.onRunnerEvent } : {}),
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
    task: message,
    system,
    tools: names,
    activeEdit,
    transcript,
    ...(o.run?.signal ? { signal: o.run.signal } : {}),
    onEvent: (event) => run.emit({ type: 'agent', event }),
    ...(o.limits ? { limits: o.limits } : {}),
    // The Editor's word after each call: a call that changed files makes the last green verification stale.
    afterCall: ({ record }) => {
      if (record && record.files.length > 0) session.markChanged();
      return { next: 'continue' };
    },
  });
  // The session's outcome is judged after the loop (verdict.ts); the closing writes the end line and the stop event from it.
  return system;
}
