/**
 * The hook's one way through (src/integrations/hook-protocol.ts): a client's input is translated once, the
 * decision rendered once; input that cannot be read is never let through as "not an edit".
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import { claude } from '../../src/integrations/claude.js';
import { codex } from '../../src/integrations/codex.js';
import { cursor } from '../../src/integrations/cursor.js';
import { gemini } from '../../src/integrations/gemini.js';
import { renderHook, translateHook } from '../../src/integrations/hook-protocol.js';

describe('translateHook', () => {
  it('reads an edit, a shell call, a tool it does not guard and a post-tool record in editwarden terms', () => {
    const edit = translateHook(claude, 'pre', { tool_name: 'Write', session_id: 's1', tool_input: { file_path: '/r/a', content: 'x' } });
    expect(edit).toMatchObject({ kind: 'edit', edit: { tool: 'Write' }, session: { client: 'claude', session: 's1' }, route: { via: 'hook', client: 'claude', session: 's1' } });
    expect(translateHook(claude, 'pre', { tool_name: 'Bash', tool_input: { command: 'ls', description: 'd' } })).toMatchObject({ kind: 'shell', tool: 'Bash', command: 'ls', toolInput: { description: 'd' } });
    expect(translateHook(claude, 'pre', { tool_name: 'Read', tool_input: { file_path: '/r/a' } })).toMatchObject({ kind: 'pass' });
    expect(translateHook(claude, 'post', { tool_name: 'Edit', tool_use_id: 't1' })).toMatchObject({ kind: 'post', tool: 'Edit', call: 't1' });
    expect(translateHook(codex, 'pre', { tool_name: 'exec_command', tool_input: { cmd: 'ls' } })).toMatchObject({ kind: 'shell-refused', tool: 'exec_command' });
  });

  it('input it cannot read is unreadable (refused), never a pass', () => {
    expect(translateHook(claude, 'pre', { tool_name: 'MultiEdit', tool_input: { file_path: '/r/a' } })).toMatchObject({ kind: 'unreadable', tool: 'MultiEdit', error: { code: 'E_PARSE' } });
    expect(translateHook(claude, 'pre', { tool_name: 'Bash', tool_input: { command: 'ls\0rm' } })).toMatchObject({ kind: 'unreadable', tool: 'Bash' });
    expect(translateHook(gemini, 'pre', { tool_name: 'run_shell_command', tool_input: 'ls' })).toMatchObject({ kind: 'unreadable', tool: 'run_shell_command' });
    expect(translateHook(codex, 'pre', { tool_name: 'apply_patch', tool_input: { command: 'not a patch' } })).toMatchObject({ kind: 'unreadable', tool: 'apply_patch' });
  });
});

describe('renderHook', () => {
  it("says each decision in the client's protocol", () => {
    const error = { code: ErrorCode.DENIED_PATH, message: 'm', hint: 'h' };
    expect(JSON.parse(renderHook(claude, { kind: 'deny', error }).stdout ?? '')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(renderHook(gemini, { kind: 'deny', error })).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('E_DENIED_PATH') });
    expect(JSON.parse(renderHook(gemini, { kind: 'rewrite', toolInput: { command: 'ls', dir: 'x' }, line: 'ew shell' }).stdout ?? '')).toEqual({
      hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { command: 'ew shell', dir: 'x' } },
    });
    expect(renderHook(claude, { kind: 'allow' })).toEqual({ exitCode: 0 });
    expect(renderHook(claude, { kind: 'note', message: 'n' })).toEqual({ exitCode: 0, stderr: 'n' });
    // A client without a shell rewrite never gets a rewrite through: refused.
    expect(renderHook(cursor, { kind: 'rewrite', toolInput: {}, line: 'x' }).exitCode).toBe(2);
  });

  it('hook.ts asks the client module nothing between the translation and the rendering', () => {
    const source = fs.readFileSync(path.join(import.meta.dirname, '../../src/integrations/hook.ts'), 'utf8');
    const asked = [...source.matchAll(/\bclient\.(?!js')(\w+)/g)].map((m) => m[1]);
    expect(new Set(asked)).toEqual(new Set(['events', 'name', 'projectDirEnv']));
  });
});
