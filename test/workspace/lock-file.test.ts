/**
 * The root lock's file always names its holder: the owner note is written
 * before the lock appears (link of a pending file), and rewritten in one
 * padded write, so a holder killed at any point leaves either no lock or one
 * the next command proves dead and breaks at once — never an empty or torn
 * one that can only be waited out. bench/fault.mjs's one-file trials kill
 * real writers at random moments; these pin the pieces.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { pathToFileURL } from 'node:url';
import { LOCK_FILE, readLockOwner, RootLock } from '../../src/workspace/lock.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';
import { bundledTxChild } from './fixtures/tx-child-run.js';

const TX_CHILD = await bundledTxChild();

function stateDir(): string {
  const root = tempDir('ew-lock-file-');
  const dir = path.join(root, '.editwarden');
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('the lock file names its holder at every moment', () => {
  it('a held lock is readable at once, and a shorter note rewritten over a longer one stays readable', () => {
    const dir = stateDir();
    const lock = new RootLock(dir);
    lock.acquire();
    try {
      const first = readLockOwner(path.join(dir, LOCK_FILE));
      expect(first).not.toBe('unreadable');
      lock.note(['a/rather/long/path/that/makes/the/note/longer.txt', 'b.txt']);
      lock.note([]);
      const owner = readLockOwner(path.join(dir, LOCK_FILE));
      expect(owner).not.toBe('unreadable');
      expect(owner !== null && owner !== 'unreadable' ? owner.writing : null).toEqual([]);
      // No pending file is left once the lock is taken.
      expect(fs.readdirSync(dir).filter((n) => n.endsWith('.pending'))).toEqual([]);
    } finally {
      lock.release();
    }
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('a pending note of a dead process is swept; one of a live process is kept', () => {
    const dir = stateDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const deadPending = path.join(dir, `${LOCK_FILE}.${deadPid}.0123456789abcdef.pending`);
    const livePending = path.join(dir, `${LOCK_FILE}.${process.pid}.fedcba9876543210.pending`);
    fs.writeFileSync(deadPending, '{}');
    fs.writeFileSync(livePending, '{}');
    new RootLock(dir).sweepPending();
    expect(fs.existsSync(deadPending)).toBe(false);
    expect(fs.existsSync(livePending)).toBe(true);
  });

  it('writers SIGKILLed at random moments never leave a lock the next open cannot break at once (real processes, 20 trials)', async () => {
    const root = tempDir('ew-lock-kill-');
    fs.writeFileSync(path.join(root, 'f0.txt'), 'generation 0\n');
    let leftLocks = 0;
    for (let trial = 0; trial < 20; trial++) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [TX_CHILD, 'loop-one', root, String(trial * 1000)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let timer: NodeJS.Timeout | undefined;
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (timer === undefined && out.includes('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 40));
        });
        child.on('error', reject);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      // What any next command does first: open the root (recovery breaks a dead holder's lock).
      openWorkspace(root);
      if (fs.existsSync(path.join(root, '.editwarden', LOCK_FILE))) leftLocks++;
      // A writer killed before its first commit made no state folder (opening a root does not make one): nothing to leave.
      const state = path.join(root, '.editwarden');
      if (fs.existsSync(state)) expect(fs.readdirSync(state).filter((n) => n.endsWith('.pending'))).toEqual([]);
    }
    expect(leftLocks).toBe(0);
  }, 120_000);
});

describe('a long-lived holder keeps the lock file between holds (keepSpare)', () => {
  const pending = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.pending'));

  it('takes the lock again without creating a file: the spare is rewritten and linked, and names each hold', () => {
    const dir = stateDir();
    const lock = new RootLock(dir, { keepSpare: true });
    const file = path.join(dir, LOCK_FILE);
    const tokens: string[] = [];
    lock.with(() => {
      const owner = readLockOwner(file);
      if (owner === null || owner === 'unreadable') throw new Error('the lock names no holder');
      tokens.push(owner.token);
    });
    expect(fs.existsSync(file)).toBe(false);
    expect(pending(dir)).toHaveLength(1);
    const opens = vi.spyOn(fs, 'openSync');
    try {
      lock.with(() => {
        lock.note(['a/long/path/that/makes/the/note/longer.txt']);
        lock.note([]);
        const owner = readLockOwner(file);
        if (owner === null || owner === 'unreadable') throw new Error('the lock names no holder');
        tokens.push(owner.token);
        expect(owner.writing).toEqual([]);
      });
      // One read of the lock file at release (its owner checked); no file created for the hold.
      expect(opens.mock.calls.filter((call) => call[1] === 'wx')).toEqual([]);
    } finally {
      opens.mockRestore();
    }
    expect(tokens[0]).not.toBe(tokens[1]);
    expect(fs.existsSync(file)).toBe(false);
    // The next hold's note is written over the longer one the last hold left: whole and readable.
    lock.with(() => {
      const owner = readLockOwner(file);
      if (owner === null || owner === 'unreadable') throw new Error('the lock names no holder');
      expect(owner.token).not.toBe(tokens[1]);
      expect(owner.writing).toBeUndefined();
    });
    lock.dropSpare();
    expect(pending(dir)).toEqual([]);
  });

  it('excludes another holder while held, and lets it in once released', () => {
    const dir = stateDir();
    const lock = new RootLock(dir, { keepSpare: true, timeoutMs: 50, pollMs: 10 });
    const other = new RootLock(dir, { timeoutMs: 50, pollMs: 10 });
    lock.with(() => {});
    lock.with(() => expect(() => other.acquire()).toThrow(expect.objectContaining({ code: 'E_LOCKED' })));
    other.with(() => expect(() => lock.acquire()).toThrow());
    lock.with(() => expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true));
    lock.dropSpare();
  });

  it('makes a new spare when its name was removed between holds', () => {
    const dir = stateDir();
    const lock = new RootLock(dir, { keepSpare: true, timeoutMs: 50 });
    lock.with(() => {});
    for (const name of pending(dir)) fs.unlinkSync(path.join(dir, name));
    lock.with(() => expect(readLockOwner(path.join(dir, LOCK_FILE))).not.toBe('unreadable'));
    expect(pending(dir)).toHaveLength(1);
    lock.dropSpare();
  });

  it('leaves no spare behind when the process exits (real process)', () => {
    const dir = stateDir();
    const lockModule = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/workspace/lock.js')).href;
    const script = `const { RootLock } = await import(${JSON.stringify(lockModule)}); const lock = new RootLock(${JSON.stringify(dir)}, { keepSpare: true }); lock.with(() => {}); lock.with(() => {}); process.stdout.write(String(require('node:fs').readdirSync(${JSON.stringify(dir)}).filter((n) => n.endsWith('.pending')).length));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script.replace("require('node:fs')", '(await import("node:fs")).default')], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('1');
    expect(pending(dir)).toEqual([]);
  });
});
