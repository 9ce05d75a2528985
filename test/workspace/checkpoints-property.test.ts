import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import { doesNotFit, snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';

/** One change a person, an agent or a command might make between checkpoint and restore. */
type Op =
  | { kind: 'write'; file: string; text: string }
  | { kind: 'delete'; file: string }
  | { kind: 'chmod'; file: string; mode: number }
  | { kind: 'mkdir'; dir: string }
  | { kind: 'rmdir'; dir: string }
  | { kind: 'symlink'; file: string; target: string };

const names = ['a', 'b', 'c', 'd/e', 'd/f', 'g/h/i', 'd', 'g'];
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), file: fc.constantFrom(...names), text: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('chmod' as const), file: fc.constantFrom(...names), mode: fc.constantFrom(0o600, 0o644, 0o755, 0o700) }),
  fc.record({ kind: fc.constant('mkdir' as const), dir: fc.constantFrom('d', 'g', 'g/h', 'x', 'x/y') }),
  fc.record({ kind: fc.constant('rmdir' as const), dir: fc.constantFrom('d', 'g', 'g/h', 'x', 'x/y') }),
  fc.record({ kind: fc.constant('symlink' as const), file: fc.constantFrom(...names), target: fc.constantFrom('a', 'd', 'd/e', 'missing') }),
);

/** Applies an op where it makes sense; ops that do not apply (delete of nothing) are skipped, as a person's would fail. */
function apply(root: string, o: Op): void {
  try {
    switch (o.kind) {
      case 'write': {
        const abs = path.join(root, o.file);
        if (fs.existsSync(abs) && fs.lstatSync(abs).isDirectory()) return;
        if (fs.existsSync(abs) && fs.lstatSync(abs).isSymbolicLink()) fs.rmSync(abs);
        write(root, o.file, o.text);
        return;
      }
      case 'delete': {
        const abs = path.join(root, o.file);
        if (fs.lstatSync(abs).isDirectory()) return;
        fs.rmSync(abs);
        return;
      }
      case 'chmod': {
        const abs = path.join(root, o.file);
        if (fs.lstatSync(abs).isFile()) fs.chmodSync(abs, o.mode);
        return;
      }
      case 'mkdir':
        fs.mkdirSync(path.join(root, o.dir), { recursive: true });
        return;
      case 'rmdir':
        fs.rmSync(path.join(root, o.dir), { recursive: true });
        return;
      case 'symlink': {
        const abs = path.join(root, o.file);
        fs.mkdirSync(path.dirname(abs), { recursive: true });
        if (fs.existsSync(abs) || isLink(abs)) {
          if (fs.lstatSync(abs).isDirectory()) return;
          fs.rmSync(abs);
        }
        fs.symlinkSync(o.target, abs);
        return;
      }
      default: {
        const never: never = o;
        throw new Error(String(never));
      }
    }
  } catch (error) {
    if (!doesNotFit(error)) throw error;
  }
}

function isLink(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

describe('restore is exact for any sequence of changes', () => {
  it('workspace checkpoint → random changes → restore gives back the same tree; restoring the safety checkpoint gives back the changed tree', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.array(op, { minLength: 1, maxLength: 12 }), (setup, changes) => {
        const root = tempRoot('ew-prop-');
        try {
          for (const o of setup) apply(root, o);
          const before = snapshotTree(root);
          const cps = new CheckpointService(openWorkspace(root).ws);
          const id = cps.create('p', 'property');
          for (const o of changes) apply(root, o);
          const changed = snapshotTree(root);
          const result = cps.restore(id);
          expect(snapshotTree(root)).toEqual(before);
          cps.restore(result.safety as string);
          expect(snapshotTree(root)).toEqual(changed);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('a transaction rollback is exact for any sequence of batches', () => {
  type Write = { kind: 'write'; path: string; text: string; mode?: number } | { kind: 'delete'; path: string };
  const files = ['a.txt', 'b.txt', 'n/c.txt', 'n/m/d.txt', 'z/e.txt'];
  const writeArb: fc.Arbitrary<Write> = fc.oneof(
    fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...files), text: fc.string({ maxLength: 30 }), mode: fc.constantFrom(0o644, 0o600, 0o755) }),
    fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...files) }),
  );

  it('begin → ws.commit batches → rollback leaves the tree as before begin', async () => {
    const { openWorkspace } = await import('../../src/workspace/open.js');
    const { beginTransaction } = await import('../../src/workspace/transaction.js');
    fc.assert(
      fc.property(fc.subarray(files), fc.array(fc.array(writeArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (existing, batches) => {
        const root = tempRoot('ew-prop-tx-');
        try {
          for (const f of existing) write(root, f, `original ${f}\n`, 0o640);
          const before = snapshotTree(root);
          const { ws } = openWorkspace(root);
          const tx = beginTransaction(ws, { name: 'prop' });
          for (const batch of batches) {
            ws.transact((tx) =>
              ws.commit(
                tx,
                batch.map((w) => (w.kind === 'write' ? { kind: 'write' as const, path: w.path, bytes: Buffer.from(w.text), mode: w.mode } : w)),
              ),
            );
          }
          tx.rollback();
          expect(snapshotTree(root)).toEqual(before);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});
