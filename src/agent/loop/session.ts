/**
 * One agent run, assembled: the tools the mode offers, the ToolRunner (the
 * controlled session's edit_file in controlled mode), the system prompt,
 * the transcript in the run folder, the loop, and at the end the runner's
 * metrics.json with an `agent` section (model, turns, usage, malformed
 * calls, how it stopped). The CLI, the demo and the tests all start runs
 * here, so a mode is never wired twice.
 */
import { runProfile } from '../../runs/profile.js';
import { editOptionsFromConfig } from '../../config/edit-options.js';
import type { ApplyOptions } from '../../apply/pipeline.js';
import type { Config } from '../../config/config.js';
import type { ConstraintTotals } from '../../guard/constraints.js';
import { newRunId } from '../../runs/runs.js';
import { editFileTool } from '../../tools/edit-file.js';
import { toolsetFor } from '../../tools/toolset.js';
import { ToolRunner, type ApprovalHook, type ApprovalRequest, type RunSummary, type RunnerEvent } from '../../tools/runner.js';
import type { Interaction } from '../../tools/types.js';
import type { TransactionLayer } from '../../workspace/transaction.js';
import type { Workspace } from '../../workspace/workspace.js';
import { ControlledEditSession } from '../controlled.js';
import { runAgent, type AgentEvent, type AgentOutcome } from '../loop.js';
import { buildSystemPrompt, type AgentMode } from '../prompts/index.js';
import type { ModelProvider } from '../providers/types.js';
import { Transcript } from '../transcript.js';
import { controlledEditTool } from './controlled-tool.js';
import { verifyingTaskCompletion } from './completion.js';

export interface AgentSessionOptions {
  ws: Workspace;
  transactions?: TransactionLayer;
  applyHooks?: Pick<ApplyOptions, 'prepareHooks' | 'hooks'>;
  config: Config;
  mode: AgentMode;
  provider: ModelProvider;
  task: string;
  /** Files whose content goes with the task (read through the workspace sandbox). */
  contextFiles?: string[];
  /** Active edit directives (default: config.active_edit_enabled). */
  activeEdit?: boolean;
  runId?: string;
  approve?: ApprovalHook;
  interaction?: Interaction;
  followUp?: (text: string) => Promise<string | null>;
  quitRequested?: () => boolean;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Called once the runner exists (the CLI names the run folder early, e.g. for Ctrl-C). */
  onStart?: (info: { runId: string; runDir: string | null; tools: string[]; totals: () => ConstraintTotals }) => void;
  maxTurns?: number;
  maxOutputTokens?: number;
  /** controlled mode: the build command and its timeout. */
  buildCommand?: string;
  buildTimeoutMs?: number;
}

export interface AgentSessionResult {
  outcome: AgentOutcome;
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
  const activeEdit = options.mode !== 'controlled' && (options.activeEdit ?? options.config.active_edit_enabled);
  const profile = runProfile(options.mode, { config: options.config });
  // Controlled mode's one tool stands in for edit_file; the toolset says what the mode offers and allows.
  const toolset = toolsetFor(profile, options.config, { activeEdit, own: options.mode === 'controlled' ? [editFileTool.name] : [] });
  const config = toolset.config;
  const tools = [...toolset.offered];
  const task = taskWithContext(options.ws, options.task, options.contextFiles);

  let controlled: ReturnType<typeof controlledEditTool> | undefined;
  let transcript: Transcript | undefined;
  let runner: ToolRunner;
  const common = {
    ws: options.ws,
    config,
    ...(options.transactions ? { transactions: options.transactions } : {}),
    apply: { edit: editOptionsFromConfig(config), ...options.applyHooks },
    ...(options.onRunnerEvent ? { onEvent: options.onRunnerEvent } : {}),
    // Ctrl-C reaches the running tool call too: a long command is killed at once, not waited for;
    // in controlled mode the build is killed and the edit, without a passing build, is rolled back.
    ...(options.signal ? { signal: options.signal } : {}),
  };
  if (options.mode === 'controlled') {
    // The session takes the runner's run id, so build logs land in the same run folder.
    const runId = options.runId ?? newRunId();
    const session = new ControlledEditSession(options.ws, {
      config,
      runId,
      ...(options.buildCommand ? { buildCommand: options.buildCommand } : {}),
      ...(options.buildTimeoutMs !== undefined ? { buildTimeoutMs: options.buildTimeoutMs } : {}),
      ...(options.applyHooks ? { applyHooks: options.applyHooks } : {}),
    });
    controlled = controlledEditTool(session);
    runner = ToolRunner.start({ ...common, profile, runId, tools: [controlled.tool] });
  } else {
    // Approvals and answers go into the transcript; the transcript opens once the run folder exists.
    const approve = options.approve;
    const interaction = options.interaction;
    const runId = options.runId ?? newRunId();
    // Headless: task_completion verifies first when the project has a build or test command (verify.on_completion).
    const registry = options.mode === 'headless' ? toolset.tools.map((t) => (t.name === 'task_completion' ? verifyingTaskCompletion(options.ws, config, runId) : t)) : toolset.tools;
    runner = ToolRunner.start({
      ...common,
      profile,
      runId,
      tools: registry,
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
  options.onStart?.({ runId: runner.runId, runDir: runner.runDir, tools, totals: () => runner.totals() });

  transcript = new Transcript(runner.runDir);
  const system = buildSystemPrompt({
    mode: options.mode,
    activeEdit,
    tools,
    ...(options.mode === 'controlled' && (options.buildCommand ?? config.verify.build) ? { notes: [`The build command is: ${options.buildCommand ?? config.verify.build}`] } : {}),
  });
  transcript.write({ type: 'start', run_id: runner.runId, model: options.provider.id, mode: options.mode, task, tools, active_edit: activeEdit, system });

  let outcome: AgentOutcome;
  try {
    outcome = await runAgent({
      provider: options.provider,
      runner,
      ws: options.ws,
      config,
      mode: options.mode,
      task,
      system,
      tools,
      activeEdit,
      transcript,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(controlled ? { controlledOutcome: controlled.outcome, controlledMalformed: controlled.malformed } : {}),
      ...(options.followUp ? { followUp: options.followUp } : {}),
      ...(options.quitRequested ? { quitRequested: options.quitRequested } : {}),
    });
  } catch (error) {
    // Metrics and reports are written even when the loop throws: the run folder is the evidence.
    runner.finish();
    throw error;
  }
  // metrics.json is written once, by the runner, with the agent section riding along (readers ignore keys they do not know).
  // One outcome: the top-level status and `result` come from the same value as the transcript's end line and the exit code.
  const summary = runner.finish({ outcome: { status: outcome.status, reason: outcome.reason, exit_code: outcome.exitCode }, sections: { agent: agentSection(outcome, options.provider.id, options.mode, activeEdit) } });
  const metricsFile = summary.reports.metrics ?? null;
  return { outcome, summary, runId: runner.runId, runDir: runner.runDir, transcriptFile: transcript.file, tools, metricsFile };
}

/** metrics.json's `agent` section: the model, how the loop went and how it stopped. */
function agentSection(outcome: AgentOutcome, model: string, mode: AgentMode, activeEdit: boolean): Record<string, unknown> {
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
