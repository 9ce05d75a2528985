/**
 * opencode: hooks are plugins. `init opencode` writes
 * `.opencode/plugins/editwarden.js`, a thin bridge (opencode-plugin.ts) whose
 * `tool.execute.before` sends every tool call to `editwarden hook opencode
 * tool-before` and acts on the answer — throwing blocks the call and the
 * thrown message is what the model reads; a rewritten shell command replaces
 * `output.args.command` — and `opencode.json` registers the editwarden MCP
 * server (`mcp.editwarden`, a local command).
 *
 * The plugin sends the call in the common shape (`session_id` = opencode's
 * sessionID, `tool_use_id` = callID, `tool_name`, `tool_input` = the args,
 * `cwd` = the project folder) and reads one JSON answer: `{decision:
 * "allow"}`, `{decision: "deny", reason}` or `{decision: "rewrite",
 * tool_input}`. Anything else (no editwarden, a crash, no JSON) is thrown:
 * it fails closed.
 *
 * Tools (seen with 1.18.33): `write {filePath, content}`, `edit {filePath,
 * oldString, newString, replaceAll}`, `bash {command, timeout, workdir}`;
 * with a `gpt-5` model id, `apply_patch {patchText}` (Codex's patch format)
 * instead of write and edit. MCP tools are named `editwarden_<tool>`.
 */
import path from 'node:path';
import type { EditRequest } from '../edit/types.js';
import { EditwardenError, ErrorCode, type ErrorInfo } from '../errors.js';
import { parseApplyPatch } from '../formats/apply-patch.js';
import { dropIfEmpty, isOurServer, jsonOrNothing, jsonText, MCP_SERVER_NAME, mcpServer, objectAt, parseJsonObject, refusalText, editToolOf, type ClientIntegration, type ClientTools, type HookOutput } from './client.js';
import { NativeInputError, objectOf, stringField, type NativeEdit } from './native-edit.js';
import { OPENCODE_PLUGIN_FILE, opencodePlugin, isOurPlugin } from './opencode-plugin.js';
import { defined } from '../defined.js';

/** opencode's tools: write and edit (and apply_patch with a gpt-5 model), bash (rewritten), and editwarden's MCP tools, named `editwarden_<tool>`. */
const TOOLS = {
  edit: { write: 'write_file', edit: 'edit_file', apply_patch: 'apply_patch' },
  shell: ['bash'],
  mcpPrefix: `${MCP_SERVER_NAME}_`,
} as const satisfies ClientTools;
const SCHEMA = 'https://opencode.ai/config.json';

function fileOf(input: Record<string, unknown>, ti: Record<string, unknown>): string {
  const file = stringField(ti, 'filePath');
  return typeof input.cwd === 'string' && input.cwd !== '' ? path.resolve(input.cwd, file) : file;
}

function opencodeNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  const ti = objectOf(input.tool_input, 'args');
  const base = { client: 'opencode', tool, as, ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }), pathsOnly: [] as string[] };
  const source = { format: 'tool' as const, index: 0 };
  if (as === 'apply_patch') {
    const parsed = parseApplyPatch(stringField(ti, 'patchText'));
    const first = parsed.errors[0];
    // A patch editwarden cannot read cannot be vetted: refused, not waved through.
    if (first) throw new NativeInputError(`the patch does not parse: ${first.error.message}`);
    if (parsed.requests.length === 0) throw new NativeInputError('the patch changes no file');
    // Its paths are relative to the project folder, the root the plugin names (as Codex's are).
    return { ...base, requests: parsed.requests };
  }
  const file = fileOf(input, ti);
  if (as === 'write_file') return { ...base, requests: [{ action: 'overwrite', path: file, content: stringField(ti, 'content'), source }] };
  const oldText = stringField(ti, 'oldString');
  const newText = stringField(ti, 'newString');
  // opencode's edit with an empty oldString writes newString as the whole file.
  const request: EditRequest = oldText === '' ? { action: 'overwrite', path: file, content: newText, source } : { action: 'edit', path: file, oldText, newText, ...defined({ replaceAll: ti.replaceAll === true ? true : undefined }), source };
  return { ...base, requests: [request] };
}

function answer(body: Record<string, unknown>): HookOutput {
  return { exitCode: 0, stdout: JSON.stringify(body) };
}

export const opencode: ClientIntegration = {
  name: 'opencode',
  events: { 'tool-before': 'pre', 'tool-after': 'post' },
  // The plugin sends opencode's sessionID as session_id (opencode-plugin.ts; the real client in test/integrations/opencode.test.ts).
  sessionFields: ['session_id'],
  tools: TOOLS,
  nativeEdit: opencodeNativeEdit,
  postCall: (input) =>
    typeof input.tool_name === 'string' && editToolOf(TOOLS, input.tool_name) !== undefined ? { tool: input.tool_name, ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }) } : null,
  deny: (error: ErrorInfo) => answer({ decision: 'deny', reason: refusalText(error) }),
  allow: () => answer({ decision: 'allow' }),
  shell: {
    commandOf: (ti) => stringField(ti, 'command'),
    workdirOf: (ti) => (typeof ti.workdir === 'string' && ti.workdir !== '' ? ti.workdir : undefined),
    // The plugin sets output.args.command to the rewritten line (seen with 1.18.33: opencode runs the changed args).
    rewrite: (ti, line) => answer({ decision: 'rewrite', tool_input: { ...ti, command: line } }),
  },
  configFiles(root, setup) {
    return [
      {
        path: path.join(root, ...OPENCODE_PLUGIN_FILE.split('/')),
        render(existing) {
          if (existing !== null && !isOurPlugin(existing)) {
            throw new EditwardenError({
              code: ErrorCode.SETTINGS_CONFLICT,
              message: `${OPENCODE_PLUGIN_FILE} exists and is not editwarden's plugin; editwarden init does not overwrite it, so nothing was changed.`,
              hint: `Rename your plugin (any other name in .opencode/plugins/ loads the same), then run editwarden init opencode again.`,
              path: OPENCODE_PLUGIN_FILE,
            });
          }
          return opencodePlugin(setup);
        },
        remove: (existing) => (existing !== null && isOurPlugin(existing) ? null : existing),
        switches: () => [],
      },
      {
        path: path.join(root, 'opencode.json'),
        render(existing) {
          const data = parseJsonObject(existing, 'opencode.json');
          const servers = objectAt(data, 'mcp');
          const named = servers[MCP_SERVER_NAME];
          const entry = mcpServer(setup);
          // opencode's local server: one command array.
          const ours = { type: 'local', command: [entry.command, ...entry.args], enabled: true };
          if (named !== undefined && !isOurOpencodeServer(named)) {
            throw new EditwardenError({
              code: ErrorCode.SETTINGS_CONFLICT,
              message: `opencode.json already has an MCP server named "${MCP_SERVER_NAME}" that is not editwarden's; editwarden init does not overwrite it, so nothing was changed.`,
              hint: 'Rename your server in opencode.json, then run editwarden init opencode again.',
              path: 'opencode.json',
            });
          }
          servers[MCP_SERVER_NAME] = ours;
          // opencode rewrites a config without it at start (seen with 1.18.33): a file init creates has it, first, where opencode puts it.
          return jsonText(existing === null && data.$schema === undefined ? { $schema: SCHEMA, ...data } : data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, 'opencode.json');
          const servers = objectAt(data, 'mcp');
          if (isOurOpencodeServer(servers[MCP_SERVER_NAME])) delete servers[MCP_SERVER_NAME];
          dropIfEmpty(data, 'mcp');
          // The schema line is init's (or opencode's own) only when nothing else is left.
          if (Object.keys(data).length === 1 && data.$schema === SCHEMA) return null;
          return jsonOrNothing(data, existing);
        },
        switches: () => [],
      },
    ];
  },
  coverage: [
    "Covered: opencode's write, edit and apply_patch are vetted by editwarden before they run (the plugin .opencode/plugins/editwarden.js) and checkpointed for `editwarden undo`; every bash command runs through `editwarden shell` (sandbox, one undo step per command that changed files, counted against this session's limits), and a workdir outside the project is refused; sub-agent (task) calls go through the same plugin; limits count per opencode session; the editwarden MCP tools are registered. If editwarden cannot answer, the plugin throws and the call is blocked.",
    "Not covered: opencode started with --pure / OPENCODE_PURE or OPENCODE_DISABLE_PROJECT_CONFIG (project plugins are not loaded); plugins and config outside the project (~/.config/opencode, OPENCODE_CONFIG*); a `cd` does not carry to the next command. opencode itself runs `npm install @opencode-ai/plugin` into .opencode/ at start (editwarden's plugin needs none of it; .opencode/ is read-only to the agent).",
  ].join('\n'),
};

/** Whether an `mcp` entry of opencode.json is editwarden's (its command runs editwarden's `mcp`). */
function isOurOpencodeServer(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const command = (entry as { command?: unknown }).command;
  return Array.isArray(command) && isOurServer({ command: command[0], args: command.slice(1) });
}
