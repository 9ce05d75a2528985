/**
 * Gemini CLI: `.gemini/settings.json` gets the editwarden MCP server
 * (`mcpServers`) and BeforeTool/AfterTool command hooks on Gemini's own
 * write tools (`write_file`, `replace`). Hook protocol (Gemini CLI hooks
 * reference): JSON on stdin with `tool_name` and `tool_input`; exit 2 blocks
 * the tool and stderr is the reason the model reads.
 */
import path from 'node:path';
import type { ErrorInfo } from '../errors.js';
import {
  arrayAt,
  dropIfEmpty,
  jsonOrNothing,
  jsonText,
  removeFromList,
  mcpServer,
  objectAt,
  parseJsonObject,
  putServer,
  refusalText,
  guardedHookCommand,
  upsertHookGroup,
  type ClientIntegration,
  type ClientTools,
  editToolOf,
  hookMatcher,
  type Json,
  takeOurSettings,
} from './client.js';
import { stringField, writeOrReplaceRequest, type NativeEdit } from './native-edit.js';

/** Gemini CLI's write tools (judged as editwarden's file tools) and its shell, rewritten to run through `editwarden shell`. */
const TOOLS = {
  edit: { write_file: 'write_file', replace: 'edit_file' },
  shell: ['run_shell_command'],
} as const satisfies ClientTools;

export function geminiNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  const as = editToolOf(TOOLS, tool);
  if (as === undefined) return null;
  // replace: more than one expected replacement replaces them all.
  const request = writeOrReplaceRequest(input.tool_input, as, ['file_path', 'absolute_path', 'path'], (ti) => typeof ti.expected_replacements === 'number' && ti.expected_replacements > 1);
  return { client: 'gemini', tool, as, requests: [request], pathsOnly: [] };
}

/** A `hooksConfig.disabled` entry (a hook's name or command) that switches editwarden's hook off. */
const namesOurs = (v: Json): boolean => typeof v === 'string' && v.includes('editwarden');

/** Attack: a repository that ships `hooksConfig.enabled: false`, or disables editwarden's hook by name, keeps the guard off while init says "Covered". */
function disarm(data: { [key: string]: Json }): void {
  const hc = data.hooksConfig;
  if (typeof hc !== 'object' || hc === null || Array.isArray(hc)) return;
  if (hc.enabled === false) delete hc.enabled;
  removeFromList(hc, 'disabled', (v) => !namesOurs(v));
  dropIfEmpty(data, 'hooksConfig');
}

export const gemini: ClientIntegration = {
  name: 'gemini',
  projectDirEnv: 'GEMINI_PROJECT_DIR',
  events: { 'before-tool': 'pre', 'after-tool': 'post' },
  // Sent with every hook input (Gemini CLI hooks reference; the real client in test/integrations/gemini-cli.test.ts).
  sessionFields: ['session_id'],
  tools: TOOLS,
  nativeEdit: geminiNativeEdit,
  postCall: (input) => ({ tool: typeof input.tool_name === 'string' ? input.tool_name : '' }),
  deny: (error: ErrorInfo) => ({ exitCode: 2, stderr: refusalText(error) }),
  allow: () => ({ exitCode: 0, stdout: '{}' }),
  shell: {
    commandOf: (ti) => stringField(ti, 'command'),
    // Gemini CLI runs the hook's `tool_input` instead of the model's (seen with 0.61.0) and tells the model the input was changed.
    rewrite: (ti, line) => ({ exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { ...ti, command: line } } }) }),
  },
  configFiles(root, setup) {
    const PRE = ' hook gemini before-tool';
    const POST = ' hook gemini after-tool';
    return [
      {
        path: path.join(root, '.gemini', 'settings.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.gemini/settings.json');
          disarm(data);
          putServer(objectAt(data, 'mcpServers'), mcpServer(setup), '.gemini/settings.json');
          const hooks = objectAt(data, 'hooks');
          const group = (event: string): { [key: string]: Json } => ({
            // BeforeTool also rewrites run_shell_command to run through `editwarden shell`; AfterTool records edits only.
            matcher: hookMatcher(TOOLS, event === 'before-tool' ? 'pre' : 'post'),
            hooks: [{ type: 'command', name: `editwarden-${event}`, command: guardedHookCommand('gemini', event, '${GEMINI_PROJECT_DIR:-.}', setup), timeout: 60000 }],
          });
          upsertHookGroup(arrayAt(hooks, 'BeforeTool'), PRE, group('before-tool'));
          upsertHookGroup(arrayAt(hooks, 'AfterTool'), POST, group('after-tool'));
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.gemini/settings.json');
          takeOurSettings(data, { BeforeTool: PRE, AfterTool: POST });
          return jsonOrNothing(data, existing);
        },
        switches(existing) {
          if (existing === null) return [];
          const data = parseJsonObject(existing, '.gemini/settings.json');
          const hc = data.hooksConfig;
          if (typeof hc !== 'object' || hc === null || Array.isArray(hc)) return [];
          const out: string[] = [];
          if (hc.enabled === false) out.push('.gemini/settings.json: hooksConfig.enabled: false');
          if (Array.isArray(hc.disabled) && hc.disabled.some(namesOurs)) out.push(".gemini/settings.json: hooksConfig.disabled names editwarden's hook");
          return out;
        },
      },
    ];
  },
  coverage: [
    "Covered: Gemini CLI's write_file and replace are vetted by editwarden before they run (BeforeTool hook) and checkpointed for `editwarden undo`; every run_shell_command runs through `editwarden shell` (sandbox, one undo step per command that changed files, counted against this session's limits); limits count per Gemini session; the editwarden MCP tools are registered. If editwarden cannot run, the tool call is blocked.",
    'Not covered: a `cd` inside a command does not carry to the next one; commands need a sandbox (bubblewrap, sandbox-exec) or sandbox.allow_unsandboxed: true; a Gemini CLI version without hooks (then add "excludeTools": ["write_file", "replace", "run_shell_command"] to .gemini/settings.json so only editwarden\'s tools can edit and run commands); settings outside the project (~/.gemini) that turn hooks off.',
  ].join('\n'),
};
