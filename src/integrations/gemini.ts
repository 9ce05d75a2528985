/**
 * Gemini CLI: `.gemini/settings.json` gets the editwarden MCP server
 * (`mcpServers`) and BeforeTool/AfterTool command hooks on Gemini's own
 * write tools (`write_file`, `replace`). Hook protocol (Gemini CLI hooks
 * reference): JSON on stdin with `tool_name` and `tool_input`; exit 2 blocks
 * the tool and stderr is the reason the model reads.
 */
import path from 'node:path';
import type { EditRequest } from '../edit/types.js';
import type { ErrorInfo } from '../errors.js';
import { arrayAt, jsonText, mcpServer, objectAt, parseJsonObject, refusalText, shellLine, upsertHookGroup, type ClientIntegration, type Json } from './client.js';
import { objectOf, stringField, type NativeEdit } from './native-edit.js';

const EDIT_TOOLS = ['write_file', 'replace'];
const SHELL_TOOLS = ['run_shell_command'];

export function geminiNativeEdit(input: Record<string, unknown>): NativeEdit | null {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  if (!EDIT_TOOLS.includes(tool)) return null;
  const ti = objectOf(input.tool_input, 'tool_input');
  const file = stringField(ti, 'file_path', 'absolute_path', 'path');
  const source = { format: 'tool' as const, index: 0 };
  let request: EditRequest;
  if (tool === 'write_file') request = { action: 'overwrite', path: file, content: stringField(ti, 'content'), source };
  else {
    const oldText = stringField(ti, 'old_string');
    const newText = stringField(ti, 'new_string');
    const many = typeof ti.expected_replacements === 'number' && ti.expected_replacements > 1;
    request = oldText === '' ? { action: 'create', path: file, content: newText, source } : { action: 'edit', path: file, oldText, newText, ...(many ? { replaceAll: true } : {}), source };
  }
  return { client: 'gemini', tool, requests: [request], pathsOnly: [] };
}

export const gemini: ClientIntegration = {
  name: 'gemini',
  events: { 'before-tool': 'pre', 'after-tool': 'post' },
  nativeEdit: geminiNativeEdit,
  postCall: (input) => ({ tool: typeof input.tool_name === 'string' ? input.tool_name : '' }),
  deny: (error: ErrorInfo) => ({ exitCode: 2, stderr: refusalText(error) }),
  allow: () => ({ exitCode: 0, stdout: '{}' }),
  shell: {
    tools: SHELL_TOOLS,
    commandOf: (ti) => stringField(ti, 'command'),
    // Gemini CLI runs the hook's `tool_input` instead of the model's (seen with 0.61.0) and tells the model the input was changed.
    rewrite: (ti, line) => ({ exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { ...ti, command: line } } }) }),
  },
  configFiles(root, command) {
    return [
      {
        path: path.join(root, '.gemini', 'settings.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.gemini/settings.json');
          objectAt(data, 'mcpServers').editwarden = mcpServer(command);
          const hooks = objectAt(data, 'hooks');
          const group = (event: string): { [key: string]: Json } => ({
            // BeforeTool also rewrites run_shell_command to run through `editwarden shell`; AfterTool records edits only.
            matcher: (event === 'before-tool' ? [...EDIT_TOOLS, ...SHELL_TOOLS] : EDIT_TOOLS).join('|'),
            hooks: [{ type: 'command', name: `editwarden-${event}`, command: shellLine([...command, 'hook', 'gemini', event]), timeout: 60000 }],
          });
          upsertHookGroup(arrayAt(hooks, 'BeforeTool'), ' hook gemini before-tool', group('before-tool'));
          upsertHookGroup(arrayAt(hooks, 'AfterTool'), ' hook gemini after-tool', group('after-tool'));
          return jsonText(data);
        },
      },
    ];
  },
  coverage: [
    "Covered: Gemini CLI's write_file and replace are vetted by editwarden before they run (BeforeTool hook) and checkpointed for `editwarden undo`; the editwarden MCP tools are registered.",
    'Not covered: files changed by run_shell_command; a Gemini CLI version without hooks (then add "excludeTools": ["write_file", "replace"] to .gemini/settings.json so only editwarden\'s tools can edit).',
  ].join('\n'),
};
