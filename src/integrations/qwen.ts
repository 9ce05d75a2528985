/**
 * Qwen Code (a Gemini CLI fork): `.qwen/settings.json` gets the editwarden
 * MCP server (`mcpServers`) and Claude-style PreToolUse/PostToolUse command
 * hooks on Qwen's write tools (`write_file`, `edit`) and its shell
 * (`run_shell_command`), the PostToolUse in the background (`async`) with a
 * Stop hook that settles what is pending, as for Claude Code. Hook protocol
 * (seen with 0.24.4): JSON on stdin with `session_id`, `cwd`, `tool_name`,
 * `tool_input`, `tool_use_id`; exit 2 blocks the tool and stderr is the
 * reason the model reads.
 *
 * Two facts shape it. A hook that exits 1 or 127 is a non-blocking error to
 * Qwen (the tool runs), so every call is answered explicitly and the
 * committed command turns any other exit into 2 (client.ts
 * `guardedHookCommand`). And Qwen ignores a hook's `updatedInput`, so its
 * shell cannot be rewritten to run through `editwarden shell`: it is refused
 * with the way through editwarden's MCP tool `execute_command`.
 */
import path from 'node:path';
import type { ErrorInfo } from '../errors.js';
import {
  arrayAt,
  editToolOf,
  hookMatcher,
  jsonOrNothing,
  jsonText,
  MCP_SERVER_NAME,
  mcpServer,
  objectAt,
  parseJsonObject,
  putServer,
  refusalText,
  guardedHookCommand,
  noticeHookCommand,
  upsertHookGroup,
  type ClientIntegration,
  type ClientTools,
  takeOurSettings,
} from './client.js';
import { writeOrReplaceRequest, type NativeEdit } from './native-edit.js';
import { defined } from '../defined.js';

/**
 * Qwen Code's tools: write_file and edit; its shell, refused (Qwen ignores a rewritten input); and editwarden's MCP
 * tools, which Qwen names `mcp__<server>__<tool>` in its hook inputs, as Claude Code does.
 */
const TOOLS = {
  edit: { write_file: 'write_file', edit: 'edit_file' },
  refusedShell: ['run_shell_command'],
  mcpPrefix: `mcp__${MCP_SERVER_NAME}__`,
} as const satisfies ClientTools;
/** The settings schema version Qwen 0.24 writes into a project settings file that lacks one. */
const VERSION_KEY = '$version';
const SETTINGS_VERSION = 4;

function qwenNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  // Qwen's edit with an empty old_string creates the file.
  const request = writeOrReplaceRequest(input.tool_input, as, ['file_path'], (ti) => ti.replace_all === true);
  return { client: 'qwen', tool, as, ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }), requests: [request], pathsOnly: [] };
}

/** `disableAllHooks: true` turns every hook off, editwarden's included (Qwen reads it from any settings layer). */
function qwenSwitches(existing: string | null): string[] {
  if (existing === null) return [];
  const data = parseJsonObject(existing, '.qwen/settings.json');
  return data.disableAllHooks === undefined || data.disableAllHooks === false ? [] : ['.qwen/settings.json: disableAllHooks'];
}

export const qwen: ClientIntegration = {
  name: 'qwen',
  projectDirEnv: 'QWEN_PROJECT_DIR',
  // `stop`: the end of a turn, where the session's pending records land (hook-settle.ts): the post hook runs in the background.
  events: { 'pre-tool-use': 'pre', 'post-tool-use': 'post', stop: 'settle' },
  // Sent with every hook input (seen with 0.24.4; the real client in test/integrations/qwen-code.test.ts).
  sessionFields: ['session_id'],
  tools: TOOLS,
  nativeEdit: qwenNativeEdit,
  postCall: (input) => ({ tool: typeof input.tool_name === 'string' ? input.tool_name : '', ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }) }),
  deny: (error: ErrorInfo) => ({ exitCode: 2, stderr: refusalText(error) }),
  // Said explicitly: an empty answer with exit 0 is "allowed" (exit 1 or 127 would also let the tool run, which is why nothing is left to an exit code).
  allow: () => ({ exitCode: 0, stdout: '{}' }),
  configFiles(root, setup) {
    const PRE = ' hook qwen pre-tool-use';
    const POST = ' hook qwen post-tool-use';
    const STOP = ' hook qwen stop';
    const PROJECT = '${QWEN_PROJECT_DIR:-.}';
    return [
      {
        path: path.join(root, '.qwen', 'settings.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.qwen/settings.json');
          // Attack: a repository that ships `disableAllHooks` would keep the guard off while init says "Covered".
          delete data.disableAllHooks;
          // Qwen rewrites a project settings file without it at start (its own migration, seen with 0.24.4): a file init creates has it.
          if (existing === null && data[VERSION_KEY] === undefined) data[VERSION_KEY] = SETTINGS_VERSION;
          // Qwen defers an MCP server's tools behind its tool search unless told otherwise: execute_command, where the shell refusal points, is offered at once.
          putServer(objectAt(data, 'mcpServers'), { ...mcpServer(setup), alwaysLoadTools: true }, '.qwen/settings.json');
          const hooks = objectAt(data, 'hooks');
          // PreToolUse also sees the shell (refused with the way through MCP) and editwarden's own MCP tools (charged to the session).
          upsertHookGroup(arrayAt(hooks, 'PreToolUse'), PRE, { matcher: hookMatcher(TOOLS, 'pre'), hooks: [{ type: 'command', command: guardedHookCommand('qwen', 'pre-tool-use', PROJECT, setup), timeout: 60 }] });
          // As for Claude Code: the post hook records, and the tool call need not wait for it (Qwen's `async` command hooks,
          // seen with 0.24.4); the session's next hook and its Stop hook record a call whose post has not come yet
          // (hook-settle.ts). The PreToolUse, which vets, stays blocking.
          upsertHookGroup(arrayAt(hooks, 'PostToolUse'), POST, { matcher: hookMatcher(TOOLS, 'post'), hooks: [{ type: 'command', command: guardedHookCommand('qwen', 'post-tool-use', PROJECT, setup), timeout: 60, async: true }] });
          // Exit 1 when it fails, a non-blocking error: exit 2 at Stop would keep the model working (client.ts noticeHookCommand).
          upsertHookGroup(arrayAt(hooks, 'Stop'), STOP, { hooks: [{ type: 'command', command: noticeHookCommand('qwen', 'stop', PROJECT, setup), timeout: 60 }] });
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.qwen/settings.json');
          takeOurSettings(data, { PreToolUse: PRE, PostToolUse: POST, Stop: STOP });
          // The settings version is init's (or Qwen's own) only when nothing else is left.
          if (Object.keys(data).length === 1 && data[VERSION_KEY] !== undefined) return null;
          return jsonOrNothing(data, existing);
        },
        switches: qwenSwitches,
      },
    ];
  },
  coverage: [
    "Covered: Qwen Code's write_file and edit are vetted by editwarden before they run (PreToolUse hook) and checkpointed for `editwarden undo`; its own shell (run_shell_command) is refused with the way through editwarden's MCP tool execute_command (sandbox, one undo step per command that changed files), since Qwen ignores a hook's rewritten input; limits count per Qwen session; the editwarden MCP tools are registered. Every hook call is answered explicitly and any failure is exit 2, so no exit code lets a tool through.",
    'Not covered: settings outside the project (~/.qwen/settings.json, system settings) and the --bare / safe modes, which turn hooks off; Qwen runs its shell only through execute_command, so a task that needs an interactive shell does not work.',
  ].join('\n'),
};
