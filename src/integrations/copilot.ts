/**
 * GitHub Copilot CLI: `.github/hooks/editwarden.json` gets a `preToolUse`
 * and a `postToolUse` command hook. Hook protocol (seen with 1.0.102): JSON
 * on stdin with `sessionId`, `cwd`, `toolName`, `toolArgs` (every tool: a
 * hook has no matcher); the answer is JSON on stdout —
 * `{"permissionDecision":"deny","permissionDecisionReason":…}` blocks with
 * the reason the model reads, `{"permissionDecision":"allow","modifiedArgs":…}`
 * runs the tool with those arguments (how `bash` is rewritten to run through
 * `editwarden shell`). A hook that exits 1 or 2 also blocks, but its stderr
 * is not passed on: every answer of editwarden's is JSON.
 *
 * Copilot runs a repository's hooks only in a folder the person trusted
 * (`trusted_folders` in `~/.copilot/config.json`); `doctor` says whether
 * this one is (copilot-trust.ts).
 */
import path from 'node:path';
import { EditwardenError, ErrorCode, type ErrorInfo } from '../errors.js';
import { guardedHookCommand, jsonOrNothing, jsonText, parseJsonObject, refusalText, editToolOf, type ClientIntegration, type ClientTools, type HookOutput, type Json } from './client.js';
import { objectOf, oldNewEdit, stringField, type NativeEdit } from './native-edit.js';
import { defined } from '../defined.js';

/** Copilot CLI's tools: create (a whole file) and edit, and bash (rewritten to run through `editwarden shell`). */
const TOOLS = {
  edit: { create: 'write_file', edit: 'edit_file' },
  shell: ['bash'],
} as const satisfies ClientTools;
/** The hooks file init writes (editwarden's alone; hooks of the person's in it are kept). */
const COPILOT_HOOKS_FILE = '.github/hooks/editwarden.json';

/** Copilot's input in the common shape: `toolArgs` is an object (a JSON text in some releases: read as one). */
function copilotHookInput(input: Record<string, unknown>): Record<string, unknown> {
  let args = input.toolArgs;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      // Left as text: the edit or shell translation then refuses it as unreadable.
    }
  }
  return { ...input, ...defined({ tool_name: input.toolName, tool_input: args }) };
}

/** A path Copilot names relative to its working folder, made absolute (the root may be another folder). */
function fileOf(input: Record<string, unknown>, ti: Record<string, unknown>): string {
  const file = stringField(ti, 'path');
  return typeof input.cwd === 'string' && input.cwd !== '' ? path.resolve(input.cwd, file) : file;
}

function copilotNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  const ti = objectOf(input.tool_input, 'toolArgs');
  const file = fileOf(input, ti);
  const source = { format: 'tool' as const, index: 0 };
  if (as === 'write_file') return { client: 'copilot', tool, as, requests: [{ action: 'overwrite', path: file, content: stringField(ti, 'file_text'), source }], pathsOnly: [] };
  return { client: 'copilot', tool, as, requests: [oldNewEdit(file, stringField(ti, 'old_str'), stringField(ti, 'new_str'), false)], pathsOnly: [] };
}

function answer(body: Record<string, unknown>): HookOutput {
  return { exitCode: 0, stdout: JSON.stringify(body) };
}

/** Whether a hook entry (`{type, bash}`) is editwarden's. */
function isOurs(entry: Json, marker: string): boolean {
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry) && typeof entry.bash === 'string' && entry.bash.includes(marker);
}

const EVENTS = [
  ['preToolUse', 'pre-tool-use'],
  ['postToolUse', 'post-tool-use'],
] as const;

export const copilot: ClientIntegration = {
  name: 'copilot',
  events: { 'pre-tool-use': 'pre', 'post-tool-use': 'post' },
  // Copilot names it in camelCase, as its other fields (seen with 1.0.102; the real client in test/integrations/copilot-cli.test.ts).
  sessionFields: ['sessionId'],
  tools: TOOLS,
  hookInput: copilotHookInput,
  nativeEdit: copilotNativeEdit,
  // Copilot's hooks see every tool: only its edit tools are recorded after they ran.
  postCall: (input) => (typeof input.tool_name === 'string' && editToolOf(TOOLS, input.tool_name) !== undefined ? { tool: input.tool_name } : null),
  deny: (error: ErrorInfo) => answer({ permissionDecision: 'deny', permissionDecisionReason: refusalText(error) }),
  // No decision: Copilot's own permission rules still apply to an allowed tool.
  allow: () => answer({}),
  shell: {
    commandOf: (ti) => stringField(ti, 'command'),
    // Copilot 1.0.102 runs `modifiedArgs` instead of the model's arguments only with permissionDecision "allow" (seen here).
    rewrite: (ti, line) => answer({ permissionDecision: 'allow', modifiedArgs: { ...ti, command: line } }),
  },
  configFiles(root, setup) {
    const file = COPILOT_HOOKS_FILE;
    return [
      {
        path: path.join(root, ...file.split('/')),
        render(existing) {
          const data = parseJsonObject(existing, file);
          if (data.version === undefined) data.version = 1;
          if (data.version !== 1)
            throw new EditwardenError({
              code: ErrorCode.CONFIG,
              message: `${file} has hooks version ${JSON.stringify(data.version)}, which editwarden init does not know; nothing was changed.`,
              hint: `Move ${file} aside and run editwarden init copilot again.`,
            });
          const hooks = data.hooks && typeof data.hooks === 'object' && !Array.isArray(data.hooks) ? data.hooks : (data.hooks = {});
          for (const [event, name] of EVENTS) {
            const marker = ` hook copilot ${name}`;
            const list = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : (hooks[event] = []);
            const entry = { type: 'command', bash: guardedHookCommand('copilot', name, '.', setup), timeoutSec: 60 };
            const at = list.findIndex((e) => isOurs(e, marker));
            if (at >= 0) list[at] = entry;
            else list.push(entry);
          }
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, file);
          const hooks = data.hooks;
          if (hooks && typeof hooks === 'object' && !Array.isArray(hooks)) {
            for (const [event, name] of EVENTS) {
              const list = hooks[event];
              if (!Array.isArray(list)) continue;
              const left = list.filter((e) => !isOurs(e, ` hook copilot ${name}`));
              if (left.length === 0) delete hooks[event];
              else hooks[event] = left;
            }
            if (Object.keys(hooks).length === 0) delete data.hooks;
          }
          // `version` is init's only when nothing else is left.
          return Object.keys(data).length === 1 && data.version === 1 ? null : jsonOrNothing(data, existing);
        },
        switches: () => [],
      },
    ];
  },
  coverage: [
    "Covered (once Copilot trusts this folder — it asks on the first start; `editwarden doctor` says whether it does): Copilot CLI's create and edit are vetted by editwarden before they run and checkpointed for `editwarden undo`; every bash command runs through `editwarden shell` (sandbox, one undo step per command that changed files, counted against this session's limits); limits count per Copilot session. Every answer is JSON; if editwarden cannot run, the tool call is blocked.",
    "Not covered: a folder Copilot does not trust (it then runs none of the repository's hooks — trust it, or copy the hooks into ~/.copilot/settings.json, whose hooks run everywhere); init copilot registers no MCP server (Copilot loads the project's .mcp.json, which editwarden init claude writes, or add it with /mcp add); hooks turned off outside the project (~/.copilot); a `cd` does not carry to the next command.",
  ].join('\n'),
};
