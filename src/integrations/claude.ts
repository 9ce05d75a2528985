/**
 * Claude Code: `.claude/settings.json` gets a PreToolUse hook on its own
 * edit tools (Edit, Write, MultiEdit, NotebookEdit) that runs `editwarden
 * hook claude pre-tool-use` and a PostToolUse hook that records what
 * changed; `.mcp.json` registers the editwarden MCP server and the settings
 * enable it for the project.
 *
 * Hook protocol (Claude Code hooks reference): JSON on stdin with
 * `tool_name`, `tool_input` (absolute `file_path`), `tool_use_id`; a refusal
 * is exit 0 with `hookSpecificOutput.permissionDecision: "deny"` and a
 * reason Claude reads (it holds even under --dangerously-skip-permissions).
 * An allowed edit gets no decision, so Claude's own permission prompts stay.
 */
import path from 'node:path';
import type { EditRequest } from '../edit/types.js';
import type { ErrorInfo } from '../errors.js';
import {
  addOnce,
  arrayAt,
  dropIfEmpty,
  jsonOrNothing,
  jsonText,
  removeFromList,
  removeOurHooks,
  mcpServer,
  putServer,
  isOurServer,
  MCP_SERVER_NAME,
  objectAt,
  parseJsonObject,
  refusalText,
  guardedHookCommand,
  noticeHookCommand,
  upsertHookGroup,
  type ClientIntegration,
  type ClientTools,
  editToolOf,
  hookMatcher,
  type HookOutput,
  takeOurSettings,
} from './client.js';
import { NativeInputError, objectOf, oldNewEdit, stringField, type NativeEdit } from './native-edit.js';
import { defined } from '../defined.js';

const SERVER = MCP_SERVER_NAME;
/**
 * Claude Code's tools editwarden guards: its edit tools (judged as editwarden's file tools), Bash (rewritten to run
 * through `editwarden shell`), and editwarden's own MCP tools, which Claude names `mcp__<server>__<tool>` and its
 * hooks see, so their writes count against the same session limits (mcp-call.ts).
 */
const TOOLS = {
  edit: { Edit: 'edit_file', Write: 'write_file', MultiEdit: 'edit_file', NotebookEdit: 'edit_file' },
  shell: ['Bash'],
  mcpPrefix: `mcp__${SERVER}__`,
} as const satisfies ClientTools;

/** One Edit (or one of a MultiEdit's edits): an empty old_string creates the file. */
function editOf(file: string, e: Record<string, unknown>, index: number): EditRequest {
  return oldNewEdit(file, stringField(e, 'old_string'), stringField(e, 'new_string'), e.replace_all === true, index);
}

/** Claude Code tool input → edit requests (Write → create or overwrite: the engine decides by whether the file exists). */
export function claudeNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  const ti = objectOf(input.tool_input, 'tool_input');
  const call = typeof input.tool_use_id === 'string' ? { call: input.tool_use_id } : {};
  const base = { client: 'claude', tool, as, ...call, pathsOnly: [] as string[] };
  switch (tool) {
    case 'Write': {
      const file = stringField(ti, 'file_path');
      // Overwrite covers both: on a missing file the engine treats it as a create (checked in vet by existence).
      return { ...base, requests: [{ action: 'overwrite', path: file, content: stringField(ti, 'content'), source: { format: 'tool', index: 0 } }] };
    }
    case 'Edit':
      return { ...base, requests: [editOf(stringField(ti, 'file_path'), ti, 0)] };
    case 'MultiEdit': {
      const file = stringField(ti, 'file_path');
      if (!Array.isArray(ti.edits)) throw new NativeInputError('MultiEdit input has no "edits" list');
      return { ...base, requests: ti.edits.map((e, i) => editOf(file, objectOf(e, `edits[${i}]`), i)) };
    }
    case 'NotebookEdit':
      // A notebook cell edit is JSON surgery editwarden does not model: the path is vetted and checkpointed, the content is not.
      return { ...base, requests: [], pathsOnly: [stringField(ti, 'notebook_path', 'file_path')] };
    default:
      return null;
  }
}

/** `disableAllHooks: true` turns every hook off, editwarden's included. */
function claudeSwitches(existing: string | null, file: string): string[] {
  if (existing === null) return [];
  const data = parseJsonObject(existing, file);
  return data.disableAllHooks === undefined || data.disableAllHooks === false ? [] : [`${file}: disableAllHooks`];
}

function deny(error: ErrorInfo): HookOutput {
  return {
    exitCode: 0,
    stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: refusalText(error) } }),
  };
}

export const claude: ClientIntegration = {
  name: 'claude',
  projectDirEnv: 'CLAUDE_PROJECT_DIR',
  events: { 'pre-tool-use': 'pre', 'post-tool-use': 'post', stop: 'settle' },
  // Sent with every hook input (Claude Code hooks reference; the real client in test/integrations/claude-code.test.ts).
  sessionFields: ['session_id'],
  tools: TOOLS,
  nativeEdit: claudeNativeEdit,
  postCall: (input) => ({ tool: typeof input.tool_name === 'string' ? input.tool_name : '', ...defined({ call: typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined }) }),
  deny,
  allow: () => ({ exitCode: 0 }),
  shell: {
    commandOf: (ti) => stringField(ti, 'command'),
    // Claude Code runs `updatedInput` instead of the model's input (seen with 2.1.197); no permission decision, so the person's own Bash rules still apply.
    rewrite: (ti, line) => ({ exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...ti, command: line } } }) }),
    // Claude Code runs each Bash call as `eval '<command>' && pwd -P >| <file>` and starts the next one there (2.1.197).
    carriesCwd: true,
  },
  configFiles(root, setup) {
    const hook = (event: string): string => guardedHookCommand('claude', event, '${CLAUDE_PROJECT_DIR:-.}', setup);
    const PRE = ' hook claude pre-tool-use';
    const POST = ' hook claude post-tool-use';
    const STOP = ' hook claude stop';
    return [
      {
        path: path.join(root, '.claude', 'settings.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.claude/settings.json');
          // Attack: a repository that ships `disableAllHooks` would keep the guard off while init says "Covered".
          delete data.disableAllHooks;
          const hooks = objectAt(data, 'hooks');
          upsertHookGroup(arrayAt(hooks, 'PreToolUse'), PRE, { matcher: hookMatcher(TOOLS, 'pre'), hooks: [{ type: 'command', command: hook('pre-tool-use'), timeout: 60 }] });
          // The post hook records; the tool call need not wait for it (`async`): the session's next hook and its Stop hook
          // record a call whose post has not come yet (hook-settle.ts). The PreToolUse, which vets, stays blocking.
          upsertHookGroup(arrayAt(hooks, 'PostToolUse'), POST, { matcher: hookMatcher(TOOLS, 'post'), hooks: [{ type: 'command', command: hook('post-tool-use'), timeout: 60, async: true }] });
          upsertHookGroup(arrayAt(hooks, 'Stop'), STOP, { hooks: [{ type: 'command', command: noticeHookCommand('claude', 'stop', '${CLAUDE_PROJECT_DIR:-.}', setup), timeout: 60 }] });
          addOnce(arrayAt(data, 'enabledMcpjsonServers'), SERVER);
          // editwarden's own tools are the guarded way to edit: allowed without a prompt (every call is still vetted by the server).
          addOnce(arrayAt(objectAt(data, 'permissions'), 'allow'), `mcp__${SERVER}`);
          return jsonText(data, existing);
        },
        remove(existing, sibling) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.claude/settings.json');
          const hooks = objectAt(data, 'hooks');
          removeOurHooks(hooks, 'PreToolUse', PRE);
          removeOurHooks(hooks, 'PostToolUse', POST);
          removeOurHooks(hooks, 'Stop', STOP);
          dropIfEmpty(data, 'hooks');
          // A server of the person's named like editwarden's (init refused to overwrite it): its enabling entries are theirs too.
          const named = objectAt(parseJsonObject(sibling('.mcp.json'), '.mcp.json'), 'mcpServers')[SERVER];
          if (named === undefined || isOurServer(named)) {
            removeFromList(data, 'enabledMcpjsonServers', (v) => v !== SERVER);
            removeFromList(objectAt(data, 'permissions'), 'allow', (v) => v !== `mcp__${SERVER}`);
            dropIfEmpty(data, 'permissions');
          }
          return jsonOrNothing(data, existing);
        },
        switches: (existing) => claudeSwitches(existing, '.claude/settings.json'),
      },
      {
        // Not written by init except to take out a switch that turns every hook off (it is each person's own file).
        path: path.join(root, '.claude', 'settings.local.json'),
        render(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.claude/settings.local.json');
          if (!('disableAllHooks' in data)) return existing;
          delete data.disableAllHooks;
          return jsonText(data, existing);
        },
        remove: (existing) => existing,
        switches: (existing) => claudeSwitches(existing, '.claude/settings.local.json'),
      },
      {
        path: path.join(root, '.mcp.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.mcp.json');
          putServer(objectAt(data, 'mcpServers'), { type: 'stdio', ...mcpServer(setup) }, '.mcp.json');
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.mcp.json');
          takeOurSettings(data);
          return jsonOrNothing(data, existing);
        },
        switches: () => [],
      },
    ];
  },
  coverage: [
    "Covered: Claude Code's Edit, Write, MultiEdit and NotebookEdit are vetted by editwarden before they run (boundary, .git/, .editwarden/, the config files, constraints, large-deletion/size/binary/syntax guards) and checkpointed, so `editwarden undo` restores them; every Bash command runs through `editwarden shell` (sandbox: writes only inside the project, protected files read-only, secrets hidden, network per sandbox.network; one undo step per command that changed files; counted against this session's limits); limits count per Claude session; the editwarden MCP tools are registered. If editwarden cannot run (not installed, crashed), the tool call is blocked.",
    'Not covered: NotebookEdit content (path rules and undo only); a `cd` inside a Bash command does not carry to the next command; Bash commands need a sandbox (bubblewrap on Linux, sandbox-exec on macOS) or sandbox.allow_unsandboxed: true; settings outside the project (~/.claude, managed policy) that turn hooks off.',
  ].join('\n'),
};
