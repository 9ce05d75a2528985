/**
 * `editwarden undo` / `redo` over editwarden's own writes, checkpoint
 * references (unique id prefix, name, `latest`), the one newest-first list
 * order, and the run summary that names the command undoing the run — all
 * through the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, editwarden, project } from './helpers.js';

afterAll(cleanup);

/** `editwarden edit` as a setup step (run in this process): the history the undo and redo below walk. */
async function edit(root: string, file: string, oldText: string, newText: string): Promise<void> {
  const r = await editwardenHere(['edit', file, '--old', oldText, '--new', newText, '--root', root]);
  expect(r.code, r.stderr).toBe(0);
}

/** `editwarden checkpoint create` as a setup step (run in this process); its id. */
async function create(root: string, name?: string): Promise<string> {
  const r = await editwardenHere(['checkpoint', 'create', ...(name === undefined ? [] : ['--name', name]), '--root', root, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: string }).id;
}

const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

describe('undo and redo', () => {
  it('undo restores the state before the most recent change; again steps further back; redo steps forward', async () => {
    const root = project({ 'a.txt': 'v0\n' });
    await edit(root, 'a.txt', 'v0', 'v1');
    await edit(root, 'a.txt', 'v1', 'v2');
    await edit(root, 'a.txt', 'v2', 'v3');
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

  it('a change after an undo drops the redo stack, the next undo undoes that change, and the one after gives back what the dropped undo took', async () => {
    const root = project({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' });
    await edit(root, 'a.txt', 'v0', 'v1');
    editwarden(['undo', '--root', root]);
    // The change after the undo: the real binary, as a person would make it.
    const change = editwarden(['edit', 'b.txt', '--old', 'b0', '--new', 'b1', '--root', root]);
    expect(change.code, change.stderr).toBe(0);
    expect(editwarden(['redo', '--root', root]).stdout).toContain('nothing to redo');
    expect(read(root, 'a.txt')).toBe('v0\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'b.txt')).toBe('b0\n');
    // Nothing editwarden overwrote is out of reach: the undo whose redo was dropped is itself a step.
    const again = editwarden(['undo', '--root', root]);
    expect(again.stdout).toContain('undo of');
    expect(read(root, 'a.txt')).toBe('v1\n');
    expect(editwarden(['undo', '--root', root]).stdout).toContain('nothing to undo');
  });

  it('an undo of a checkpoint restore puts back the state the restore replaced', async () => {
    const root = project({ 'a.txt': 'v0\n' });
    const id = await create(root, 'start');
    fs.writeFileSync(path.join(root, 'a.txt'), 'by hand\n');
    expect(editwarden(['checkpoint', 'restore', id, '--root', root]).code).toBe(0);
    expect(read(root, 'a.txt')).toBe('v0\n');
    editwarden(['undo', '--root', root]);
    expect(read(root, 'a.txt')).toBe('by hand\n');
  });

  it('refuses a damaged undo history instead of acting on it', async () => {
    const root = project({ 'a.txt': 'v0\n' });
    await edit(root, 'a.txt', 'v0', 'v1');
    fs.writeFileSync(path.join(root, '.editwarden', 'undo.json'), JSON.stringify({ format: 1, undone: [], redo: [{ change: 'x', label: 'x', safety: '../../etc' }], own: [], at: '' }));
    const r = editwarden(['undo', '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_IO');
    expect(read(root, 'a.txt')).toBe('v1\n');
  });
});

describe('checkpoint references and list order', () => {
  it('accepts a unique id prefix, a name and latest; refuses an ambiguous prefix', async () => {
    const root = project({ 'a.txt': 'v0\n' });
    const first = await create(root, 'start');
    fs.writeFileSync(path.join(root, 'a.txt'), 'v1\n');
    const second = await create(root, 'middle');
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

  it('lists newest first', async () => {
    const root = project({ 'a.txt': 'v0\n' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await create(root));
      // Apart in time, as separate commands are (ids sort by their millisecond).
      await new Promise((r) => setTimeout(r, 5));
    }
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
