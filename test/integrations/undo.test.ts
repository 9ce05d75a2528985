/**
 * `editwarden undo` / `redo` over editwarden's own writes, checkpoint
 * references (unique id prefix, name, `latest`), the one newest-first list
 * order, and the run summary that names the command undoing the run — all
 * through the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, editwarden, project } from './helpers.js';

afterAll(cleanup);

function edit(root: string, file: string, oldText: string, newText: string): void {
  const r = editwarden(['edit', file, '--old', oldText, '--new', newText, '--root', root]);
  expect(r.code, r.stderr).toBe(0);
}

const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

describe('undo and redo', () => {
  it('undo restores the state before the most recent change; again steps further back; redo steps forward', () => {
    const root = project({ 'a.txt': 'v0\n' });
    edit(root, 'a.txt', 'v0', 'v1');
    edit(root, 'a.txt', 'v1', 'v2');
    edit(root, 'a.txt', 'v2', 'v3');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('redo with: editwarden redo');
    expect(read(root, 'a.txt')).toBe('v2\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('v1\n');
    editwarden(['redo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('v2\n');
    editwarden(['redo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('v3\n');
    expect(editwarden(['redo', '--root', root]).stdout).toContain('nothing to redo');
    for (let i = 0; i < 3; i++) editwarden(['undo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('v0\n');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('nothing to undo');
  });

  it('a change after an undo drops the redo stack, and the next undo undoes that change', () => {
    const root = project({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' });
    edit(root, 'a.txt', 'v0', 'v1');
    editwarden(['undo', '--root', root]);
    edit(root, 'b.txt', 'b0', 'b1');
    expect(editwarden(['redo', '--root', root]).stdout).toContain('nothing to redo');
    expect(read(root, 'a.txt')).toBe('v0\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'b.txt')).toBe('b0\n');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('nothing to undo');
  });

  it('an undo of a checkpoint restore puts back the state the restore replaced', () => {
    const root = project({ 'a.txt': 'v0\n' });
    const id = (JSON.parse(editwarden(['checkpoint', 'create', '--name', 'start', '--root', root, '--json']).stdout) as { id: string }).id;
    fs.writeFileSync(path.join(root, 'a.txt'), 'by hand\n');
    expect(editwarden(['checkpoint', 'restore', id, '--root', root]).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('v0\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('by hand\n');
  });

  it('refuses a damaged undo history instead of acting on it', () => {
    const root = project({ 'a.txt': 'v0\n' });
    edit(root, 'a.txt', 'v0', 'v1');
    fs.writeFileSync(path.join(root, '.editwarden', 'undo.json'), JSON.stringify({ format: 1, undone: [], redo: [{ change: 'x', label: 'x', safety: '../../etc' }], own: [], at: '' }));
    const r = editwarden(['undo', '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_IO');
    expect(read(root, 'a.txt')).toBe('v1\n');
  });
});

describe('checkpoint references and list order', () => {
  it('accepts a unique id prefix, a name and latest; refuses an ambiguous prefix', () => {
    const root = project({ 'a.txt': 'v0\n' });
    const create = (name: string): string => (JSON.parse(editwarden(['checkpoint', 'create', '--name', name, '--root', root, '--json']).stdout) as { id: string }).id;
    const first = create('start');
    fs.writeFileSync(path.join(root, 'a.txt'), 'v1\n');
    const second = create('middle');
    fs.writeFileSync(path.join(root, 'a.txt'), 'v2\n');

    expect(editwarden(['checkpoint', 'diff', 'latest', '--root', root, '--json']).stdout).toContain(second);
    expect(editwarden(['checkpoint', 'restore', 'start', '--root', root]).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('v0\n');
    // All but the last hex digit: a prefix no other checkpoint shares.
    const byPrefix = editwarden(['checkpoint', 'restore', second.slice(0, -1), '--root', root]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('v1\n');
    const ambiguous = editwarden(['checkpoint', 'restore', first.slice(0, 8), '--root', root, '--json']);
    expect(JSON.parse(ambiguous.stdout)).toMatchObject({ ok: false, error: { code: 'E_AMBIGUOUS' } });
  });

  it('lists newest first', () => {
    const root = project({ 'a.txt': 'v0\n' });
    const ids = [0, 1, 2].map(() => (JSON.parse(editwarden(['checkpoint', 'create', '--root', root, '--json']).stdout) as { id: string }).id);
    const listed = (JSON.parse(editwarden(['checkpoint', 'list', '--root', root, '--json']).stdout) as { checkpoints: Array<{ id: string }> }).checkpoints.map((c) => c.id);
    expect(listed).toEqual([...ids].reverse());
  });
});

describe('a run names the command that undoes it', () => {
  it('exec prints `editwarden undo --run <id>`, which puts every file of the run back', () => {
    const root = project({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const calls = [
      { tool: 'edit_file', args: { path: 'a.txt', old_text: 'one', new_text: 'ONE' } },
      { tool: 'edit_file', args: { path: 'b.txt', old_text: 'two', new_text: 'TWO' } },
      { tool: 'write_file', args: { path: 'c.txt', content: 'new\n' } },
    ];
    const run = editwarden(['exec', '-', '--root', root], { input: calls.map((c) => JSON.stringify(c)).join('\n') });
    expect(run.code, run.stderr).toBe(0);
    const line = /undo this run: (editwarden undo --run (\S+))/.exec(run.stdout);
    expect(line, run.stdout).not.toBeNull();
    const undo = editwarden(['undo', '--run', line?.[2] as string, '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    expect(read(root, 'b.txt')).toBe('two\n');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
  });
});
