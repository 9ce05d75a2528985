/**
 * Every write editwarden makes from a checkpoint is itself an undo step
 * (issue 37): a rollback that takes a person's edit made during the
 * transaction, and a `checkpoint restore`, are undone by the next
 * `editwarden undo`, byte-exact; their events say what they wrote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { beginTransaction } from '../../src/workspace/transaction.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');
const read = (root: string, rel: string): string | null => (fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), 'utf8') : null);

describe('a rollback is an undo step: what it overwrote comes back with the next undo', () => {
  it("a run's rollback takes the person's save of the file it wrote; undo gives the save back byte-exact", () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a0\n');
    const { ws, transactions } = openWorkspace(root);
    const tx = beginTransaction(ws, { name: 'run', reason: 'test' });
    ws.transact((t) => ws.commit(t, [{ kind: 'write', path: 'a.txt', bytes: text('agent\n') }]));
    // The person saves the same file while the run goes on; then the run fails and is rolled back.
    fs.writeFileSync(path.join(root, 'a.txt'), 'agent\nand the person’s paragraph\n');
    const rollback = tx.rollback();
    expect(read(root, 'a.txt')).toBe('a0\n');
    expect(rollback.safety).toEqual(expect.any(String));
    expect(rollback.bytes).toBe(3);

    const history = new UndoHistory(transactions.checkpoints);
    const listed = history.list()[0];
    expect(listed).toMatchObject({ kind: 'restore', label: expect.stringContaining('rollback of') });
    const undone = history.undo();
    expect(undone.change?.label).toContain('rollback of');
    expect(read(root, 'a.txt')).toBe('agent\nand the person’s paragraph\n');
  });

  it('a checkpoint restore is a step too, and its capture holds what it deleted', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a0\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const id = cps.create('start', 'test');
    write(root, 'a.txt', 'person\n');
    write(root, 'new.txt', 'new\n');
    const r = cps.restore(id);
    expect(read(root, 'a.txt')).toBe('a0\n');
    expect(read(root, 'new.txt')).toBeNull();
    expect(cps.get(r.safety as string).origin).toMatchObject({ kind: 'safety', cause: 'restore', before: id });
    new UndoHistory(cps).undo();
    expect(read(root, 'a.txt')).toBe('person\n');
    expect(read(root, 'new.txt')).toBe('new\n');
  });
});

describe('a put-back reverts only what the command can be shown to have done', () => {
  it("leaves a person's file written during the command (not shown to be the command's), not charged, refused by a plain undo", () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a0\n');
    write(root, 'notes.md', 'n0\n');
    const { transactions } = openWorkspace(root);
    const effects = new CommandEffects(transactions.checkpoints);
    const mark = effects.before('cmd', { command: 'echo agent > a.txt' });
    const start = new Date().toISOString();
    fs.writeFileSync(path.join(root, 'a.txt'), 'agent\n');
    fs.writeFileSync(path.join(root, 'notes.md'), 'person\n');
    // The witness saw the command's processes write a.txt only.
    const found = effects.after(mark, { witness: { paths: new Set(['a.txt']), tails: new Set(), trees: new Set() }, window: { start, end: new Date().toISOString() } });
    expect(found.unshown).toEqual(['notes.md']);
    expect(found.changes.map((c) => c.path)).toEqual(['a.txt']);
    const r = effects.putBack(found, 'put-back of cmd');
    expect(r?.written).toEqual(['a.txt']);
    expect(read(root, 'a.txt')).toBe('a0\n');
    expect(read(root, 'notes.md')).toBe('person\n');
    // Undo of the put-back, then of the command: the command's undo refuses the person's file until forced.
    const history = new UndoHistory(transactions.checkpoints);
    history.undo();
    expect(read(root, 'a.txt')).toBe('agent\n');
    expect(() => history.undo()).toThrow(/notes\.md/);
    expect(read(root, 'notes.md')).toBe('person\n');
  });
});

describe('without a witness, times tell what changed after the command', () => {
  it('a file whose inode changed after the window ended is not the command’s; an mtime set ahead (touch -d) does not hide a write', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a0\n');
    write(root, 'late.txt', 'l0\n');
    const { transactions } = openWorkspace(root);
    const effects = new CommandEffects(transactions.checkpoints);
    const mark = effects.before('cmd', { command: 'echo x > a.txt; touch -d tomorrow a.txt' });
    const start = new Date().toISOString();
    // The command's write, with its mtime set a day ahead: the ctime still says when it happened.
    fs.writeFileSync(path.join(root, 'a.txt'), 'x\n');
    fs.utimesSync(path.join(root, 'a.txt'), new Date(Date.now() + 86_400_000), new Date(Date.now() + 86_400_000));
    await new Promise((r) => setTimeout(r, 50));
    const end = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 50));
    // After the command ended (before the capture): another process's write.
    fs.writeFileSync(path.join(root, 'late.txt'), 'person\n');
    const found = effects.after(mark, { witness: null, window: { start, end } });
    expect(found.unshown).toEqual(['late.txt']);
    expect(found.changes.map((c) => c.path)).toEqual(['a.txt']);
  });
});

describe('a write through another name of the same file is the command’s', () => {
  it('a file sharing its inode with a path the witness saw is shown to be the command’s (charged, put back)', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a0\n');
    const { transactions } = openWorkspace(root);
    const effects = new CommandEffects(transactions.checkpoints);
    const mark = effects.before('cmd', { command: 'ln a.txt x; echo evil >> x' });
    fs.linkSync(path.join(root, 'a.txt'), path.join(root, 'x'));
    fs.appendFileSync(path.join(root, 'x'), 'evil\n');
    const found = effects.after(mark, { witness: { paths: new Set(['x']), tails: new Set(), trees: new Set() } });
    expect(found.unshown).toEqual([]);
    expect(found.changes.map((c) => c.path).sort()).toEqual(['a.txt', 'x']);
  });
});
