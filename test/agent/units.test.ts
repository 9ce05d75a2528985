import { describe, expect, it } from 'vitest';
import { callKey, checkCall, RepeatTracker } from '../../src/agent/loop/calls.js';
import { describeCall } from '../../src/tools/call-views.js';
import { editFileArgsOf } from '../../src/agent/loop/active-edits.js';
import { buildSystemPrompt } from '../../src/agent/prompts/index.js';
import { parseAnswer } from '../../src/cli/terminal-prompter.js';
import { scriptFromTranscript } from '../../src/agent/providers/script.js';
import { parseToolArguments } from '../../src/agent/providers/arguments.js';
import { exitCodeForStatus } from '../../src/agent/loop.js';
import { ToolRegistry } from '../../src/tools/registry.js';

describe('tool arguments', () => {
  it('"" means {}; invalid JSON and non-objects say what is wrong', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolArguments('{"a":')).toMatchObject({ ok: false, reason: expect.stringContaining('not valid JSON') });
    expect(parseToolArguments('[1]')).toMatchObject({ ok: false, reason: expect.stringContaining('not an array') });
    expect(parseToolArguments('null')).toMatchObject({ ok: false, reason: expect.stringContaining('not null') });
  });
});

describe('malformed calls', () => {
  const registry = new ToolRegistry();
  it('tells bad JSON, unknown tools and schema failures apart, naming the field', () => {
    const offered = ['read_file', 'edit_file'];
    expect(checkCall({ id: '1', name: 'read_file', arguments: '{' }, registry, offered)).toMatchObject({ ok: false, error: { code: 'E_MALFORMED_CALL' } });
    const unknown = checkCall({ id: '1', name: 'delete_everything', arguments: '{}' }, registry, offered);
    expect(unknown).toMatchObject({ ok: false, error: { hint: 'Use one of: read_file, edit_file.' } });
    const field = checkCall({ id: '1', name: 'read_file', arguments: '{"path": 3}' }, registry, offered);
    expect(field.ok).toBe(false);
    if (!field.ok) expect(field.error.message).toContain('field "path"');
    expect(checkCall({ id: '1', name: 'read_file', arguments: '{"path": "a"}' }, registry, offered).ok).toBe(true);
  });
});

describe('3 identical failing calls in a row', () => {
  it('counts only identical consecutive failures; key order does not matter; a success or another call resets', () => {
    const t = new RepeatTracker();
    const a = callKey({ id: '1', name: 'edit_file', arguments: '{"path":"a","old_text":"x"}' });
    const a2 = callKey({ id: '2', name: 'edit_file', arguments: '{"old_text":"x", "path":"a"}' });
    const b = callKey({ id: '3', name: 'edit_file', arguments: '{"path":"b"}' });
    expect(a).toBe(a2);
    expect(t.record(a, true)).toBe(1);
    expect(t.record(a2, true)).toBe(2);
    expect(t.record(b, true)).toBe(1);
    expect(t.record(a, true)).toBe(1);
    expect(t.record(a, true)).toBe(2);
    expect(t.record(a, false)).toBe(0);
    expect(t.record(a, true)).toBe(1);
    expect(t.record(a, true)).toBe(2);
    expect(t.record(a, true)).toBe(3);
  });
});

describe('system prompts', () => {
  it('always carry the edit-file guidelines; active edit instructions only when enabled; controlled mode its own prompt', () => {
    const headless = buildSystemPrompt({ mode: 'headless', activeEdit: false, tools: ['read_file', 'edit_file'] });
    expect(headless).toContain('mode "create" is only for files that do not exist yet');
    expect(headless).toContain('occurs exactly once');
    expect(headless).toContain('mode "append" adds new_text at the end');
    expect(headless).toContain('mode "overwrite" replaces the whole file. It is dangerous');
    expect(headless).toContain('nobody can answer questions');
    expect(headless).not.toContain('---BEGIN---');
    const active = buildSystemPrompt({ mode: 'interactive', activeEdit: true, tools: ['edit_file'] });
    expect(active).toContain('---BEGIN---');
    expect(active).toContain('A person is watching this run');
    const controlled = buildSystemPrompt({ mode: 'controlled', activeEdit: true, tools: ['edit_file'] });
    expect(controlled).toContain('exactly ONE change to ONE file');
    expect(controlled).toContain('mode "create" is only for files');
    expect(controlled).not.toContain('---BEGIN---');
  });
});

describe('active edit directives as edit_file arguments', () => {
  it('maps create / overwrite / append / prepend / ast requests; refuses what edit_file cannot express', () => {
    expect(editFileArgsOf({ action: 'create', path: 'a', content: 'x\n' })).toEqual({ path: 'a', mode: 'create', new_text: 'x\n' });
    expect(editFileArgsOf({ action: 'append', path: 'a', content: 'x\n' })).toEqual({ path: 'a', mode: 'append', new_text: 'x\n' });
    expect(editFileArgsOf({ action: 'ast', path: 'a.ts', astPath: 'C-m', astAction: 'remove', content: '' })).toEqual({ path: 'a.ts', ast_path: 'C-m', ast_action: 'remove' });
    expect(editFileArgsOf({ action: 'ast', path: 'a.ts', astPath: 'C-m', astAction: 'replace', content: 'y\n' })).toMatchObject({ new_text: 'y\n' });
    expect(editFileArgsOf({ action: 'delete', path: 'a' })).toBeNull();
  });
});

describe('interactive answers', () => {
  it('y / n / a / q in short or long form, case-insensitive; end of input is quit; anything else asks again', () => {
    expect(['y', 'YES', 'n', 'No', 'a', 'always', 'q', 'quit'].map(parseAnswer)).toEqual(['yes', 'yes', 'no', 'no', 'always', 'always', 'quit', 'quit']);
    expect(parseAnswer(null)).toBe('quit');
    expect(parseAnswer('maybe')).toBeNull();
  });
});

describe('replaying a transcript', () => {
  it('takes the assistant lines, with raw arguments and usage', () => {
    const text = [
      JSON.stringify({ type: 'start', run_id: 'x' }),
      JSON.stringify({ type: 'assistant', turn: 1, text: 'hi', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], usage: { input: 5, output: 2 } }),
      JSON.stringify({ type: 'tool_result', status: 'ok' }),
      JSON.stringify({ type: 'assistant', turn: 2, text: '', tool_calls: [], usage: { input: 7, output: 1 } }),
    ].join('\n');
    expect(scriptFromTranscript(text).turns).toEqual([{ text: 'hi', tool_calls: [{ name: 'read_file', arguments: '{"path":"a"}', id: 'c1' }], usage: { input: 5, output: 2 } }, { usage: { input: 7, output: 1 } }]);
  });
});

describe('exit codes', () => {
  it('follow DESIGN.md: done 0, violation 2, controlled build failure 3, stuck 4, interrupted 130', () => {
    expect(exitCodeForStatus('completed')).toBe(0);
    expect(exitCodeForStatus('completed', { completion: 'blocked' })).toBe(1);
    expect(exitCodeForStatus('violation')).toBe(2);
    expect(exitCodeForStatus('stuck')).toBe(4);
    expect(exitCodeForStatus('turn-limit')).toBe(4);
    expect(exitCodeForStatus('interrupted')).toBe(130);
    expect(describeCall('execute_command', { command: 'make', cwd: 'sub' })).toBe('$ make  (in sub)');
  });
});
