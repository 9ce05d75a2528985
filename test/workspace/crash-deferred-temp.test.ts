// A long-lived server's replace whose temp file is fsynced after the answer (deferred durability on a file system
// that orders a replacing rename after the data; docs/checkpoints.md): a process killed at each step leaves the old
// file or the new one, whole, nothing behind, and undo right — as the strict protocol does (write-protocol.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';
import { bundledTxChild, runUntilKilled } from './fixtures/tx-child-run.js';

const CHILD = await bundledTxChild();

describe('killed at each step of a deferred replace: old or new, nothing left behind, undo right', () => {
  // In a fresh child: the manifest's temp (temp #1) and rename (rename #1), the checkpoint, the checkpoint's paths
  // deferred (defer #1), a.txt's temp (temp #2, never fsynced before its rename), the rename (rename #2), the file's
  // descriptor deferred (defer #2), the folder deferred (defer #3); after the answer, the settle's fsync of the file (fsync #1).
  const steps: Array<{ op: string; n: number; landed: boolean; temp: boolean; locked: boolean }> = [
    { op: 'temp', n: 2, landed: false, temp: true, locked: true },
    { op: 'rename', n: 2, landed: true, temp: false, locked: true },
    { op: 'defer', n: 2, landed: true, temp: false, locked: true },
    { op: 'fsync', n: 1, landed: true, temp: false, locked: false },
  ];
  for (const step of steps) {
    it(`killed after ${step.op} #${step.n}: ${step.landed ? 'new' : 'old'} content`, async () => {
      const r = tempRoot('ew-crash-deferred-');
      write(r, 'a.txt', 'zero\n');
      const first = openWorkspace(r).ws;
      first.transact((tx) => first.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('one\n') }]));

      const out = await runUntilKilled(CHILD, ['die-at-deferred', r, step.op, String(step.n), 'a.txt', 'two\n']);
      expect(out).toContain(`dying after {"op":"${step.op}"`);
      // The file's own durability is what is deferred, and what the settle does first.
      if (step.op === 'defer') expect(out).toContain(`"paths":[${JSON.stringify(path.join(r, 'a.txt'))}]`);
      if (step.op === 'fsync') expect(out).toContain(`"path":${JSON.stringify(path.join(r, 'a.txt'))}}`);
      // The settle runs after the answer, outside the lock.
      expect(out.includes('answered')).toBe(!step.locked);
      expect(fs.existsSync(path.join(r, '.editwarden/lock'))).toBe(step.locked);
      expect(fs.readdirSync(r).some((n) => n.startsWith('.ew-tmp-'))).toBe(step.temp);

      const { recovered, transactions } = openWorkspace(r, { lock: { timeoutMs: 2_000 } });
      expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe(step.landed ? 'two\n' : 'one\n');
      expect(fs.readdirSync(r).filter((n) => n.startsWith('.ew-tmp-'))).toEqual([]);
      expect(fs.existsSync(path.join(r, '.editwarden/lock'))).toBe(false);
      expect(recovered).toHaveLength(step.locked ? 1 : 0);

      new UndoHistory(transactions.checkpoints).undo();
      expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe(step.landed ? 'one\n' : 'zero\n');
    }, 30_000);
  }
});
