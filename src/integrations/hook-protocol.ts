/**
 * The two translations between a client's hook protocol and editwarden's
 * decision, so a hook call runs one way (hook.ts): read the input →
 * `translateHook` (the client's input in editwarden's terms) → decide →
 * `renderHook` (the decision in the client's protocol). The client modules
 * (claude.ts, gemini.ts, codex.ts, cursor.ts) supply the pieces; hook.ts
 * never asks them anything between the two.
 *
 * Must never: let input it cannot read become `pass` (an unreadable edit or
 * shell call is `unreadable`, which the hook refuses).
 */
import type { ErrorInfo } from '../errors.js';
import type { EventRoute } from '../runs/event-types.js';
import type { ClientIntegration, HookEventKind, HookOutput } from './client.js';
import { sessionOf } from './session-id.js';
import { NativeInputError, objectOf, type NativeEdit } from './native-edit.js';
import type { SessionKey } from '../runs/ledger.js';
import { defined } from '../defined.js';

/** A hook input as editwarden reads it. */
export type HookCall = { route: EventRoute; session: SessionKey | null } & (
  | /** A tool this hook does not guard (a read…): let through untouched. */ { kind: 'pass' }
  | { kind: 'edit'; edit: NativeEdit }
  | /** A call of the client's shell tool, to run through `editwarden shell` (`workdir`: the folder the model named for it, checked against the root). */ {
      kind: 'shell';
      tool: string;
      command: string;
      toolInput: Record<string, unknown>;
      workdir?: string;
    }
  | /** A shell tool whose input a hook cannot rewrite: refused with the way through MCP. */ { kind: 'shell-refused'; tool: string }
  | /** A call of editwarden's own MCP server (`tool`: its name there): its writes are charged to the session. `shellTool`: the client's own shell tool, which runs through `editwarden shell` (absent: it has none). */ {
      kind: 'mcp';
      tool: string;
      args: Record<string, unknown>;
      shellTool?: string;
    }
  | /** An edit or shell call whose input cannot be read: refused, since it cannot be vetted. */ { kind: 'unreadable'; tool: string; error: NativeInputError }
  | /** After the tool ran: what to record. */ { kind: 'post'; tool: string; call?: string; paths?: string[] }
  | /** Every earlier tool call of the session has ended (the client's Stop): settle what is pending (hook-settle.ts). */ { kind: 'settle' }
);

/** What the hook decided, before the client's protocol says it. */
export type HookDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; error: ErrorInfo }
  | /** Run `line` instead of the model's command (every other tool input field kept). */ { kind: 'rewrite'; toolInput: Record<string, unknown>; line: string }
  | /** Allowed, with a note on stderr (a post-tool record that failed: the edit already happened). */ { kind: 'note'; message: string };

function asInputError(error: unknown): NativeInputError {
  return error instanceof NativeInputError ? error : new NativeInputError(String(error));
}

/** The client's hook input in editwarden's terms (never throws: what cannot be read is `unreadable`). */
export function translateHook(client: ClientIntegration, kind: HookEventKind, raw: Record<string, unknown>): HookCall {
  // The session, where the client sends it (one reader: the ledger's key and the records' route are the same id).
  const session = sessionOf(client, raw);
  const route: EventRoute = { via: 'hook', client: client.name, ...defined({ session: session?.session }) };
  const common = { route, session };
  // A client whose hooks name the fields otherwise (Copilot's toolName/toolArgs) is read in the common shape.
  const input = client.hookInput ? client.hookInput(raw) : raw;
  const toolName = typeof input.tool_name === 'string' ? input.tool_name : undefined;
  const { tools } = client;
  if (kind === 'settle') return { ...common, kind: 'settle' };
  if (kind === 'post') {
    const post = client.postCall(input);
    return post ? { ...common, kind: 'post', ...post } : { ...common, kind: 'pass' };
  }
  if (toolName !== undefined && tools.refusedShell?.includes(toolName)) return { ...common, kind: 'shell-refused', tool: toolName };
  if (toolName !== undefined && tools.mcpPrefix !== undefined && toolName.startsWith(tools.mcpPrefix)) {
    // Arguments the server cannot read are its to refuse (nothing is written then): only what it would run is charged here.
    const args = input.tool_input;
    return {
      ...common,
      kind: 'mcp',
      tool: toolName.slice(tools.mcpPrefix.length),
      args: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
      ...defined({ shellTool: client.shell ? tools.shell?.[0] : undefined }),
    };
  }
  if (client.shell && toolName !== undefined && tools.shell?.includes(toolName)) {
    try {
      const toolInput = objectOf(input.tool_input, 'tool_input');
      const command = client.shell.commandOf(toolInput);
      // A NUL cannot travel in an argument: such a command could not be run as the model wrote it.
      if (command.includes('\0')) throw new NativeInputError('the command holds a NUL byte');
      const workdir = client.shell.workdirOf?.(toolInput);
      return { ...common, kind: 'shell', tool: toolName, command, toolInput, ...(workdir !== undefined ? { workdir } : {}) };
    } catch (error) {
      return { ...common, kind: 'unreadable', tool: toolName, error: asInputError(error) };
    }
  }
  try {
    const edit = client.nativeEdit(input);
    return edit ? { ...common, kind: 'edit', edit } : { ...common, kind: 'pass' };
  } catch (error) {
    return { ...common, kind: 'unreadable', tool: toolName ?? '(unknown tool)', error: asInputError(error) };
  }
}

/** The decision in the client's hook protocol. */
export function renderHook(client: ClientIntegration, decision: HookDecision): HookOutput {
  switch (decision.kind) {
    case 'allow':
      return client.allow();
    case 'deny':
      return client.deny(decision.error);
    case 'rewrite':
      // Only a client with a shell rewrite translates a call to `shell`; fail closed should that ever not hold.
      return client.shell ? client.shell.rewrite(decision.toolInput, decision.line) : client.deny(new NativeInputError(`${client.name} cannot rewrite a shell call`).toJSON());
    case 'note':
      return { exitCode: 0, stderr: decision.message };
  }
}
