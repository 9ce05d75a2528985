/**
 * One agent run, assembled: the tools the mode offers, the ToolRunner (the
 * controlled session's edit_file in controlled mode), the system prompt,
 * the transcript in the run folder, the loop, and at the end the runner's
 * metrics.json with an `agent` section (model, turns, usage, malformed
 * calls, how it stopped). The CLI, the demo and the tests all start runs
 * here, so a mode is never wired twice.
 */
import { runProfile } from '../runs/profile.js';
import type { ConstraintTotals } from '../guard/constraints.js';
import { editFileTool } from '../tools/edit-file.js';
import { toolsetFor } from '../tools/toolset.js';
import { ToolRunner, type ApprovalHook, type ApprovalRequest, type RunSummary, type RunnerEvent } from '../tools/runner.js';
import type { Interaction } from '../tools/types.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Project } from '../host/project.js';
import { ControlledEditSession } from './controlled.js';
import { endTranscript, runAgent, type AgentEvent, type AgentOutcome, type LoopLimits, type LoopPerson } from './loop.js';
import type { RunControl } from './run-control.js';
import { Run } from '../runs/run.js';
import type { ControlledEditOutcome } from './controlled.js';
import { buildSystemPrompt, type AgentMode } from './prompts/index.js';
import type { ModelProvider } from './providers/types.js';
import { Transcript } from './transcript.js';
import { controlledEditTool } from './controlled-tool.js';
import { verifyingTaskCompletion } from './completion.js';
import { taskCompletionTool } from '../tools/control.js';

export interface AgentSessionOptions {
  /** The project as the entry opened it (host/project.ts), whole: the runner and controlled mode take it as it is. */
  project: Project;
  mode: AgentMode;
  provider: ModelProvider;
  task: string;
  /** Files whose content goes with the task (read through the workspace sandbox). */
  contextFiles?: string[];
  /** Active edit directives (default: config.active_edit_enabled). */
  activeEdit?: boolean;
  run?: Omit<RunControl, 'now'>;
  /** A person at the other end (interactive mode): approvals, answers, the follow-up when the model stops calling tools. */
  person?: SessionPerson;
  listeners?: SessionListeners;
  limits?: LoopLimits;
  /** controlled mode: the build command and its timeout (default: verify.build, else detected). */
  build?: { command?: string; timeoutMs?: number };
}

interface SessionPerson extends LoopPerson {
  approve?: ApprovalHook;
  interaction?: Interaction;
}

interface SessionListeners {
  onEvent?: (event: AgentEvent) => void;
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Called once the runner exists (the CLI names the run folder early, e.g. for Ctrl-C). */
  onStart?: (info: { runId: string; runDir: string | null; tools: string[]; totals: () => ConstraintTotals }) => void;
}

/** The loop's outcome, and in controlled mode the session's own (its one edit and build). */
type SessionOutcome = AgentOutcome & { controlled?: ControlledEditOutcome };

export interface AgentSessionResult {
  outcome: SessionOutcome;
  summary: RunSummary;
  runId: string;
  runDir: string | null;
  transcriptFile: string | null;
  tools: string[];
  /** metrics.json with the agent section (null without a run folder). */
  metricsFile: string | null;
}

/** The task text, with the context files appended (each read through the sandbox). */
export function taskWithContext(ws: Workspace, task: string, files: readonly string[] = []): string {
  const parts = [task.trim()];
  for (const file of files) {
    const snap = ws.read(file);
    if (!snap) throw new Error(`context file ${file} does not exist`);
    parts.push(`--- ${snap.path} ---\n${snap.bytes.toString('utf8')}${snap.bytes.toString('utf8').endsWith('\n') ? '' : '\n'}--- end of ${snap.path} ---`);
  }
  return parts.join('\n\n');
}

export async function runAgentSession(options: AgentSessionOptions): Promise<AgentSessionResult> {
  const { project, mode } = options;
  const { ws } = project;
  const person = options.person ?? {};
  const listeners = options.listeners ?? {};
  const build = options.build ?? {};
  const activeEdit = mode !== 'controlled' && (options.activeEdit ?? project.config.active_edit_enabled);
  // The keys the config's layers set: an interactive session's caps are only these (runs/profile.ts).
  const profile = runProfile(mode, { config: project.config, layers: project.layers });
  // Controlled mode's one tool stands in for edit_file; the toolset says what the mode offers and allows.
  const toolset = toolsetFor(profile, project.config, { activeEdit, own: mode === 'controlled' ? [editFileTool.name] : [] });
  const config = toolset.config;
  const tools = [...toolset.offered];
  const task = taskWithContext(ws, options.task, options.contextFiles);
  // Ctrl-C reaches the running tool call too (the run's signal): a long command is killed at once, not waited for;
  // in controlled mode the build is killed and the edit, without a passing build, is rolled back.
  const control = { ...(options.run?.id ? { id: options.run.id } : {}), ...(options.run?.signal ? { signal: options.run.signal } : {}) };

  let controlled: ReturnType<typeof controlledEditTool> | undefined;
  let transcript: Transcript | undefined;
  let runner: ToolRunner;
  const common = { project, ...(listeners.onRunnerEvent ? { onEvent: listeners.onRunnerEvent } : {}) };
  if (mode === 'controlled') {
    // One Run for the runner and the session: the session opens its transaction at the one edit (named after the
    // file) and settles a failed build by the run's policy; the build logs land in the run's folder.
    const run = new Run({ profile, ...control, opener: 'mode' });
    const session = new ControlledEditSession(project, {
      run,
      ...(build.command ? { buildCommand: build.command } : {}),
      ...(build.timeoutMs !== undefined ? { buildTimeoutMs: build.timeoutMs } : {}),
    });
    controlled = controlledEditTool(session);
    runner = ToolRunner.start({ ...common, run, toolset: { config, tools: [controlled.tool] } });
  } else {
    // Approvals and answers go into the transcript; the transcript opens once the run folder exists.
    const { approve, interaction } = person;
    const run = new Run({ profile, ...control });
    // Headless: task_completion verifies first when the project has a build or test command (verify.on_completion).
    const registry = mode === 'headless' ? toolset.tools.map((t) => (t.name === taskCompletionTool.name ? verifyingTaskCompletion(ws, config, run.id) : t)) : toolset.tools;
    runner = ToolRunner.start({
      ...common,
      run,
      toolset: { config, tools: registry },
      ...(approve
        ? {
            approve: async (request: ApprovalRequest) => {
              const decision = await approve(request);
              if (request.kind === 'write' || request.kind === 'command') {
                transcript?.write({ type: 'approval', tool: request.tool, decision: decision.approved ? 'approved' : 'declined', ...(!decision.approved && decision.reason ? { reason: decision.reason } : {}) });
              }
              return decision;
            },
          }
        : {}),
      ...(interaction
        ? {
            interaction: {
              ask: async (question: string, opts?: { choices?: string[] }) => {
                const answer = await interaction.ask(question, opts);
                transcript?.write({ type: 'question', question, answer });
                return answer;
              },
              converse: async (message: string) => {
                const reply = await interaction.converse(message);
                transcript?.write({ type: 'question', question: message, answer: reply });
                return reply;
              },
            },
          }
        : {}),
    });
  }
  listeners.onStart?.({ runId: runner.runId, runDir: runner.runDir, tools, totals: () => runner.totals() });

  transcript = new Transcript(runner.runDir);
  const system = buildSystemPrompt({
    mode,
    activeEdit,
    tools,
    ...(mode === 'controlled' && (build.command ?? config.verify.build) ? { notes: [`The build command is: ${build.command ?? config.verify.build}`] } : {}),
  });
  transcript.write({ type: 'start', run_id: runner.runId, model: options.provider.id, mode, task, tools, active_edit: activeEdit, system });

  let outcome: SessionOutcome;
  try {
    const loop = await runAgent({
      provider: options.provider,
      runner,
      task,
      system,
      tools,
      activeEdit,
      transcript,
      ...(control.signal ? { signal: control.signal } : {}),
      ...(listeners.onEvent ? { onEvent: listeners.onEvent } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(controlled ? { afterCall: controlled.afterCall } : {}),
      person,
    });
    const edit = controlled?.outcome();
    outcome = edit ? { ...loop, controlled: edit } : loop;
  } catch (error) {
    // Metrics and reports are written even when the loop throws: the run folder is the evidence.
    runner.finish();
    throw error;
  }
  // metrics.json is written once, by the runner, with the agent section riding along (readers ignore keys they do not know).
  // One outcome: the top-level status and `result` come from the same value as the transcript's end line and the exit code.
  const final = { status: outcome.status, reason: outcome.reason, exit_code: outcome.exitCode };
  endTranscript(transcript, final, listeners.onEvent);
  const summary = runner.finish({ outcome: final, sections: { agent: agentSection(outcome, options.provider.id, mode, activeEdit) } });
  const metricsFile = summary.reports.metrics ?? null;
  return { outcome, summary, runId: runner.runId, runDir: runner.runDir, transcriptFile: transcript.file, tools, metricsFile };
}

/** metrics.json's `agent` section: the model, how the loop went and how it stopped. */
function agentSection(outcome: SessionOutcome, model: string, mode: AgentMode, activeEdit: boolean): Record<string, unknown> {
  return {
    model,
    mode,
    active_edit: activeEdit,
    status: outcome.status,
    reason: outcome.reason,
    exit_code: outcome.exitCode,
    turns: outcome.turns,
    usage: outcome.usage,
    tool_calls: outcome.toolCalls,
    malformed_calls: outcome.malformedCalls,
    active_edits: outcome.activeEdits,
    ...(outcome.completion ? { completion: outcome.completion } : {}),
    ...(outcome.controlled ? { controlled: { tool_exit_code: outcome.controlled.tool_exit_code, message: outcome.controlled.message, state: outcome.controlled.state, rolled_back: outcome.controlled.rolled_back } } : {}),
  };
}
