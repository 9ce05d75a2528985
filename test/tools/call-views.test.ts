/**
 * Each tool carries how its calls are shown (issue 41): `describe` (one line
 * for a person: the live transcript, an approval prompt) and `slim` (its data
 * for a program, an MCP result's structuredContent, without the bulk the text
 * already carries). tools/call-views.ts only finds the tool by its exact name
 * and falls back to the defaults; these are the lines and shapes every
 * earlier release produced.
 */
import { describe, expect, it } from 'vitest';
import { describeCall, slimCallData } from '../../src/tools/call-views.js';
import { dryRunName } from '../../src/tools/dry-run.js';
import { toolNamed, toolVocabulary } from '../../src/tools/toolset.js';

describe('a call is described by its own tool', () => {
  it.each([
    ['edit_file', { path: 'a.ts', old_text: 'x', new_text: 'y' }, 'edit_file edit a.ts'],
    ['edit_file', { file_path: 'a.ts', mode: 'append', new_text: 'y' }, 'edit_file append a.ts'],
    ['edit_file', { filename: 'a.ts', ast_path: 'A-b', new_text: 'y' }, 'edit_file ast a.ts @ A-b'],
    ['write_file', { path: 'n.md', content: 'x' }, 'write_file create n.md'],
    ['write_file', { path: 'n.md', content: 'x', overwrite: true }, 'write_file overwrite n.md'],
    ['apply_patch', { patch: '*** Begin Patch\n*** End Patch\n' }, 'apply_patch (3 lines)'],
    ['execute_command', { command: 'make' }, '$ make'],
    ['execute_command', { command: 'make', cwd: '.' }, '$ make'],
    ['execute_command', { command: 'make', cwd: 'sub' }, '$ make  (in sub)'],
    ['read_file', { path: 'a.ts' }, 'read_file a.ts'],
    ['read_file', { path: 'a.ts', start_line: 3 }, 'read_file a.ts:3'],
    ['read_file', { path: 'a.ts', start_line: 3, end_line: 9 }, 'read_file a.ts:3-9'],
    ['list_files', {}, 'list_files .'],
    ['list_files', { path: 'src' }, 'list_files src'],
    ['search_files', { pattern: 'TODO' }, 'search_files "TODO"'],
    ['search_files', { pattern: 'TODO', path: 'src' }, 'search_files "TODO" in src'],
    ['task_completion', {}, 'task_completion (done)'],
    ['task_completion', { status: 'blocked' }, 'task_completion (blocked)'],
    ['ask_question', { question: 'Which one?' }, 'ask_question "Which one?"'],
  ])('%s %j → %s', (tool, args, line) => {
    expect(describeCall(tool, args)).toBe(line);
  });

  it('arguments the schema would refuse still give a line (the loop describes malformed calls too)', () => {
    expect(describeCall('edit_file', { path: 7, mode: ['x'] })).toBe('edit_file edit ');
    expect(describeCall('search_files', undefined)).toBe('search_files ""');
  });

  it('a tool without its own describe, a dry-run twin, an alias and an unknown name read as the name and the arguments as JSON, cut at 100 characters', () => {
    expect(describeCall('converse', { message: 'hi' })).toBe('converse {"message":"hi"}');
    expect(describeCall(dryRunName('edit_file'), { path: 'a' })).toBe('edit_file_dry_run {"path":"a"}');
    expect(describeCall('apply_diff', { diff: 'x' })).toBe('apply_diff {"diff":"x"}');
    const long = describeCall('no_such_tool', { text: 'x'.repeat(200) });
    expect(long).toBe(`no_such_tool ${JSON.stringify({ text: 'x'.repeat(200) }).slice(0, 100)}…`);
  });

  it('every tool of tools/ that describes itself is found by its exact name', () => {
    const own = toolVocabulary().filter((name) => toolNamed(name)?.describe !== undefined);
    expect(own.sort()).toEqual(['apply_patch', 'ask_question', 'edit_file', 'execute_command', 'list_files', 'read_file', 'search_files', 'task_completion', 'write_file']);
  });
});

describe("a call's data is slimmed by its own tool", () => {
  it('read_file drops the text (the result text carries it)', () => {
    expect(slimCallData('read_file', { path: 'a', content: 'big', total_lines: 3 })).toEqual({ path: 'a', total_lines: 3 });
  });

  it('list_files keeps the folder, how many entries and whether it was cut', () => {
    expect(slimCallData('list_files', { path: '.', entries: ['a', 'b'], truncated: false })).toEqual({ path: '.', count: 2, truncated: false });
    expect(slimCallData('list_files', { path: '.', entries: 'odd' })).toEqual({ path: '.', count: 0, truncated: undefined });
  });

  it('search_files keeps where each match is, not the line', () => {
    const slim = slimCallData('search_files', { pattern: 'x', truncated: false, matches: [{ path: 'a', line: 2, text: 'x = 1' }] });
    expect(slim).toEqual({ pattern: 'x', truncated: false, count: 1, matches: [{ path: 'a', line: 2 }] });
    expect(Object.keys(slim ?? {})).toEqual(['pattern', 'truncated', 'count', 'matches']);
  });

  it.each(['edit_file', 'write_file', 'apply_patch'])('%s drops each result’s diff', (tool) => {
    expect(slimCallData(tool, { results: [{ path: 'a', status: 'applied', diff: '--- a\n' }], dry: false })).toEqual({ results: [{ path: 'a', status: 'applied' }], dry: false });
  });

  it('a tool without its own slim (a dry-run twin, execute_command) keeps its data whole; data that is no object gives none', () => {
    const preview = { dry_run: true, changes: [{ path: 'a', added: 1, removed: 0 }] };
    expect(slimCallData(dryRunName('edit_file'), preview)).toBe(preview);
    const command = { exit_code: 0, output: 'ok' };
    expect(slimCallData('execute_command', command)).toBe(command);
    expect(slimCallData('read_file', ['x'])).toBeUndefined();
    expect(slimCallData('read_file', null)).toBeUndefined();
    expect(slimCallData('read_file', 'text')).toBeUndefined();
  });
});
