import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { defaultConfig } from '../../src/config/config.js';
import { openProject } from '../../src/host/project.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { RootLock, processStartOf } from '../../src/workspace/lock.js';
import { EditwardenError } from '../../src/errors.js';
import { runFaultTrials } from './fixtures/fault-trials.mjs';
import { snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';
import { bundledTxChild } from './fixtures/tx-child-run.js';

const CHILD = await bundledTxChild();

/** Spawns the child and resolves with its stdout once `until` appears (or it exits). */
function child(args: string[]): { proc: ReturnType<typeof spawn>; output: (until: string) => Promise<string>; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: Array<{ until: string; resolve: (s: string) => void; reject: (e: Error) => void }> = [];
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.stdout?.on('data', (d) => {
    out += d;
    for (const w of waiters.splice(0)) out.includes(w.until) ? w.resolve(out) : waiters.push(w);
  });
  proc.stderr?.on('data', (d) => (err += d));
  void exited.then(() => {
    for (const w of waiters.splice(0)) out.includes(w.until) ? w.resolve(out) : w.reject(new Error(`child exited before "${w.until}": ${out}${err}`));
  });
  return {
    proc,
    exited,
    output: (until) => (out.includes(until) ? Promise.resolve(out) : new Promise((resolve, reject) => waiters.push({ until, resolve, reject }))),
  };
}

describe('a process killed with SIGKILL mid-transaction is rolled back by the next open', () => {
  it('fault injection: after each random kill the 5 files are, as a set, one whole generation (20 trials)', async () => {
    const stats = await runFaultTrials({ trials: 20, openWorkspace: (root) => openWorkspace(root), child: CHILD });
    expect(stats.failures).toEqual([]);
    expect(stats.trials).toBe(20);
    // Kills land inside transactions nearly always (the child does little else); at least one must have needed a rollback.
    expect(stats.recoveredMidTransaction).toBeGreaterThan(0);
    // Twenty Node processes, one after another: a few seconds alone, over a minute on a loaded machine (seen with
    // two CPU-bound processes beside the suite). Nothing here waits on a clock but the kill; this is only room.
  }, 240_000);

  it('rolls back a half-done transaction, says so, keeps the interrupted state as a checkpoint, and breaks the dead lock', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'original a\n');
    write(root, 'b.txt', 'original b\n');
    const before = snapshotTree(root);
    const c = child(['die-mid-tx', root]);
    await c.output('written');
    await c.exited;
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toContain('doomed');
    expect(fs.existsSync(path.join(root, '.editwarden/lock'))).toBe(true);

    const { recovered, ws } = openWorkspace(root, { lock: { timeoutMs: 2_000 } });
    expect(snapshotTree(root)).toEqual(before);
    expect(recovered).toHaveLength(1);
    const notice = recovered[0]!;
    expect(notice.name).toBe('doomed');
    expect(notice.message).toMatch(/Rolled back the unfinished transaction "doomed"/);
    expect(notice.restored).toEqual(['a.txt', 'b.txt']);
    expect(notice.removed).toEqual(['made/by/doomed.txt']);
    // The interrupted state can itself be restored (and undone again).
    const { transactions } = { transactions: openWorkspace(root).transactions };
    transactions.checkpoints.restore(notice.safety as string);
    expect(fs.readFileSync(path.join(root, 'made/by/doomed.txt'), 'utf8')).toBe('new\n');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    // A second open finds nothing more to do, and writes work again (the dead process's lock was broken).
    expect(openWorkspace(root).recovered).toEqual([]);
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('after recovery\n') }]));
  });
});

describe('a recovery is an undo step, and an event', () => {
  it('the project every route opens logs the recovery; `undo` gives back the interrupted state it overwrote', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'original a\n');
    write(root, 'b.txt', 'original b\n');
    const c = child(['die-mid-tx', root]);
    await c.output('written');
    await c.exited;
    const interrupted = fs.readFileSync(path.join(root, 'a.txt'), 'utf8');
    const opened = openProject(root, defaultConfig());
    expect(opened.recovered.map((n) => n.name)).toEqual(['doomed']);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('original a\n');
    const events = fs
      .readFileSync(path.join(root, '.editwarden/events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.action === 'recovery')).toMatchObject({ kind: 'undo', written: ['a.txt', 'b.txt'], removed: ['made/by/doomed.txt'], step: opened.recovered[0]?.safety });
    const undone = new UndoHistory(opened.transactions.checkpoints).undo();
    expect(undone.change?.label).toContain('recovery of');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(interrupted);
    expect(fs.readFileSync(path.join(root, 'made/by/doomed.txt'), 'utf8')).toBe('new\n');
  });
});

describe('a workspace opened before the crash recovers when it next writes', () => {
  it('rolls back the dead transaction under the lock before its own write, and keeps the notice', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'original a\n');
    write(root, 'b.txt', 'original b\n');
    const { ws, transactions } = openWorkspace(root);
    const c = child(['die-mid-tx', root]);
    await c.exited;
    ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'c.txt', bytes: Buffer.from('mine\n') }]));
    expect(transactions.recovered.map((n) => n.name)).toEqual(['doomed']);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('original a\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('original b\n');
    expect(fs.existsSync(path.join(root, 'made'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('mine\n');
  });
});

describe('one writer per root', () => {
  it('a second process waits for the lock, then fails with E_LOCKED naming the holder; with a longer wait it goes after the first', async () => {
    const root = tempRoot();
    const holder = child(['hold-lock', root]);
    await holder.output('locked');
    const holderPid = holder.proc.pid as number;

    // Reading commands are not blocked by a live transaction: its journal record has a live owner.
    expect(openWorkspace(root, { lock: { timeoutMs: 200 } }).recovered).toEqual([]);

    const impatient = spawnSync(process.execPath, [CHILD, 'try-lock', root, '300'], { encoding: 'utf8' });
    const refused = JSON.parse(impatient.stdout.trim().split('\n').at(-1) as string) as { ok: boolean; code: string; message: string };
    expect(refused).toMatchObject({ ok: false, code: 'E_LOCKED' });
    expect(refused.message).toContain(`process ${holderPid}`);

    const patient = child(['try-lock', root, '20000']);
    // The holder lets go once the patient one is waiting for the lock.
    await patient.output('waiting');
    holder.proc.stdin?.end();
    const out = await patient.output('{');
    expect(JSON.parse(out.trim().split('\n').at(-1) as string)).toEqual({ ok: true });
    const held = await holder.output('released');
    expect(held).toContain('released');
    // The patient one wrote last: the writes never interleaved.
    expect(fs.readFileSync(path.join(root, 'held.txt'), 'utf8')).toMatch(/^second /);
  });

  it('the same process waiting on its own second lock object times out with a clear error', () => {
    const dir = path.join(tempRoot(), '.editwarden');
    const a = new RootLock(dir);
    const b = new RootLock(dir, { timeoutMs: 100 });
    a.acquire();
    try {
      expect(() => b.acquire()).toThrow(EditwardenError);
    } finally {
      a.release();
    }
    b.acquire();
    b.release();
    expect(fs.existsSync(path.join(dir, 'lock'))).toBe(false);
  });

  it('breaks the lock of a dead process', () => {
    const dir = path.join(tempRoot(), '.editwarden');
    fs.mkdirSync(dir);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const pid = Number(dead.stdout);
    fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid, processStart: null, host: os.hostname(), token: 'dead', acquiredAt: '', command: 'x' }));
    const lock = new RootLock(dir, { timeoutMs: 200 });
    lock.acquire();
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('breaks a lock whose pid now belongs to a younger process (pid reuse)', () => {
    const dir = path.join(tempRoot(), '.editwarden');
    fs.mkdirSync(dir);
    const start = processStartOf(process.pid);
    expect(start).not.toBeNull();
    fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: process.pid, processStart: (start as number) - 1, host: os.hostname(), token: 'old', acquiredAt: '', command: 'x' }));
    const lock = new RootLock(dir, { timeoutMs: 200 });
    lock.acquire();
    lock.release();
  });

  it('does not break the lock of a live process', () => {
    const dir = path.join(tempRoot(), '.editwarden');
    fs.mkdirSync(dir);
    const owner = { pid: process.pid, processStart: processStartOf(process.pid), host: os.hostname(), token: 'live', acquiredAt: '', command: 'x' };
    fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify(owner));
    expect(() => new RootLock(dir, { timeoutMs: 150 }).acquire()).toThrow(/locked by process/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8')).token).toBe('live');
  });
});
