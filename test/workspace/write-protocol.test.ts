import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { setDurableObserver, type DurableEvent } from '../../src/workspace/durable.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';
import { bundledTxChild, runUntilKilled } from './fixtures/tx-child-run.js';

const CHILD = await bundledTxChild();
const roots: string[] = [];

function root(): string {
  const r = tempRoot('ew-protocol-');
  roots.push(r);
  return r;
}

afterEach(() => {
  setDurableObserver(null);
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

const isState = (p: string): boolean => p.includes('/.editwarden/');

/** The protocol steps of `work`, as the observer saw them; the temp files and renames of editwarden's own state files (a manifest's) are left out. */
function traced(work: () => void): DurableEvent[] {
  const events: DurableEvent[] = [];
  setDurableObserver((e) => events.push(e));
  try {
    work();
  } finally {
    setDurableObserver(null);
  }
  return events.filter((e) => !((e.op === 'temp' && isState(e.path)) || (e.op === 'rename' && isState(e.to))));
}

const index = (events: DurableEvent[], pred: (e: DurableEvent) => boolean): number => events.findIndex(pred);

describe('a one-file write: its checkpoint is on disk before the rename, in one fsync group with the temp file, and it needs no journal', () => {
  it('orders the steps checkpoint → temp → one group (checkpoint + temp) → rename → folder fsync, with no journal record', () => {
    const r = root();
    write(r, 'a.txt', 'one\n');
    const { ws, transactions } = openWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }])));
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('two\n');
    expect(events.filter((e) => e.op === 'journal')).toEqual([]);
    const cp = events.find((e): e is Extract<DurableEvent, { op: 'checkpoint' }> => e.op === 'checkpoint');
    expect(cp?.id).toBe(transactions.lastCheckpoint);
    const groups = events.filter((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group');
    expect(groups).toHaveLength(1);
    const group = groups[0]!;
    const manifest = path.join(r, '.editwarden/checkpoints/manifests/files', `${cp?.id}.json`);
    // The manifest and the folder its rename changed: both durable before the project file's rename.
    expect(group.paths).toEqual(expect.arrayContaining([manifest, path.dirname(manifest)]));
    const rename = index(events, (e) => e.op === 'rename' && e.to === path.join(r, 'a.txt'));
    expect(index(events, (e) => e.op === 'checkpoint')).toBeLessThan(index(events, (e) => e.op === 'temp'));
    expect(index(events, (e) => e.op === 'temp')).toBeLessThan(index(events, (e) => e.op === 'group'));
    for (const p of [...group.paths, `${path.join(r, 'a.txt')} (temp)`]) {
      const at = index(events, (e) => e.op === 'fsync' && e.path === p);
      expect(at, `fsync of ${p}`).toBeGreaterThan(-1);
      expect(at, `fsync of ${p} before the rename`).toBeLessThan(rename);
    }
    // After the rename: exactly one fsync, of the folder.
    expect(events.slice(rename + 1)).toEqual([{ op: 'fsync', path: r }]);
    // Two disk round trips: everything before the rename is one group.
    expect(events.filter((e) => e.op === 'fsync' && !group.paths.includes(e.path)).map((e) => (e as { path: string }).path)).toEqual([`${path.join(r, 'a.txt')} (temp)`, r]);
  });

  it('with EDITWARDEN_PARALLEL_FSYNC=1, in a process that writes again and again, the group runs on helper threads while this thread fsyncs the temp file', async () => {
    const r = root();
    process.env.EDITWARDEN_PARALLEL_FSYNC = '1';
    onTestFinished(() => {
      delete process.env.EDITWARDEN_PARALLEL_FSYNC;
    });
    write(r, 'a.txt', '0\n');
    const { ws } = openWorkspace(r);
    // The helpers start on a process's second group and are used once their threads are up: write until a group
    // runs on them (how long the threads take to come up is the machine's; the bound is only room).
    const parallelGroup = (events: DurableEvent[]) => events.find((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group' && e.parallel);
    let events: DurableEvent[] = [];
    let i = 0;
    while (!parallelGroup(events)) {
      if (++i > 600) throw new Error('no group ran on the helper threads in 600 writes');
      await new Promise((resolve) => setTimeout(resolve, 50));
      events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from(`${i}\n`) }])));
    }
    const group = parallelGroup(events);
    const rename = index(events, (e) => e.op === 'rename');
    for (const p of group?.paths ?? []) expect(index(events, (e) => e.op === 'fsync' && e.path === p)).toBeLessThan(rename);
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe(`${i}\n`);
  });

  it('a blob of a larger file joins the same group', () => {
    const r = root();
    write(r, 'big.txt', 'x'.repeat(40_000));
    const { ws } = openWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'big.txt', bytes: Buffer.from('y'.repeat(40_000)) }])));
    const group = events.find((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group');
    const blobs = group?.paths.filter((p) => p.includes('/checkpoints/blobs/')) ?? [];
    expect(blobs).toHaveLength(2); // the blob and its fan-out folder
    expect(index(events, (e) => e.op === 'fsync' && e.path === blobs[0])).toBeLessThan(index(events, (e) => e.op === 'rename'));
  });

  it('a delete: the checkpoint group is fsynced before the unlink', () => {
    const r = root();
    write(r, 'gone.txt', 'bye\n');
    const { ws } = openWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: 'gone.txt' }])));
    expect(fs.existsSync(path.join(r, 'gone.txt'))).toBe(false);
    const group = events.find((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group');
    expect(group?.paths.length).toBeGreaterThanOrEqual(2);
    const unlink = index(events, (e) => e.op === 'unlink');
    for (const p of group?.paths ?? []) expect(index(events, (e) => e.op === 'fsync' && e.path === p)).toBeLessThan(unlink);
    expect(events.filter((e) => e.op === 'journal')).toEqual([]);
  });
});

describe('a multi-file batch, or a write that creates a folder, is journaled; the record joins the first group', () => {
  it('two files: the journal record and the checkpoint are fsynced with the first temp file; the record is removed after the last write', () => {
    const r = root();
    write(r, 'a.txt', 'a\n');
    write(r, 'b.txt', 'b\n');
    const { ws } = openWorkspace(r);
    const events = traced(() =>
      ws.transact((tx) =>
        ws.commit(tx, [
          { kind: 'write', path: 'a.txt', bytes: Buffer.from('A\n') },
          { kind: 'write', path: 'b.txt', bytes: Buffer.from('B\n') },
        ]),
      ),
    );
    const journal = events.filter((e) => e.op === 'journal');
    expect(journal.map((e) => (e as { action: string }).action)).toEqual(['write', 'close']);
    const tx = (journal[0] as { tx: string }).tx;
    const group = events.find((e): e is Extract<DurableEvent, { op: 'group' }> => e.op === 'group' && e.paths.length > 0);
    expect(group?.paths).toEqual(expect.arrayContaining([path.join(r, '.editwarden/journal', `${tx}.json`)]));
    const firstRename = index(events, (e) => e.op === 'rename');
    for (const p of group?.paths ?? []) expect(index(events, (e) => e.op === 'fsync' && e.path === p)).toBeLessThan(firstRename);
    expect(index(events, (e) => e.op === 'journal' && e.action === 'close')).toBeGreaterThan(events.map((e) => e.op).lastIndexOf('rename'));
  });

  it('one file in a folder that does not exist yet', () => {
    const r = root();
    const { ws } = openWorkspace(r);
    const events = traced(() => ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'new/dir/c.txt', bytes: Buffer.from('c\n') }])));
    expect(events.filter((e) => e.op === 'journal').map((e) => (e as { action: string }).action)).toEqual(['write', 'close']);
  });
});

/** Runs the child that writes `text` to a.txt and SIGKILLs itself at the n-th step of kind `op`; resolves with its output. */
function dieAt(r: string, op: string, n: number, text: string): Promise<string> {
  return runUntilKilled(CHILD, ['die-at', r, op, String(n), 'a.txt', text]);
}

describe('a process killed at each step of a one-file write: the file is old or new, nothing is left behind, and undo is right', () => {
  // The child is a fresh process: no helper threads yet, so its steps are, in order: the manifest's temp (temp #1) and rename (rename #1),
  // checkpoint, a.txt's temp (temp #2), the group, fsyncs of the temp (#1), the manifest (#2) and its folder (#3), the rename (#2), the folder's fsync (#4).
  const steps: Array<{ op: string; n: number; landed: boolean; temp: boolean }> = [
    { op: 'temp', n: 1, landed: false, temp: false },
    { op: 'checkpoint', n: 1, landed: false, temp: false },
    { op: 'temp', n: 2, landed: false, temp: true },
    { op: 'group', n: 1, landed: false, temp: true },
    { op: 'fsync', n: 2, landed: false, temp: true },
    { op: 'rename', n: 2, landed: true, temp: false },
    { op: 'fsync', n: 4, landed: true, temp: false },
  ];
  for (const step of steps) {
    it(`killed after ${step.op} #${step.n}: ${step.landed ? 'new' : 'old'} content; undo takes back exactly the last change that landed`, async () => {
      const r = root();
      write(r, 'a.txt', 'zero\n');
      (() => {
        const w = openWorkspace(r).ws;
        w.transact((tx) => w.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('one\n') }]));
      })();
      const out = await dieAt(r, step.op, step.n, 'two\n');
      expect(out).toContain(`dying after {"op":"${step.op}"`);
      expect(fs.existsSync(path.join(r, '.editwarden/lock'))).toBe(true);
      expect(fs.readdirSync(r).some((n) => n.startsWith('.ew-tmp-'))).toBe(step.temp);

      const { recovered, transactions } = openWorkspace(r, { lock: { timeoutMs: 2_000 } });
      const text = fs.readFileSync(path.join(r, 'a.txt'), 'utf8');
      expect(text).toBe(step.landed ? 'two\n' : 'one\n');
      expect(fs.readdirSync(r).filter((n) => n.startsWith('.ew-tmp-'))).toEqual([]);
      expect(fs.existsSync(path.join(r, '.editwarden/lock'))).toBe(false);
      const journal = path.join(r, '.editwarden/journal');
      expect(fs.existsSync(journal) ? fs.readdirSync(journal).filter((n) => n.endsWith('.json')) : []).toEqual([]);
      expect(recovered).toHaveLength(1);
      expect(recovered[0]?.message).toMatch(/died while writing a\.txt/);
      expect(recovered[0]?.removed).toHaveLength(step.temp ? 1 : 0);

      const undo = new UndoHistory(transactions.checkpoints).undo();
      expect(undo.change).not.toBeNull();
      expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe(step.landed ? 'one\n' : 'zero\n');
    }, 30_000);
  }
});

describe("a dead writer's lock note is untrusted data", () => {
  it('a planted lock naming ../ or .git paths makes the next command delete nothing there; the lock is broken', () => {
    const r = root();
    const outside = root();
    write(outside, '.ew-tmp-x.0123456789ab', 'not ours to delete\n');
    write(r, '.git/.ew-tmp-config.0123456789ab', 'git internals\n');
    write(r, 'a.txt', 'a\n');
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    fs.mkdirSync(path.join(r, '.editwarden'), { recursive: true });
    const writing = [`../${path.basename(outside)}/x`, '.git/config', '/etc/passwd'];
    fs.writeFileSync(path.join(r, '.editwarden/lock'), JSON.stringify({ pid: dead, processStart: null, host: os.hostname(), token: 'planted', acquiredAt: '', command: 'x', writing }));
    const { recovered, ws } = openWorkspace(r, { lock: { timeoutMs: 2_000 } });
    expect(fs.readFileSync(path.join(outside, '.ew-tmp-x.0123456789ab'), 'utf8')).toBe('not ours to delete\n');
    expect(fs.existsSync(path.join(r, '.git/.ew-tmp-config.0123456789ab'))).toBe(true);
    expect(recovered.flatMap((n) => n.removed)).toEqual([]);
    expect(fs.existsSync(path.join(r, '.editwarden/lock'))).toBe(false);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('b\n') }]));
  });
});

describe('a write killed while its temp file sits in a folder the transaction created: recovery removes the temp first, then the folders', () => {
  for (const step of [
    { op: 'group', n: 1 },
    { op: 'fsync', n: 2 },
  ]) {
    it(`killed after ${step.op} #${step.n} writing new/dir/f.txt: nothing of new/ is left`, async () => {
      const r = root();
      write(r, 'a.txt', 'kept\n');
      const out = await new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, [CHILD, 'die-at', r, step.op, String(step.n), 'new/dir/f.txt', 'doomed\n'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        p.stdout.on('data', (d) => (text += d));
        p.on('error', reject);
        p.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(text) : reject(new Error(`not killed: ${text}`))));
      });
      expect(out).toContain('dying after');
      // The planted state is the real one: the temp file is in the folder the dead transaction made.
      expect(fs.readdirSync(path.join(r, 'new', 'dir')).some((n) => n.startsWith('.ew-tmp-'))).toBe(true);
      const { recovered } = openWorkspace(r, { lock: { timeoutMs: 2_000 } });
      expect(recovered).toHaveLength(1);
      expect(fs.existsSync(path.join(r, 'new'))).toBe(false);
      expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('kept\n');
    });
  }
});
