/**
 * execute_command: one shell command at the workspace root (or a folder in
 * it), through the verification runner: its own process group, a timeout,
 * the whole tree killed at the end, only a bounded tail in memory and the
 * full logs as artifacts of the run. Stopped at the run's deadline, and at
 * once when the run or the call is cancelled (the whole group is killed). What
 * the command changes on disk is charged to the limits by the runner, not
 * here. The command runs in the OS sandbox (src/sandbox); where there is
 * none, a headless run refuses it unless the config or --unsandboxed allows
 * it, and every result says which sandbox was in force.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { modelKeyEnvNames } from '../config/env-names.js';
import { EditwardenError, ErrorCode, toErrorInfo } from '../errors.js';
import { commandSandbox, sandboxInForce, unsandboxedRefusal } from '../sandbox/for-workspace.js';
import { runCommand } from '../verify/runner.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { defineTool, failure, stopCause, ToolErrorCode, type ToolContext, type ToolResult } from './types.js';
import { textArg } from './call-args.js';
import { defined } from '../defined.js';

const DEFAULT_COMMAND_TIMEOUT_S = 120;

const ExecuteCommandArgs = z
  .object({
    command: z.string().min(1).describe('Shell command (run with /bin/sh -c) at the workspace root.'),
    cwd: z.string().default('.').describe('Folder to run in, relative to the workspace root (default: the root).'),
    timeout: z
      .number()
      .positive()
      .max(24 * 3600)
      .default(DEFAULT_COMMAND_TIMEOUT_S)
      .describe(`Seconds before the command and everything it started are killed (default ${DEFAULT_COMMAND_TIMEOUT_S}).`),
  })
  .strict();

/**
 * Nobody watches a headless run: a command with the user's full rights (no
 * sandbox) is refused unless a person allowed it. Shared by every tool that
 * runs a command the agent chose or wrote (execute_command, MCP verify).
 */
export function refuseUnsandboxed(ctx: Pick<ToolContext, 'mode' | 'config' | 'sink'>, sandbox: SandboxPolicy): ToolResult | null {
  const unattended = ctx.mode === 'headless' || ctx.sink?.unattended === true;
  if (sandboxInForce(sandbox) !== 'none' || !unattended || (ctx.config.sandbox?.allow_unsandboxed ?? false)) return null;
  return { ...failure(unsandboxedRefusal(sandbox).toJSON()), data: { sandbox: 'none' } };
}

export const executeCommandTool = defineTool({
  name: 'execute_command',
  kind: 'command',
  describe: (a) => `$ ${textArg(a.command)}${a.cwd && a.cwd !== '.' ? `  (in ${textArg(a.cwd)})` : ''}`,
  description: [
    'Run a shell command at the workspace root, e.g. the build or the tests; returns the exit code and the last lines of output.',
    'No input is available (stdin is closed): never run interactive programs. The command and all its children are killed at the timeout.',
    "Files the command changes count against the run's file and line limits; do not use it to edit files — use edit_file.",
  ].join(' '),
  schema: ExecuteCommandArgs,
  async execute(args, ctx) {
    let cwd: string;
    try {
      const resolved = ctx.ws.resolve(args.cwd);
      if (!resolved.exists || !fs.statSync(resolved.absolute).isDirectory()) {
        throw new EditwardenError({
          code: ErrorCode.NO_FILE,
          message: `Folder ${args.cwd} does not exist.`,
          hint: 'Give a folder relative to the workspace root, or leave cwd out.',
          path: args.cwd,
        });
      }
      cwd = resolved.absolute;
    } catch (error) {
      return failure(toErrorInfo(error, args.cwd));
    }
    let sandbox: SandboxPolicy;
    try {
      sandbox = commandSandbox(ctx.ws, ctx.config, { envDeny: modelKeyEnvNames() });
    } catch (error) {
      // The protected set could not be made concrete (a tree past the nested-repository search's bound): not run.
      return failure(toErrorInfo(error));
    }
    const refused = refuseUnsandboxed(ctx, sandbox);
    if (refused) return refused;
    // Model API keys never reach a command the agent runs (and so never its output).
    const env = Object.fromEntries(modelKeyEnvNames().map((name) => [name, undefined]));
    // A caller's sink runs it its own way (the guarded shell: streamed through, in the client's folder, witnessed).
    const { result, seen } = ctx.sink
      ? await ctx.sink.run({ command: args.command, cwd, sandbox, env, signal: ctx.signal })
      : {
          result: await runCommand({
            command: args.command,
            cwd,
            sandbox,
            timeoutMs: args.timeout * 1000,
            signal: ctx.signal,
            env,
            ...defined({ artifactDir: ctx.runDir ? path.join(ctx.runDir, 'commands', String(ctx.call + 1)) : undefined }),
          }),
          seen: undefined,
        };
    const seconds = (result.duration_ms / 1000).toFixed(1);
    const cause = stopCause(ctx.signal);
    const stopped = cause === 'run-cancelled' ? 'stopped: the run was cancelled' : cause === 'call-cancelled' ? 'stopped: the call was cancelled' : "stopped at the run's deadline";
    const status = result.spawn_error
      ? `could not start: ${result.spawn_error}`
      : result.timed_out
        ? `killed after the ${args.timeout} s timeout`
        : result.aborted
          ? stopped
          : result.signal
            ? `ended by signal ${result.signal}`
            : `exit code ${result.exit_code}`;
    const output = `$ ${args.command}\n${status} (${seconds} s${result.sandbox === 'none' ? ', sandbox: none' : ''})${result.tail ? `\n${result.tail.trimEnd()}` : ''}`;
    const data = {
      exit_code: result.exit_code,
      signal: result.signal,
      timed_out: result.timed_out,
      aborted: result.aborted,
      duration_ms: result.duration_ms,
      artifacts: result.artifactDir,
      sandbox: result.sandbox,
      // What the network proxy refused (sandbox.network lists hosts): the event log records it with this call (call-events.ts).
      ...defined({ network_refused: result.network_refused }),
    };
    const saw = defined({ seen });
    if (result.exit_code === 0 && !result.timed_out && !result.aborted) return { ok: true, output, data, ...saw };
    const error = result.timed_out
      ? { code: ToolErrorCode.TIMEOUT, message: `The command was killed after ${args.timeout} s.`, hint: 'Raise timeout for slow commands, or run a narrower one (a single test file).' }
      : result.aborted
        ? cause === 'deadline' || cause === null
          ? { code: ToolErrorCode.TIMEOUT, message: "The command was stopped at the run's deadline.", hint: 'The run has no time left.' }
          : { code: ToolErrorCode.RUN_ENDED, message: `The command was ${stopped}.`, hint: 'Its whole process group was killed; files it changed before that are kept.' }
        : result.spawn_error
          ? { code: ToolErrorCode.COMMAND_FAILED, message: `The command could not start: ${result.spawn_error}.`, hint: 'Check the program name and the folder.' }
          : { code: ToolErrorCode.COMMAND_FAILED, message: `The command ${status}.`, hint: 'Read the output above, fix the cause, and run it again.' };
    return { ok: false, output, data, error, ...saw };
  },
});
