/**
 * `editwarden hook <client> <event>`: what a client's hook runs. Reads the
 * hook input (JSON on stdin), and for a pre-tool event vets the native edit
 * (vet.ts) and answers allow or deny in the client's protocol; for a
 * post-tool event records what changed. Fails closed: input it cannot read,
 * or any error while vetting, is a refusal — a guard that crashes open
 * guards nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, type ErrorInfo } from '../errors.js';
import { isWithin } from '../config/path-within.js';
import { selfCommand, shellRunnerLine, type ClientIntegration, type HookOutput } from './client.js';
import { recordHookEdit, recordHookRefusal } from '../runs/hook-records.js';
import { renderHook, translateHook, type HookCall, type HookDecision } from './hook-protocol.js';
import { NativeInputError } from './native-edit.js';
import { recordHookCall, recordNativeEdit, vetNativeEdit } from './vet.js';
import { settlePending } from './hook-settle.js';
import { openProjectAt } from '../host/project-at.js';
import type { Project } from '../host/project.js';
import type { EventRoute } from '../runs/event-types.js';
import { chargeMcpCall } from './mcp-call.js';
import { defined } from '../defined.js';
import { CLIENTS } from './index.js';
import { carriedFolderFile, cdBackLine } from './shell-cwd.js';
import { STATE_DIR } from '../workspace/paths.js';
import type { SessionKey } from '../runs/ledger.js';

/** For a client whose own shell carries its folder: the client's shell follows the guarded command's `cd` (shell-cwd.ts). */
function cdBackSuffix(client: ClientIntegration | undefined, root: string, session: SessionKey | null): string {
  if (client?.shell?.carriesCwd !== true || session === null) return '';
  return `; ${cdBackLine(carriedFolderFile(path.join(root, STATE_DIR), session))}`;
}

export interface HookContext {
  /** --root, else the client's project folder (CLAUDE_PROJECT_DIR / GEMINI_PROJECT_DIR / CURSOR_PROJECT_DIR), else the input's cwd, else the working folder. */
  root?: string;
  /** An explicit config file (`--config`, relative to the root): loaded instead of .editwarden.yml and protected with it. */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** argv of the editwarden a rewritten shell command runs (default: this one). */
  self?: readonly string[];
}

function hookRoot(client: ClientIntegration, input: Record<string, unknown>, ctx: HookContext): string {
  if (ctx.root) return ctx.root;
  const fromEnv = client.projectDirEnv === undefined ? undefined : ctx.env[client.projectDirEnv];
  if (fromEnv) return fromEnv;
  if (typeof input.cwd === 'string' && input.cwd !== '') return input.cwd;
  return ctx.cwd;
}

/**
 * One way through: the event and the input are read here, the client module translates the input
 * (translateHook), this function decides, and the client module says the decision in its protocol (renderHook).
 */
export async function runHook(client: ClientIntegration, event: string, stdin: string, ctx: HookContext): Promise<HookOutput> {
  const kind = client.events[event];
  if (!kind) {
    return renderHook(client, {
      kind: 'deny',
      error: { code: ErrorCode.USAGE, message: `${client.name} has no hook event ${JSON.stringify(event)}.`, hint: `Events: ${Object.keys(client.events).join(', ')}. Run \`editwarden init ${client.name}\` again.` },
    });
  }
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(stdin);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    input = parsed as Record<string, unknown>;
  } catch {
    return renderHook(client, kind === 'pre' ? { kind: 'deny', error: new NativeInputError('the hook input is not a JSON object').toJSON() } : { kind: 'allow' });
  }
  const root = hookRoot(client, input, ctx);
  // An explicit config (`--config`) is loaded by the vetting and protected with the default one.
  const configFile = ctx.configFile !== undefined ? path.resolve(root, ctx.configFile) : undefined;
  return renderHook(client, await decide(client.name, translateHook(client, kind, input), root, ctx, configFile));
}

async function decide(clientName: string, call: HookCall, root: string, ctx: HookContext, configFile: string | undefined): Promise<HookDecision> {
  // The session's earlier calls whose post hook has not come yet (it runs in the background): recorded before this call changes anything.
  // The project it opens for that is the one this decision uses (vet, mcp-call): one open per hook call.
  let opened: Project | undefined;
  if (call.session !== null && call.kind !== 'post' && call.kind !== 'pass') {
    const settled = settleSession(root, call.route, call.session, configFile);
    if (call.kind === 'settle') return settled.decision;
    opened = settled.project;
  }
  switch (call.kind) {
    case 'pass':
    case 'settle':
      return { kind: 'allow' };
    case 'post':
      try {
        const recorded = recordNativeEdit(root, clientName, call.tool, call.call, configFile);
        // Recorded already when the session's next hook or its Stop hook settled the call (hook-settle.ts).
        const logged = recorded.settledBefore === true ? null : recordHookEdit(root, call.route, call.tool, { ...recorded, call: call.call, named: call.paths });
        if (logged) throw logged;
      } catch (error) {
        // The edit already happened; a record that fails must not turn into an error the model chases.
        return { kind: 'note', message: `editwarden: could not record the change: ${error instanceof Error ? error.message : String(error)}` };
      }
      return { kind: 'allow' };
    case 'shell-refused': {
      const refusal = {
        code: ErrorCode.SHELL_NOT_GUARDED,
        message: `${clientName}'s own shell (${call.tool}) cannot run through editwarden's sandbox, undo and limits, so it is refused.`,
        hint: 'Run the same command with the editwarden MCP tool execute_command (arguments: command, and cwd relative to the project); its output and exit code come back the same way.',
      };
      recordHookRefusal(root, call.route, call.tool, null, refusal);
      return { kind: 'deny', error: refusal };
    }
    case 'unreadable': {
      const refusal = call.error.toJSON();
      recordHookRefusal(root, call.route, call.tool, null, refusal);
      return { kind: 'deny', error: refusal };
    }
    case 'shell': {
      // The folder the model named for the command (opencode's workdir): inside the root, or the command is not run.
      const away = call.workdir === undefined ? null : workdirOutside(root, call.workdir);
      if (away) {
        recordHookRefusal(root, call.route, call.tool, null, away);
        return { kind: 'deny', error: away };
      }
      const runner = shellRunnerLine(ctx.self ?? selfCommand(), { root, client: clientName, tool: call.tool, ...defined({ session: call.session ? call.session.session : undefined, configFile }) }, call.command);
      return { kind: 'rewrite', toolInput: call.toolInput, line: `${runner}${cdBackSuffix(CLIENTS[clientName], root, call.session)}` };
    }
    case 'mcp': {
      // Without a session id the server's own per-run count is the only one (as for a native edit without one).
      if (!call.session) return { kind: 'allow' };
      const refused = await chargeMcpCall(root, call.tool, call.args, call.session, configFile, call.shellTool, opened);
      if (!refused) return { kind: 'allow' };
      recordHookRefusal(root, call.route, `mcp ${call.tool}`, null, refused);
      return { kind: 'deny', error: refused };
    }
    case 'edit': {
      const verdict = await vetNativeEdit(root, call.session ? { ...call.edit, session: call.session } : call.edit, configFile, opened);
      if (verdict.allow) return { kind: 'allow' };
      // Every refusal is in the event log (`editwarden log`): a person sees what the hook stopped.
      recordHookRefusal(root, call.route, call.edit.tool, call.edit, verdict.error);
      return { kind: 'deny', error: verdict.error };
    }
  }
}

/** The refusal of a shell command asked to run in a folder outside the root (null: inside). Its writes would still be held to the root by the sandbox; the model is told plainly instead. */
function workdirOutside(root: string, workdir: string): ErrorInfo | null {
  const abs = path.resolve(root, workdir);
  // By text and through links (a `sub/out` link to /tmp is outside too).
  if (isWithin(abs, root) && isWithin(realOr(abs), realOr(root))) return null;
  return {
    code: ErrorCode.OUTSIDE_ROOT,
    message: `The command was asked to run in ${workdir}, which is outside the project (${root}).`,
    hint: 'Run it in the project folder or a folder inside it (workdir relative to the project, or leave workdir out).',
    path: workdir,
  };
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Records the session's pending calls whose planned bytes are on disk (hook-settle.ts). A record that fails is a note,
 * never a refusal: those edits already happened, and this call is judged on its own.
 */
function settleSession(root: string, route: EventRoute, session: SessionKey, configFile: string | undefined): { decision: HookDecision; project?: Project } {
  let project: Project | undefined;
  try {
    const opened = openProjectAt(root, { configFile });
    project = opened;
    settlePending(opened, session, (m) => {
      if (m.origin.kind !== 'hook') return;
      const recorded = recordHookCall(opened, m.id, true);
      const logged = recorded === null ? null : recordHookEdit(root, route, m.origin.tool, { ...recorded, call: m.origin.call });
      if (logged) throw logged;
    });
    return { decision: { kind: 'allow' }, project };
  } catch (error) {
    // The project (when it opened) still serves this call's own decision, which is judged on its own.
    return { decision: { kind: 'note', message: `editwarden: could not record an earlier change: ${error instanceof Error ? error.message : String(error)}` }, ...(project !== undefined ? { project } : {}) };
  }
}
