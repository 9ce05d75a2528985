/**
 * The checkpoint store's size ledger (usage.json, budget.ts) when more than
 * one process writes the store: a long-running server and a client's hook
 * processes each have a StoreBudget of their own. Each one's charges must
 * reach the ledger: one that kept its own running total would overwrite the
 * others' (seen: 40,000 bytes in the ledger for 60,000 stored), and the store
 * could then grow past checkpoints.max_total_bytes unnoticed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const OPEN = pathToFileURL(path.resolve(__dirname, '../../dist/workspace/open.js')).href;

function ledgerOf(root: string): number {
  return (JSON.parse(fs.readFileSync(path.join(root, '.editwarden/checkpoints/usage.json'), 'utf8')) as { bytes: number }).bytes;
}

/** Each writer as a process would be: its own workspace, service, lock and budget. */
function writer(root: string): CheckpointService {
  return new CheckpointService(openWorkspace(root).ws);
}

type Op = { who: number; kind: 'add'; size: number } | { who: number; kind: 'files'; size: number } | { who: number; kind: 'remove' } | { who: number; kind: 'drop' } | { who: number; kind: 'prune'; keep: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ who: fc.nat(2), kind: fc.constant('add' as const), size: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({ who: fc.nat(2), kind: fc.constant('files' as const), size: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({ who: fc.nat(2), kind: fc.constant('remove' as const) }),
  fc.record({ who: fc.nat(2), kind: fc.constant('drop' as const) }),
  fc.record({ who: fc.nat(2), kind: fc.constant('prune' as const), keep: fc.integer({ min: 0, max: 3 }) }),
);

describe('the checkpoint store ledger, with several writers', () => {
  it('equals the bytes stored after any interleaving of three writers checkpointing, dropping and pruning (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), (ops) => {
        const root = tempRoot('ew-ledger-');
        try {
          write(root, 'seed.txt', 'seed\n');
          const writers = [writer(root), writer(root), writer(root)];
          let n = 0;
          for (const o of ops) {
            const w = writers[o.who] as CheckpointService;
            if (o.kind === 'add') {
              // Unique bytes: a new blob every time.
              write(root, `f${n}.txt`, `${n++}:`.padEnd(o.size, 'x'));
              w.createWorkspace(`w${n}`, 'test', { kind: 'manual' });
            } else if (o.kind === 'files') {
              write(root, `g${n}.txt`, `${n++};`.padEnd(o.size, 'y'));
              w.createFiles([`g${n - 1}.txt`], `f${n}`, 'test', { kind: 'manual' });
            } else if (o.kind === 'remove') {
              const victim = fs.readdirSync(root).find((f) => /^[fg]\d+\.txt$/.test(f));
              if (victim) fs.rmSync(path.join(root, victim));
              w.createWorkspace(`r${n++}`, 'test', { kind: 'manual' });
            } else if (o.kind === 'drop') {
              const oldest = w.list()[0];
              if (oldest) w.drop(oldest.id);
            } else {
              w.prune({ keepLast: o.keep });
            }
          }
          if (fs.existsSync(path.join(root, '.editwarden/checkpoints/usage.json'))) expect(ledgerOf(root)).toBe((writers[0] as CheckpointService).blobs.occupied());
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 30 },
    );
  });

  it('is rewritten in place, never through a planted link or FIFO, and an older, shorter ledger is read and replaced whole', () => {
    const root = tempRoot('ew-ledger-planted-');
    const outside = tempRoot('ew-ledger-outside-');
    try {
      write(root, 'a.txt', 'a'.repeat(30_000));
      const cps = writer(root);
      cps.createWorkspace('first', 'test', { kind: 'manual' });
      const ledger = path.join(root, '.editwarden/checkpoints/usage.json');
      const inode = fs.statSync(ledger).ino;
      write(root, 'b.txt', 'b'.repeat(40_000));
      writer(root).createWorkspace('second', 'test', { kind: 'manual' });
      // The same file, rewritten: no new file and rename each checkpoint.
      expect(fs.statSync(ledger).ino).toBe(inode);
      expect(ledgerOf(root)).toBe(cps.blobs.occupied());

      // What an earlier version wrote: shorter, no padding. Read, then covered whole by the next write.
      fs.writeFileSync(ledger, JSON.stringify({ format: 1, bytes: ledgerOf(root) }));
      write(root, 'c.txt', 'c'.repeat(50_000));
      writer(root).createWorkspace('third', 'test', { kind: 'manual' });
      expect(ledgerOf(root)).toBe(cps.blobs.occupied());

      // A link to a file outside: replaced by a real ledger, the outside file untouched.
      const target = path.join(outside, 'victim.txt');
      fs.writeFileSync(target, 'keep me\n');
      fs.rmSync(ledger);
      fs.symlinkSync(target, ledger);
      write(root, 'd.txt', 'd'.repeat(60_000));
      writer(root).createWorkspace('fourth', 'test', { kind: 'manual' });
      expect(fs.readFileSync(target, 'utf8')).toBe('keep me\n');
      expect(fs.lstatSync(ledger).isFile()).toBe(true);
      expect(ledgerOf(root)).toBe(cps.blobs.occupied());

      // A FIFO (nobody at its other end): no hang, replaced. In a child process: a blocked open would stall this one for good.
      fs.rmSync(ledger);
      expect(spawnSync('mkfifo', [ledger]).status).toBe(0);
      write(root, 'e.txt', 'e'.repeat(70_000));
      const script = `const { openWorkspace } = await import(${JSON.stringify(OPEN)}); openWorkspace(${JSON.stringify(root)}).transactions.checkpoints.createWorkspace('fifth', 'test', { kind: 'manual' });`;
      const fifth = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(fifth.status, `${fifth.signal ?? ''} ${fifth.stderr}`).toBe(0);
      expect(fs.lstatSync(ledger).isFile()).toBe(true);
      expect(ledgerOf(root)).toBe(cps.blobs.occupied());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('equals the bytes stored after two real processes checkpoint new files at the same time (their checkpoints interleave)', async () => {
    const root = tempRoot('ew-ledger-race-');
    const gate = tempRoot('ew-ledger-gate-');
    try {
      write(root, 'seed.txt', 'seed\n');
      const child = (name: string) =>
        new Promise<number | null>((resolve) => {
          const script = `
            import fs from 'node:fs';
            const { openWorkspace } = await import(${JSON.stringify(OPEN)});
            const cps = openWorkspace(${JSON.stringify(root)}).transactions.checkpoints;
            // Both start together: each says it is ready and waits for the go.
            fs.writeFileSync(${JSON.stringify(gate)} + '/${name}', '');
            while (!fs.existsSync(${JSON.stringify(gate)} + '/go')) await new Promise((r) => setTimeout(r, 2));
            for (let i = 0; i < 30; i++) {
              fs.writeFileSync(${JSON.stringify(root)} + '/${name}-' + i + '.txt', '${name} ' + i + ' ' + 'z'.repeat(17_000 + i));
              cps.createWorkspace('${name} ' + i, 'race', { kind: 'manual' });
              // Out of the lock for a moment: the other process's lock poll gets its turn, so their checkpoints interleave.
              await new Promise((r) => setTimeout(r, 10 + (i % 3) * 10));
            }`;
          const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
          p.on('exit', (code) => resolve(code));
        });
      const both = Promise.all([child('a'), child('b')]);
      while (!(fs.existsSync(path.join(gate, 'a')) && fs.existsSync(path.join(gate, 'b')))) await new Promise((r) => setTimeout(r, 5));
      fs.writeFileSync(path.join(gate, 'go'), '');
      expect(await both).toEqual([0, 0]);
      const stored = writer(root).blobs.occupied();
      // 60 new files, each its own blob (over the 16 KB an incremental checkpoint keeps inline: capture.ts).
      expect(stored).toBeGreaterThanOrEqual(60 * 17_000);
      expect(ledgerOf(root)).toBe(stored);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(gate, { recursive: true, force: true });
    }
  }, 60_000);
});
