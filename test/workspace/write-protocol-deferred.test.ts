// checkpoints.durability: deferred — what a long-lived server may leave for after its answer, and what it never may.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { hasDeferred, setDurableObserver, settleDurable, takeDurabilityFailure, type DurableEvent } from '../../src/workspace/durable.js';
import { setReplaceOrderProbe } from '../../src/workspace/replace-order.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const roots: string[] = [];

function root(): string {
  const r = tempRoot('ew-deferred-');
  roots.push(r);
  return r;
}

afterEach(() => {
  setReplaceOrderProbe(null);
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
    // A file system that does not order a replacing rename after the data (this one's answer is pinned below, whatever the machine's is).
    setReplaceOrderProbe(() => false);
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

describe('the temp file’s fsync after the answer, where the rename is ordered after the data (replace-order.ts)', () => {
  // This machine's own file systems decide for real elsewhere (replace-order.test.ts, test/mcp/durability.test.ts); here the kernel's answer is pinned.
  const openFds = (): number => fs.readdirSync('/proc/self/fd').length;

  it('a replace: nothing is fsynced before the rename; the settle fsyncs the written file through its descriptor, then closes it', () => {
    setReplaceOrderProbe(() => true);
    const r = root();
    write(r, 'a.txt', 'one\n');
    const { ws } = deferredWorkspace(r);
    const fds = openFds();
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }])));
    const target = path.join(r, 'a.txt');
    expect(fs.readFileSync(target, 'utf8')).toBe('two\n');
    const rename = events.findIndex((e) => e.op === 'rename' && e.to === target);
    expect(rename).toBeGreaterThan(0);
    expect(fsyncs(events)).toEqual([]);
    expect(deferred(events)).toContain(target);
    expect(openFds()).toBe(fds + 1);

    const settled = traced(() => settleDurable());
    // The data first, then what describes it.
    expect(fsyncs(settled)[0]).toBe(target);
    expect(fsyncs(settled)).toContain(r);
    expect(openFds()).toBe(fds);
    expect(takeDurabilityFailure()).toBeNull();
  });

  it('a new file keeps its temp file’s fsync before the rename (no replace: nothing orders its data)', () => {
    setReplaceOrderProbe(() => true);
    const r = root();
    write(r, 'old.txt', 'x\n');
    const { ws } = deferredWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'fresh.txt', bytes: Buffer.from('new\n') }])));
    const target = path.join(r, 'fresh.txt');
    const rename = events.findIndex((e) => e.op === 'rename' && e.to === target);
    expect(rename).toBeGreaterThan(0);
    expect(fsyncs(events.slice(0, rename))).toEqual([`${target} (temp)`]);
    expect(deferred(events)).not.toContain(target);
  });

  it('a file system that does not order the rename (the probe says no) and strict keep it before the rename', () => {
    const r = root();
    write(r, 'a.txt', 'one\n');
    const target = path.join(r, 'a.txt');
    setReplaceOrderProbe(() => false);
    const { ws } = deferredWorkspace(r);
    const no = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }])));
    expect(
      fsyncs(
        no.slice(
          0,
          no.findIndex((e) => e.op === 'rename' && e.to === target),
        ),
      ),
    ).toEqual([`${target} (temp)`]);
    settleDurable();

    setReplaceOrderProbe(() => true);
    const strict = openWorkspace(r).ws;
    const events = traced(() => strict.transact((tx) => strict.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('three\n') }])));
    const rename = events.findIndex((e) => e.op === 'rename' && e.to === target);
    expect(fsyncs(events.slice(0, rename))).toContain(`${target} (temp)`);
    expect(deferred(events)).toEqual([]);
  });

  it('a deferred fsync of the written file that fails is kept for the next answer, naming the file', () => {
    setReplaceOrderProbe(() => true);
    const r = root();
    write(r, 'a.txt', 'one\n');
    const { ws } = deferredWorkspace(r);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }]));
    const target = path.join(r, 'a.txt');
    const fds = openFds();
    setDurableObserver((e) => {
      if (e.op === 'fsync' && e.path === target) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    settleDurable();
    setDurableObserver(null);
    expect(takeDurabilityFailure()?.paths).toEqual([target]);
    // The descriptor is closed whatever the fsync said.
    expect(openFds()).toBe(fds - 1);
  });
});
