/**
 * `editwarden hook <client> <event>`: what a client's hook runs. Reads the
 * hook input (JSON on stdin), and for a pre-tool event vets the native edit
 * (vet.ts) and answers allow or deny in the client's protocol; for a
 * post-tool event records what changed. Fails closed: input it cannot read,
 * or any error while vetting, is a refusal — a guard that crashes open
 * guards nothing.
 */
import path from 'node:path';
import { ErrorCode } from '../errors.js';
import { selfCommand, shellRunnerLine, type ClientIntegration, type HookOutput, type ShellRewrite } from './client.js';
import { hookRoute, recordHookEdit, recordHookRefusal } from './hook-events.js';
import { NativeInputError, objectOf } from './native-edit.js';
import { sessionOf } from './session-ledger.js';
import { recordNativeEdit, vetNativeEdit } from './vet.js';

export interface HookContext {
  /** --root, else the client's project folder (CLAUDE_PROJECT_DIR / GEMINI_PROJECT_DIR), else the input's cwd, else the working folder. */
  root?: string;
  /** An explicit config file (`--config`, relative to the root): loaded instead of .editwarden.yml and protected with it. */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** argv of the editwarden a rewritten shell command runs (default: this one). */
  self?: readonly string[];
}

export function hookRoot(client: ClientIntegration, input: Record<string, unknown>, ctx: HookContext): string {
  if (ctx.root) return ctx.root;
  const fromEnv = client.name === 'claude' ? ctx.env.CLAUDE_PROJECT_DIR : client.name === 'gemini' ? ctx.env.GEMINI_PROJECT_DIR : client.name === 'cursor' ? ctx.env.CURSOR_PROJECT_DIR : undefined;
  if (fromEnv) return fromEnv;
  if (typeof input.cwd === 'string' && input.cwd !== '') return input.cwd;
  return ctx.cwd;
}

/** The tool input of a call to the client's shell tool, or null for any other tool. */
function shellCall(client: ClientIntegration, input: Record<string, unknown>): Record<string, unknown> | null {
  if (!client.shell || typeof input.tool_name !== 'string' || !client.shell.tools.includes(input.tool_name)) return null;
  return objectOf(input.tool_input, 'tool_input');
}

export async function runHook(client: ClientIntegration, event: string, stdin: string, ctx: HookContext): Promise<HookOutput> {
  const kind = client.events[event];
  if (!kind) {
    return client.deny({ code: ErrorCode.USAGE, message: `${client.name} has no hook event ${JSON.stringify(event)}.`, hint: `Events: ${Object.keys(client.events).join(', ')}. Run \`editwarden init ${client.name}\` again.` });
  }
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(stdin);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    input = parsed as Record<string, unknown>;
  } catch {
    return kind === 'pre' ? client.deny(new NativeInputError('the hook input is not a JSON object').toJSON()) : client.allow();
  }
  const root = hookRoot(client, input, ctx);
  const configFile = ctx.configFile !== undefined ? path.resolve(root, ctx.configFile) : undefined;

  if (kind === 'post') {
    try {
      const { tool, call } = client.postCall(input);
      recordHookEdit(root, hookRoute(client.name, input), tool, recordNativeEdit(root, client.name, tool, call, configFile));
    } catch (error) {
      // The edit already happened; a record that fails must not turn into an error the model chases.
      return { exitCode: 0, stderr: `editwarden: could not record the change: ${error instanceof Error ? error.message : String(error)}` };
    }
    return client.allow();
  }

  if (typeof input.tool_name === 'string' && client.shellRefused?.includes(input.tool_name)) {
    const refusal = {
      code: ErrorCode.SHELL_NOT_GUARDED,
      message: `${client.name}'s own shell (${input.tool_name}) cannot run through editwarden's sandbox, undo and limits, so it is refused.`,
      hint: 'Run the same command with the editwarden MCP tool execute_command (arguments: command, and cwd relative to the project); its output and exit code come back the same way.',
    };
    recordHookRefusal(root, hookRoute(client.name, input), input.tool_name, null, refusal);
    return client.deny(refusal);
  }
  const shell = shellCall(client, input);
  if (shell) {
    try {
      const command = client.shell?.commandOf(shell) ?? '';
      // A NUL cannot travel in an argument: such a command could not be run as the model wrote it.
      if (command.includes('\0')) throw new NativeInputError('the command holds a NUL byte');
      const session = sessionOf(client.name, input);
      const line = shellRunnerLine(ctx.self ?? selfCommand(), { root, client: client.name, tool: String(input.tool_name), ...(session ? { session: session.session } : {}), ...(configFile ? { configFile } : {}) }, command);
      return (client.shell as ShellRewrite).rewrite(shell, line);
    } catch (error) {
      const refusal = (error instanceof NativeInputError ? error : new NativeInputError(String(error))).toJSON();
      recordHookRefusal(root, hookRoute(client.name, input), String(input.tool_name), null, refusal);
      return client.deny(refusal);
    }
  }

  let edit;
  try {
    edit = client.nativeEdit(input);
  } catch (error) {
    const refusal = (error instanceof NativeInputError ? error : new NativeInputError(String(error))).toJSON();
    recordHookRefusal(root, hookRoute(client.name, input), typeof input.tool_name === 'string' ? input.tool_name : '(unknown tool)', null, refusal);
    return client.deny(refusal);
  }
  if (!edit) return client.allow();
  const session = sessionOf(client.name, input);
  const verdict = await vetNativeEdit(root, session ? { ...edit, session } : edit, configFile);
  // Every refusal is in the event log (`editwarden log`): a person sees what the hook stopped.
  if (!verdict.allow) recordHookRefusal(root, hookRoute(client.name, input), edit.tool, edit, verdict.error);
  return verdict.allow ? client.allow() : client.deny(verdict.error);
}
