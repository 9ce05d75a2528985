import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { beginTransaction, transactionsOf } from '../../src/workspace/transaction.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';

const text = (s: string): Buffer => Buffer.from(s);

function journalFiles(root: string): string[] {
  try {
    return fs.readdirSync(path.join(root, '.editwarden/journal'));
  } catch {
    return [];
  }
}

describe('every ws.commit is a checkpointed transaction', () => {
  it('checkpoints exactly the files about to be written, and the checkpoint restores them', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'one\n');
    write(root, 'untouched.txt', 'same\n');
    const { ws, transactions } = openWorkspace(root);
    ws.transact((tx) =>
      ws.commit(tx, [
        { kind: 'write', path: 'a.txt', bytes: text('two\n') },
        { kind: 'write', path: 'new/b.txt', bytes: text('b\n') },
      ]),
    );
    const id = transactions.lastCheckpoint as string;
    const manifest = transactions.checkpoints.get(id);
    expect(manifest.scope).toBe('files');
    expect(manifest.entries.map((e) => [e.path, e.type])).toEqual([
      ['a.txt', 'file'],
      ['new/b.txt', 'absent'],
    ]);
    expect(journalFiles(root)).toEqual([]);
    transactions.checkpoints.restore(id);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(path.join(root, 'new'))).toBe(false);
  });

  it('a batch that fails half-way leaves every file of the batch as it was', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'original\n');
    write(root, 'blocker', 'a file where a folder is needed\n');
    const { ws } = openWorkspace(root);
    const before = snapshotTree(root);
    expect(() =>
      ws.transact((tx) =>
        ws.commit(tx, [
          { kind: 'write', path: 'a.txt', bytes: text('changed\n') },
          { kind: 'write', path: 'blocker/inside.txt', bytes: text('cannot be written\n') },
        ]),
      ),
    ).toThrow();
    expect(snapshotTree(root)).toEqual(before);
    expect(journalFiles(root)).toEqual([]);
    // The lock was released: the next commit works.
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('later\n') }]));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('later\n');
  });
});

describe('an explicit transaction spans several commits', () => {
  it('rollback restores the state before begin: modified, created (with folders) and deleted files', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n', 0o640);
    write(root, 'b.txt', 'b\n');
    const { ws } = openWorkspace(root);
    const before = snapshotTree(root);
    const tx = beginTransaction(ws, { name: 'multi', reason: 'test' });
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('a2\n'), mode: 0o755 }]));
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('a3\n') }]));
    ws.transact((tx) =>
      ws.commit(tx, [
        { kind: 'write', path: 'x/y/z.txt', bytes: text('new\n') },
        { kind: 'delete', path: 'b.txt' },
      ]),
    );
    expect(tx.written).toEqual(['a.txt', 'b.txt', 'x/y/z.txt']);
    expect(journalFiles(root)).toHaveLength(1);
    const result = tx.rollback();
    expect(tx.state).toBe('rolled-back');
    expect(snapshotTree(root)).toEqual(before);
    expect(result.removed).toEqual(['x/y/z.txt']);
    expect(journalFiles(root)).toEqual([]);
  });

  it('commit keeps the writes and ends the journal record', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const { ws } = openWorkspace(root);
    const tx = beginTransaction(ws, { name: 'ok' });
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('kept\n') }]));
    tx.commit();
    expect(tx.state).toBe('committed');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('kept\n');
    expect(journalFiles(root)).toEqual([]);
    expect(() => tx.commit()).toThrow(/already committed/);
  });

  it('transactions do not nest', () => {
    const root = tempRoot();
    const { ws } = openWorkspace(root);
    const tx = beginTransaction(ws, { name: 'outer' });
    expect(() => beginTransaction(ws, { name: 'inner' })).toThrow(/still open/);
    tx.commit();
    beginTransaction(ws, { name: 'next' }).commit();
  });

  it('works on a workspace opened without openWorkspace (the layer installs itself)', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const ws = openWorkspace(root).ws;
    const tx = beginTransaction(ws, { name: 'plain' });
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('b\n') }]));
    tx.rollback();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(transactionsOf(ws)).toBeDefined();
  });
});

describe('the caller picks what a failed verification does', () => {
  const setup = () => {
    const root = tempRoot();
    write(root, 'main.c', 'int main(void) { return 0; }\n');
    const { ws } = openWorkspace(root);
    const before = snapshotTree(root);
    return { root, ws, before };
  };
  const breakIt = (ws: Workspace) => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'main.c', bytes: text('int main(void) { return 0 }\n') }]));

  it('rollback: the files go back to the state before begin', async () => {
    const { root, ws, before } = setup();
    const tx = beginTransaction(ws, { name: 'edit', onFailure: 'rollback' });
    breakIt(ws);
    const result = await tx.verify(() => ({ ok: false, detail: 'main.c:1: expected ;' }));
    expect(result).toMatchObject({ ok: false, policy: 'rollback', state: 'rolled-back', detail: 'main.c:1: expected ;' });
    expect(snapshotTree(root)).toEqual(before);
  });

  it('keep: the partial work stays and the transaction ends', async () => {
    const { root, ws } = setup();
    const tx = beginTransaction(ws, { name: 'edit', onFailure: 'keep' });
    breakIt(ws);
    const result = await tx.verify(async () => false);
    expect(result).toMatchObject({ ok: false, policy: 'keep', state: 'kept' });
    expect(fs.readFileSync(path.join(root, 'main.c'), 'utf8')).toContain('return 0 }');
    expect(journalFiles(root)).toEqual([]);
  });

  it('fix-forward: the transaction stays open for a fix, and a later rollback still goes back to before begin', async () => {
    const { root, ws, before } = setup();
    const tx = beginTransaction(ws, { name: 'edit', onFailure: 'fix-forward' });
    breakIt(ws);
    const failed = await tx.verify(() => {
      throw new Error('build failed');
    });
    expect(failed).toMatchObject({ ok: false, policy: 'fix-forward', state: 'open', detail: 'build failed' });
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'main.c', bytes: text('int main(void) { return 1; }\n') }]));
    expect(await tx.verify(() => true)).toEqual({ ok: true, state: 'open' });
    tx.rollback();
    expect(snapshotTree(root)).toEqual(before);
  });

  it('the policy can be chosen per verification', async () => {
    const { root, ws, before } = setup();
    const tx = beginTransaction(ws, { name: 'edit', onFailure: 'keep' });
    breakIt(ws);
    await tx.verify(() => false, 'rollback');
    expect(tx.state).toBe('rolled-back');
    expect(snapshotTree(root)).toEqual(before);
  });
});

describe('a workspace-scope transaction undoes steps with unknown effects', () => {
  it('rolls back what a command did outside ws.commit: created, changed and deleted files', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    write(root, 'b.txt', 'b\n');
    write(root, '.gitignore', 'node_modules/\n');
    write(root, 'node_modules/dep/index.js', 'dep\n');
    const { ws } = openWorkspace(root);
    const before = snapshotTree(root);
    const tx = beginTransaction(ws, { name: 'run command', scope: 'workspace' });
    execFileSync('sh', ['-c', 'echo changed > a.txt; rm b.txt; mkdir -p gen && echo x > gen/out.txt'], { cwd: root });
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: text('then edited\n') }]));
    tx.rollback();
    expect(snapshotTree(root)).toEqual(before);
  });
});
