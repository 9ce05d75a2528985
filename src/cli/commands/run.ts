/**
 * `editwarden run`: editwarden's own agent on a task, with a model.
 *
 *   editwarden run --task "…" | --task-file F  --model provider:model
 *                  [--mode headless|interactive|controlled|editor] [--retry] [--dry-run] [--root DIR] [--config F]
 *                  [constraint flags] [--active-edit] [--base-url URL] [--json]
 *
 * A live transcript on a terminal (model text, tool calls, diffs, the
 * constraint status line); the run folder `.editwarden/runs/<run_id>/`
 * holds transcript.jsonl, calls.jsonl, metrics.json and the reports. Exit
 * codes: 0 done, 1 not completed / refused / provider error, 2 constraint
 * violated, 3 build failed (controlled), 4 stuck or turn limit, 64 usage,
 * 130 interrupted. Ctrl-C stops cleanly (the running tool call is stopped —
 * a command's whole process group killed —, partial work kept) and names
 * the run folder; a second Ctrl-C leaves at once. Thin: flags → session → print.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import type { Config } from '../../config/config.js';
import type { ConfigTrust } from '../../config/trust-state.js';
import type { ConfigLayers } from '../../config/layers.js';
import { ErrorCode, formatRefusal, toErrorInfo, type ErrorInfo } from '../../errors.js';
import { apiKeyEnvProblem, providerFromFlags } from '../model-flags.js';
import { RUN_MODES, type RunMode } from '../../config/modes.js';
import { addConstraintOptions, constraintOverrides, type ConstraintFlags } from '../constraint-flags.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { defined } from '../../defined.js';

interface RunFlags extends ConstraintFlags {
  task?: string;
  taskFile?: string;
  model?: string;
  mode?: RunMode;
  retry?: boolean;
  dryRun?: boolean;
  root?: string;
  config?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  stream?: boolean;
  activeEdit?: boolean;
  context?: string[];
  maxTurns?: string;
  maxOutputTokens?: string;
  build?: string;
  buildTimeout?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerRun(program: Command, io: Io, setExit: (code: number) => void): void {
  const command = program
    .command('run')
    .description("Run editwarden's agent on a task with a model: headless (constraints), interactive (approve each change) or controlled (one edit, build, rollback).")
    .option('--task <text>', 'what the agent should do')
    .option('--task-file <file>', 'read the task from a file')
    .option('--model <provider:model>', 'openai:gpt-4.1, anthropic:claude-…, ollama:qwen2.5-coder, openai-compatible:NAME (with --base-url), replay:FILE')
    .addOption(new Option('--mode <mode>', 'headless, interactive, controlled or editor').choices([...RUN_MODES]).default('headless'))
    .option('--retry', 'editor: seed the session with the latest stuck report of the same task')
    .option('--dry-run', 'editor: work against an overlay and save one unified diff as a proposal; nothing is written or verified')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--base-url <url>', "the provider's endpoint (OpenAI-compatible servers: …/v1)")
    .option('--api-key-env <name>', "environment variable holding the key (default: the provider's usual one)")
    .option('--no-stream', 'ask for whole replies instead of streamed ones')
    .option('--active-edit', 'let the model write active edit directives in its replies (config: active_edit_enabled)')
    .option('--context <file>', 'send this file with the task (repeatable)', collect)
    .option('--max-turns <n>', 'model turns before the run stops (default 50)')
    .option('--max-output-tokens <n>', 'output token cap per model turn')
    .option('--build <cmd>', 'controlled mode: the build command (default: verify.build, else detected)')
    .option('--build-timeout <seconds>', 'controlled mode: build timeout')
    .option('--json', 'print the outcome as JSON (no live transcript)');
  addConstraintOptions(command).action(async (flags: RunFlags) => {
    setExit(await runAgentCommand(flags, io));
  });
}

/** Refusals before anything ran: usage problems exit 64. */
function refuse(info: ErrorInfo, flags: RunFlags, io: Io): number {
  return refuseCommand(info, flags.json === true, io);
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw Object.assign(new Error(`${flag} must be a positive number.`), { usage: true });
  return n;
}

async function runAgentCommand(flags: RunFlags, io: Io): Promise<number> {
  // Everything heavy loads here, so registering `run` costs the other commands nothing at start-up.
  const [{ withOverrides }, { loadProjectConfig }, { formatStatus }, { openForCommand }] = await Promise.all([import('../../config/config.js'), import('../../config/load.js'), import('../run-status.js'), import('../workspace.js')]);
  const root = flags.root ?? process.cwd();
  const usageHint = 'Run `editwarden run --help`.';
  if (!flags.model) return refuse({ code: 'E_USAGE', message: 'run needs --model provider:model.', hint: usageHint }, flags, io);
  if ((flags.task === undefined) === (flags.taskFile === undefined)) {
    return refuse({ code: 'E_USAGE', message: 'run needs exactly one of --task or --task-file.', hint: usageHint }, flags, io);
  }
  let task: string;
  let config: Config;
  let trust: ConfigTrust;
  /** The keys the user set (file and flags): the Editor's own defaults give way to them. */
  let configured: string[] = [];
  let layers: ConfigLayers | undefined;
  let maxTurns: number | undefined;
  let maxOutputTokens: number | undefined;
  let buildTimeout: number | undefined;
  try {
    task = flags.task ?? fs.readFileSync(flags.taskFile as string, 'utf8');
    if (task.trim() === '') throw Object.assign(new Error('The task is empty.'), { usage: true });
    const loaded = loadProjectConfig(root, flags.config);
    const base = loaded.config;
    trust = loaded.trust;
    const overrides = { ...constraintOverrides(base, flags), ...defined({ active_edit_enabled: flags.activeEdit ? true : undefined }) };
    config = withOverrides(base, overrides);
    const { configuredOf, leafKeys, withFlagKeys } = await import('../../config/layers.js');
    layers = withFlagKeys(loaded.layers, leafKeys(overrides));
    configured = configuredOf(layers);
    maxTurns = positive(flags.maxTurns, '--max-turns');
    maxOutputTokens = positive(flags.maxOutputTokens, '--max-output-tokens');
    buildTimeout = positive(flags.buildTimeout, '--build-timeout');
    // The model key must never reach a command: a name on the environment allowlist would pass it on.
    const keyProblem = apiKeyEnvProblem(flags.apiKeyEnv, config.sandbox.env);
    if (keyProblem) throw Object.assign(new Error(keyProblem), { usage: true });
  } catch (error) {
    const usage = (error as { usage?: boolean }).usage === true || (error as NodeJS.ErrnoException).code === 'ENOENT';
    const info = usage ? { code: ErrorCode.USAGE, message: (error as Error).message, hint: usageHint } : toErrorInfo(error);
    return refuse(info, flags, io);
  }

  // The model layer loads only for this command.
  const { createProvider } = await import('../../agent/providers/spec.js');
  const { AgentError } = await import('../../agent/providers/errors.js');
  let provider;
  try {
    provider = await providerFromFlags(flags.model, flags, io.env, maxOutputTokens);
  } catch (error) {
    if (error instanceof AgentError) return refuse(error.toJSON(), flags, io);
    throw error;
  }

  const mode = flags.mode ?? 'headless';
  if ((flags.retry || flags.dryRun) && mode !== 'editor') {
    return refuse({ code: 'E_USAGE', message: '--retry and --dry-run belong to --mode editor.', hint: usageHint }, flags, io);
  }
  const json = flags.json === true;
  const color = useColor(io);
  let opened;
  try {
    opened = await openForCommand(root, config, io, json, flags.config, trust, layers);
  } catch (error) {
    return refuse(toErrorInfo(error), flags, io);
  }

  if (mode === 'editor') {
    // The Editor installs its own Ctrl-C handling.
    const { runEditorCommand } = await import('../editor-command.js');
    const { taskWithContext } = await import('../../agent/session.js');
    let scoutProvider;
    try {
      // scouts.model: a second model that summarises scout payloads (same key rules as --model).
      scoutProvider = config.scouts.model ? createProvider(config.scouts.model, { env: io.env, stream: false }) : undefined;
    } catch (error) {
      if (error instanceof AgentError) return refuse(error.toJSON(), flags, io);
      throw error;
    }
    return runEditorCommand(io, {
      ...defined({ scoutProvider }),
      opened,
      configured,
      provider,
      task: flags.context ? taskWithContext(opened.ws, task, flags.context) : task,
      retry: flags.retry === true,
      dryRun: flags.dryRun === true,
      json,
      activeEdit: config.active_edit_enabled,
      limits: defined({ maxTurns, maxOutputTokens }),
    });
  }

  const { runAgentSession } = await import('../../agent/session.js');
  const { createLiveRenderer } = await import('../live-transcript.js');
  const { createTerminalPrompter } = await import('../terminal-prompter.js');

  // Ctrl-C: the first stops cleanly (the running tool call or model request is cancelled); the second leaves at once.
  const controller = new AbortController();
  let runDir: string | null = null;
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      controller.abort(new Error('interrupted'));
      io.stderr.write(`\n${paint(useColor(io, 'stderr'), 'yellow', 'Stopping: the current step is cancelled, the work so far is kept')} (Ctrl-C again to leave now)…\n`);
      return;
    }
    io.stderr.write(`\nLeft at once; the work so far is kept.${runDir ? ` Run folder: ${runDir}` : ''}\n`);
    process.exit(130);
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);

  // The limits the run has, by its mode (an interactive run's unset caps are none): what the status line shows.
  const { configUnder, runProfile } = await import('../../runs/profile.js');
  const runLimits = configUnder(config, runProfile(mode, { config, layers })).constraints;
  const prompter = mode === 'interactive' ? createTerminalPrompter(io, { color, onInterrupt, root: opened.ws.root }) : null;
  let totals: (() => string) | undefined;
  const live = json
    ? undefined
    : createLiveRenderer(io.stdout, {
        color,
        ...defined({ status: io.stdout.isTTY ? () => (totals ? totals() : '') : undefined }),
        diffs: mode !== 'interactive',
      });

  try {
    const result = await runAgentSession({
      project: opened,
      mode,
      provider,
      task,
      ...defined({ contextFiles: flags.context }),
      activeEdit: config.active_edit_enabled,
      run: { signal: controller.signal },
      limits: defined({ maxTurns, maxOutputTokens }),
      build: defined({ command: flags.build || undefined, timeoutMs: buildTimeout !== undefined ? buildTimeout * 1000 : undefined }),
      ...(prompter ? { person: { approve: prompter.approve, interaction: prompter.interaction, followUp: prompter.followUp, quitRequested: prompter.quitRequested } } : {}),
      listeners: {
        ...defined({ onEvent: live }),
        onStart: (info) => {
          runDir = info.runDir;
          totals = () => formatStatus(info.totals(), runLimits);
          if (!json)
            io.stdout.write(`${paint(color, 'bold', 'editwarden run')} ${info.runId} · ${provider.id} · ${mode} · active edit: ${mode !== 'controlled' && config.active_edit_enabled ? 'on' : 'off'} · tools: ${info.tools.join(', ')}\n`);
        },
      },
    });
    const { outcome, summary } = result;
    if (json) {
      writeJson(io, {
        ok: outcome.exitCode === 0,
        status: outcome.status,
        reason: outcome.reason,
        exit_code: outcome.exitCode,
        run_id: result.runId,
        run_dir: result.runDir,
        transcript: result.transcriptFile,
        metrics: result.metricsFile,
        reports: summary.reports,
        model: provider.id,
        mode,
        turns: outcome.turns,
        usage: outcome.usage,
        tool_calls: outcome.toolCalls,
        malformed_calls: outcome.malformedCalls,
        active_edits: outcome.activeEdits,
        files: summary.metrics.files,
        ...defined({ completion: outcome.completion, violation: outcome.violation }),
        ...defined({
          controlled: outcome.controlled
            ? { tool_exit_code: outcome.controlled.tool_exit_code, message: outcome.controlled.message, state: outcome.controlled.state, rolled_back: outcome.controlled.rolled_back, report: outcome.controlled.report }
            : undefined,
        }),
        ...defined({ error: outcome.error }),
      });
    } else {
      const m = summary.metrics;
      const out = [''];
      const tone = outcome.exitCode === 0 ? 'green' : 'red';
      out.push(`${paint(color, tone, outcome.status)} — ${outcome.reason}`);
      if (outcome.completion) out.push(`  summary: ${outcome.completion.summary}`);
      out.push(`  ${formatStatus(m.constraints.actual, runLimits).replace(/^⏵ /, '')} · ${outcome.turns} turn(s), ${outcome.toolCalls} call(s), ${outcome.malformedCalls} malformed`);
      if (outcome.error) out.push(formatRefusal(outcome.error).replace(/^/gm, '  '));
      if (outcome.status === 'interrupted') out.push('  The work so far is kept.');
      if (m.outcome === 'rolled-back') out.push('  on_violation: rollback — the run was undone.');
      out.push(`  run folder: ${result.runDir ?? '(none)'}`);
      if (result.transcriptFile) out.push(`  transcript: ${result.transcriptFile}`);
      if (result.metricsFile) out.push(`  metrics: ${result.metricsFile}`);
      if (result.metricsFile && m.outcome !== 'rolled-back') out.push(`  undo this run: editwarden undo --run ${result.runId}`);
      if (summary.reports.violationMarkdown) out.push(`  violation report: ${summary.reports.violationMarkdown}`);
      if (outcome.controlled?.report) out.push(`  controlled-edit report: ${outcome.controlled.report.markdown}`);
      io.stdout.write(`${out.join('\n')}\n`);
    }
    return outcome.exitCode;
  } finally {
    prompter?.close();
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  }
}
