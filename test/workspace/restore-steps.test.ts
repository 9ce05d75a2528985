/**
 * Every write editwarden makes from a checkpoint is itself an undo step
 * (issue 37): a rollback that takes a person's edit made during the
 * transaction, and a `checkpoint restore`, are undone by the next
 * `editwarden undo`, byte-exact; their events say what they wrote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
