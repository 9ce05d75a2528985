// checkpoints.durability: deferred — what a long-lived server may leave for after its answer, and what it never may.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { hasDeferred, setDurableObserver, settleDurable, takeDurabilityFailure, type DurableEvent } from '../../src/workspace/durable.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const roots: string[] = [];

function root(): string {
  const r = tempRoot('ew-deferred-');
  roots.push(r);
  return r;
}

afterEach(() => {
  setDurableObserver(null);
  settleDurable();
  takeDurabilityFailure();
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function traced(work: () => void): DurableEvent[] {
  const events: DurableEvent[] = [];
  setDurableObserver((e) => events.push(e));
  try {
    work();
  } finally {
    setDurableObserver(null);
  }
  return events;
}

const fsyncs = (events: DurableEvent[]): string[] => events.flatMap((e) => (e.op === 'fsync' ? [e.path] : []));
const deferred = (events: DurableEvent[]): string[] => events.flatMap((e) => (e.op === 'defer' ? [...e.paths] : []));

function deferredWorkspace(r: string) {
  const opened = openWorkspace(r);
  opened.transactions.durability = 'deferred';
  return opened;
}

describe('a lone one-file write in deferred durability', () => {
  it('fsyncs only its temp file before the rename; the checkpoint and the folder wait for settleDurable, which makes them durable', () => {
    const r = root();
    write(r, 'a.txt', 'one\n');
    const { ws, transactions } = deferredWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }])));
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('two\n');
    const manifest = path.join(r, '.editwarden/checkpoints/manifests/files', `${transactions.lastCheckpoint}.json`);
    const rename = events.findIndex((e) => e.op === 'rename' && e.to === path.join(r, 'a.txt'));
    // Before the rename: the temp file, and nothing else — "old or new" rests on it alone.
    expect(fsyncs(events.slice(0, rename))).toEqual([`${path.join(r, 'a.txt')} (temp)`]);
    expect(fsyncs(events.slice(rename))).toEqual([]);
    expect(deferred(events)).toEqual(expect.arrayContaining([manifest, path.dirname(manifest), r]));
    expect(hasDeferred()).toBe(true);

    const settled = traced(() => settleDurable());
    expect(fsyncs(settled)).toEqual(expect.arrayContaining([manifest, path.dirname(manifest), r]));
    expect(hasDeferred()).toBe(false);
    expect(takeDurabilityFailure()).toBeNull();
    // The step is whole: undo takes the write back.
    transactions.checkpoints.restore(transactions.lastCheckpoint as string, { cause: 'undo', label: 'undo' });
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('a lone delete: the checkpoint and the folder of the unlink are deferred, nothing is fsynced before the unlink', () => {
    const r = root();
    write(r, 'gone.txt', 'bye\n');
    const { ws } = deferredWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: 'gone.txt' }])));
    expect(fs.existsSync(path.join(r, 'gone.txt'))).toBe(false);
    const unlink = events.findIndex((e) => e.op === 'unlink');
    expect(fsyncs(events.slice(0, unlink))).toEqual([]);
    expect(deferred(events)).toContain(r);
    expect(fsyncs(traced(() => settleDurable()))).toContain(r);
  });

  it('strict (the default of a layer): nothing is deferred', () => {
    const r = root();
    write(r, 'a.txt', 'one\n');
    const { ws } = openWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }])));
    expect(deferred(events)).toEqual([]);
    expect(hasDeferred()).toBe(false);
  });
});

describe('what deferred durability never defers', () => {
  it('a two-file batch: the journal record and the checkpoint are durable before the first rename, as in strict', () => {
    const r = root();
    write(r, 'a.txt', 'a\n');
    write(r, 'b.txt', 'b\n');
    const { ws } = deferredWorkspace(r);
    const events = traced(() =>
      ws.transact((tx) =>
        ws.commit(tx, [
          { kind: 'write', path: 'a.txt', bytes: Buffer.from('A\n') },
          { kind: 'write', path: 'b.txt', bytes: Buffer.from('B\n') },
        ]),
      ),
    );
    expect(deferred(events)).toEqual([]);
    const group = events.find((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group' && e.paths.length > 0);
    const firstRename = events.findIndex((e) => e.op === 'rename' && e.to.startsWith(r) && !e.to.includes('/.editwarden/'));
    for (const p of group?.paths ?? []) expect(events.findIndex((e) => e.op === 'fsync' && e.path === p)).toBeLessThan(firstRename);
    expect(group?.paths.some((p) => p.includes('/.editwarden/journal/'))).toBe(true);
  });

  it('a write into a folder it creates (journaled) is not deferred either', () => {
    const r = root();
    const { ws } = deferredWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'new/dir/a.txt', bytes: Buffer.from('x\n') }])));
    expect(fs.readFileSync(path.join(r, 'new/dir/a.txt'), 'utf8')).toBe('x\n');
    expect(deferred(events)).toEqual([]);
  });
});

describe('settleDurable', () => {
  it('keeps a failed fsync (and the paths it covered) for the next answer, once; a path gone meanwhile is no failure', () => {
    const r = root();
    write(r, 'a.txt', 'one\n');
    write(r, 'b.txt', 'one\n');
    const { ws, transactions } = deferredWorkspace(r);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }]));
    const manifest = path.join(r, '.editwarden/checkpoints/manifests/files', `${transactions.lastCheckpoint}.json`);
    // The observer sees each fsync as it completes: throwing there stands for the disk's error on that path.
    setDurableObserver((e) => {
      if (e.op === 'fsync' && e.path === manifest) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    settleDurable();
    setDurableObserver(null);
    const failure = takeDurabilityFailure();
    expect(failure?.paths).toEqual([manifest]);
    expect(failure?.error.message).toMatch(/EIO/);
    expect(takeDurabilityFailure()).toBeNull();

    // A checkpoint pruned before the settle: nothing left to keep, nothing failed.
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'b.txt', bytes: Buffer.from('two\n') }]));
    const second = path.join(r, '.editwarden/checkpoints/manifests/files', `${transactions.lastCheckpoint}.json`);
    fs.rmSync(second);
    settleDurable();
    expect(takeDurabilityFailure()).toBeNull();
    expect(hasDeferred()).toBe(false);
  });
});
