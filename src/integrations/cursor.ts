/**
 * Cursor: `.cursor/mcp.json` registers the editwarden MCP server, and
 * `.cursor/hooks.json` an `afterFileEdit` hook that records what Cursor's
 * own editor changed. Cursor's documented file-edit hook runs AFTER the
 * edit and cannot refuse it, so Cursor's native edits are recorded, not
 * vetted and not undoable; edits made through the editwarden MCP tools are
 * vetted and undoable as everywhere. Said plainly by init.
 */
import path from 'node:path';
import type { ErrorInfo } from '../errors.js';
import { arrayAt, dropIfEmpty, jsonOrNothing, jsonText, removeFromList, mcpServer, objectAt, parseJsonObject, putServer, refusalText, guardedHookCommand, type ClientIntegration, type Json, takeOurSettings } from './client.js';
import { defined } from '../defined.js';

export const cursor: ClientIntegration = {
  name: 'cursor',
  projectDirEnv: 'CURSOR_PROJECT_DIR',
  events: { 'after-file-edit': 'post' },
  // Cursor's hooks name the conversation, not a session (Cursor hooks reference: conversation_id, generation_id).
  sessionFields: ['conversation_id'],
  // Its documented file-edit hook sees no tool by name (afterFileEdit runs after any edit): no tool is named here.
  tools: { edit: {} },
  nativeEdit: () => null,
  postCall: (input) => ({ tool: 'afterFileEdit', ...defined({ paths: typeof input.file_path === 'string' && input.file_path !== '' ? [input.file_path] : undefined }) }),
  deny: (error: ErrorInfo) => ({ exitCode: 2, stderr: refusalText(error) }),
  allow: () => ({ exitCode: 0, stdout: '{}' }),
  configFiles(root, setup) {
    const line = guardedHookCommand('cursor', 'after-file-edit', '${CURSOR_PROJECT_DIR:-.}', setup);
    return [
      {
        path: path.join(root, '.cursor', 'mcp.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.cursor/mcp.json');
          putServer(objectAt(data, 'mcpServers'), mcpServer(setup), '.cursor/mcp.json');
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.cursor/mcp.json');
          takeOurSettings(data);
          return jsonOrNothing(data, existing);
        },
        switches: () => [],
      },
      {
        path: path.join(root, '.cursor', 'hooks.json'),
        render(existing) {
          const data = parseJsonObject(existing, '.cursor/hooks.json');
          if (data.version === undefined) data.version = 1;
          const list = arrayAt(objectAt(data, 'hooks'), 'afterFileEdit');
          const at = list.findIndex((h: Json) => typeof h === 'object' && h !== null && !Array.isArray(h) && typeof h.command === 'string' && h.command.includes(' hook cursor after-file-edit'));
          if (at >= 0) list[at] = { command: line };
          else list.push({ command: line });
          return jsonText(data, existing);
        },
        remove(existing) {
          if (existing === null) return null;
          const data = parseJsonObject(existing, '.cursor/hooks.json');
          const hooks = objectAt(data, 'hooks');
          removeFromList(hooks, 'afterFileEdit', (h: Json) => !(typeof h === 'object' && h !== null && !Array.isArray(h) && typeof h.command === 'string' && h.command.includes(' hook cursor after-file-edit')));
          dropIfEmpty(data, 'hooks');
          // `version` is init's only when nothing else is left.
          return Object.keys(data).length === 1 && data.version === 1 ? null : jsonOrNothing(data, existing);
        },
        switches: () => [],
      },
    ];
  },
  coverage: [
    "Covered: the editwarden MCP tools are registered (edits through them are vetted and undoable); Cursor's own edits are recorded in the event log (`editwarden log`).",
    "Not covered: Cursor's own edits are not vetted and `editwarden undo` cannot restore them — Cursor's documented afterFileEdit hook runs after the write and cannot refuse it; Cursor's terminal commands are not wrapped.",
  ].join('\n'),
};
