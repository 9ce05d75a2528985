/**
 * `editwarden hook <client> <event>`: what a client's hook runs. Reads the
 * hook input (JSON on stdin), and for a pre-tool event vets the native edit
 * (vet.ts) and answers allow or deny in the client's protocol; for a
 * post-tool event records what changed. Fails closed: input it cannot read,
 * or any error while vetting, is a refusal — a guard that crashes open
 * guards nothing.
 */
import { ErrorCode } from '../errors.js';
import type { ClientIntegration, HookOutput } from './client.js';
import { hookRoute, recordHookEdit, recordHookRefusal } from './hook-events.js';
import { NativeInputError } from './native-edit.js';
import { recordNativeEdit, vetNativeEdit } from './vet.js';

export interface HookContext {
  /** --root, else the client's project folder (CLAUDE_PROJECT_DIR / GEMINI_PROJECT_DIR), else the input's cwd, else the working folder. */
  root?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function hookRoot(client: ClientIntegration, input: Record<string, unknown>, ctx: HookContext): string {
  if (ctx.root) return ctx.root;
  const fromEnv = client.name === 'claude' ? ctx.env.CLAUDE_PROJECT_DIR : client.name === 'gemini' ? ctx.env.GEMINI_PROJECT_DIR : client.name === 'cursor' ? ctx.env.CURSOR_PROJECT_DIR : undefined;
  if (fromEnv) return fromEnv;
  if (typeof input.cwd === 'string' && input.cwd !== '') return input.cwd;
  return ctx.cwd;
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

  if (kind === 'post') {
    try {
      const { tool, call } = client.postCall(input);
      recordHookEdit(root, hookRoute(client.name, input), tool, recordNativeEdit(root, client.name, tool, call));
    } catch (error) {
      // The edit already happened; a record that fails must not turn into an error the model chases.
      return { exitCode: 0, stderr: `editwarden: could not record the change: ${error instanceof Error ? error.message : String(error)}` };
    }
    return client.allow();
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
  const verdict = await vetNativeEdit(root, edit);
  // Every refusal is in the event log (`editwarden log`): a person sees what the hook stopped.
  if (!verdict.allow) recordHookRefusal(root, hookRoute(client.name, input), edit.tool, edit, verdict.error);
  return verdict.allow ? client.allow() : client.deny(verdict.error);
}
