/**
 * The command index (command-index.ts) and its one-walk diff (index-diff.ts):
 * the diff a command's effects are charged and undone from is exactly the
 * full `diffManifest` of the index, whatever the command did — including a
 * same-size rewrite in the same timestamp tick — and the index is kept as the
 * next command's base instead of being dropped and re-read.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { CommandIndex } from '../../src/workspace/checkpoints/command-index.js';
import { diffIndex } from '../../src/workspace/checkpoints/index-diff.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const NAMES = ['a.txt', 'b.txt', 'src/c.ts', 'src/deep/d.ts', 'e.bin'];

type Op = { kind: 'write'; name: string; text: string } | { kind: 'delete'; name: string } | { kind: 'chmod'; name: string } | { kind: 'link'; name: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), name: fc.constantFrom(...NAMES, 'new.txt', 'src/new/n.ts'), text: fc.constantFrom('x\n', 'y\n', 'xy\n', '') }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('chmod' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('link' as const), name: fc.constantFrom('l1', 'src/l2') }),
);

function apply(root: string, o: Op): void {
  const abs = path.join(root, o.name);
  switch (o.kind) {
    case 'write':
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, o.text);
      return;
    case 'delete':
      fs.rmSync(abs, { force: true });
      return;
    case 'chmod':
      if (fs.existsSync(abs)) fs.chmodSync(abs, 0o700);
      return;
    case 'link':
      fs.rmSync(abs, { force: true });
      fs.symlinkSync('a.txt', abs);
      return;
    default: {
      const never: never = o;
      throw new Error(`unknown operation ${JSON.stringify(never)}`);
    }
  }
}

describe('the one-walk diff of a command index', () => {
  it('finds exactly what the full diff of the index finds, whatever a command did (same-size rewrites in the same tick included)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 0, maxLength: 6 }), (ops) => {
        const root = tempRoot();
        try {
          for (const n of NAMES) write(root, n, 'x\n');
          const { transactions } = openWorkspace(root);
          const cps = transactions.checkpoints;
          const index = new CommandIndex(cps).take('prop');
          for (const o of ops) apply(root, o);
          const rules = { only: 'checkpoint' as const, exclude: null };
          const fast = diffIndex(cps.ws.resolver, index, cps.blobs, rules, { patch: false });
          const full = cps.diff(index.id, { rules, patch: false });
          expect(fast).toEqual(full);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("the command index is kept as the next one's base", () => {
  it('after three commands exactly one index remains, and the second index read no file again (every blob reused)', () => {
    const root = tempRoot();
    for (let i = 0; i < 50; i++) write(root, `src/f${i}.ts`, `export const v${i} = ${i};\n`);
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const effects = new CommandEffects(cps);
    for (let i = 0; i < 3; i++) effects.after(effects.before(`call ${i}`));
    const indexes = cps.list().filter((c) => c.origin.kind === 'index');
    expect(indexes).toHaveLength(1);
    // Every file of the kept index is one blob of the store: nothing was copied twice or collected and re-stored.
    expect(cps.blobs.listAll().length).toBe(50);
  });

  it('a pointer edited to name another checkpoint never removes it', () => {
    const root = tempRoot();
    write(root, 'a.txt', 'a\n');
    const { transactions } = openWorkspace(root);
    const cps = transactions.checkpoints;
    const manual = cps.create('keep me', 'a person took it');
    fs.writeFileSync(path.join(root, '.editwarden/checkpoints/command-index'), `${manual}\n`);
    const index = new CommandIndex(cps);
    index.release(index.take('x').id);
    expect(cps.list().map((c) => c.id)).toContain(manual);
  });
});
