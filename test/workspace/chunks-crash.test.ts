/**
 * A workspace checkpoint killed at each step of its write (a real process,
 * SIGKILL, durable.ts observer): every checkpoint left on disk reads back
 * whole — no top record names a chunk that is not there — and the next
 * checkpoint, from whatever base is left, equals a full capture.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureWorkspace } from '../../src/workspace/checkpoints/capture.js';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import type { ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';
import { bundledTxChild, runUntilKilled } from './fixtures/tx-child-run.js';

const CHILD = await bundledTxChild();

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function content(entries: ManifestEntry[]): string[] {
  return entries.map((e) => (e.type === 'file' ? `${e.path} ${e.blob} ${e.mode.toString(8)}` : e.type === 'symlink' ? `${e.path} -> ${e.target}` : `${e.path} absent`));
}

function dieAt(r: string, op: string, n: number, durable: boolean): Promise<string> {
  return runUntilKilled(CHILD, ['ws-die-at', r, op, String(n), durable ? '1' : '0']);
}

// A durable checkpoint after a 1-folder change: the chunk's rename, the top record's temp, the fsync group, the top record's rename.
const durableSteps: Array<[string, number]> = [
  ['rename', 1],
  ['temp', 1],
  ['group', 1],
  ['rename', 2],
];
// A command's index: no group (nothing fsynced), the chunk's rename and the top record's.
const indexSteps: Array<[string, number]> = [
  ['rename', 1],
  ['temp', 1],
  ['rename', 2],
];

describe('a workspace checkpoint killed at each step of its write', () => {
  for (const [durable, steps] of [
    [true, durableSteps],
    [false, indexSteps],
  ] as const) {
    for (const [op, n] of steps) {
      it(`${durable ? 'durable' : "a command's index"}, killed after ${op} #${n}: every checkpoint left reads back whole; the next one equals a full capture`, async () => {
        const r = tempRoot('ew-chunks-crash-');
        made.push(r);
        for (let i = 0; i < 8; i++) write(r, `d${i % 4}/f${i}.txt`, `file ${i}\n`);
        await new Promise((res) => setTimeout(res, 30));
        const first = new CheckpointService(openWorkspace(r).ws).createWorkspace('first', 'test', { kind: 'manual' });
        write(r, 'd2/f2.txt', 'edited before the doomed checkpoint\n');
        const said = await dieAt(r, op, n, durable);
        expect(said).toContain('dying after');
        const cps = new CheckpointService(openWorkspace(r).ws);
        const ids = cps.manifests.ids('workspace').map((e) => e.id);
        expect(ids).toContain(first.id);
        for (const id of ids) expect(cps.get(id).entries.length).toBe(8);
        write(r, 'd3/f3.txt', 'edited after the crash\n');
        const next = cps.createWorkspace('next', 'test', { kind: 'manual' });
        expect(content(next.entries)).toEqual(content(captureWorkspace(r, cps.blobs, null).entries));
        // The collector keeps what the kept checkpoints name: the first restores exactly after the others are dropped.
        for (const id of cps.manifests.ids('workspace').map((e) => e.id)) if (id !== first.id) cps.drop(id);
        new CheckpointService(openWorkspace(r).ws).restore(first.id);
        expect(fs.readFileSync(path.join(r, 'd2/f2.txt'), 'utf8')).toBe('file 2\n');
        expect(fs.readFileSync(path.join(r, 'd3/f3.txt'), 'utf8')).toBe('file 3\n');
      });
    }
  }
});
