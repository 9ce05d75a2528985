// An edit reads the file it replaces under the root lock, then checkpoints it in the same hold: the checkpoint takes
// the bytes of that read instead of reading the file again — only when the file is provably the one read and was
// last changed well before the read (capture.ts HeldRead). Otherwise the checkpoint reads the disk, as it always did.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { HELD_READ_MARGIN_MS, heldBytes, type HeldRead } from '../../src/workspace/checkpoints/held-read.js';
import fc from 'fast-check';
import type { ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const origin = { kind: 'manual' } as const;
/** Large enough to be kept as a blob, not inline in the manifest. */
const big = (c: string) => `${c.repeat(79)}\n`.repeat(400);

/** Lets the file's last change fall behind the margin, as a file an agent edits a turn later has. */
function age(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HELD_READ_MARGIN_MS * 3);
}

function bytesOf(ws: ReturnType<typeof openWorkspace>['ws'], entry: ManifestEntry | undefined): string {
  if (entry?.type !== 'file') throw new Error(`not a file entry: ${JSON.stringify(entry)}`);
  return entry.inline !== undefined ? Buffer.from(entry.inline, 'base64').toString() : ws.transactions.checkpoints.blobs.get(entry.blob).toString();
}

afterEach(() => vi.restoreAllMocks());

describe('a checkpoint after a read in the same hold of the lock', () => {
  it('takes the bytes the workspace read, without reading the file again', () => {
    const root = tempRoot('ew-held-');
    write(root, 'a.txt', big('a'));
    const { ws } = openWorkspace(root);
    age();
    const reads = vi.spyOn(fs, 'readSync');
    const manifest = ws.transact(() => {
      expect(ws.read('a.txt')?.bytes.toString()).toBe(big('a'));
      reads.mockClear();
      return ws.transactions.checkpoints.createFiles(['a.txt'], 'held', 'test', origin);
    });
    expect(reads).not.toHaveBeenCalled();
    expect(bytesOf(ws, manifest.entries[0])).toBe(big('a'));
  });

  it('reads the disk again when the file changed after the read, even with the same size and inode', () => {
    const root = tempRoot('ew-held-');
    write(root, 'a.txt', big('a'));
    const { ws } = openWorkspace(root);
    age();
    const manifest = ws.transact(() => {
      expect(ws.read('a.txt')?.bytes.toString()).toBe(big('a'));
      // Rewritten in place (same inode, same size) by someone who does not take the lock.
      fs.writeFileSync(path.join(root, 'a.txt'), big('b'));
      return ws.transactions.checkpoints.createFiles(['a.txt'], 'held', 'test', origin);
    });
    expect(bytesOf(ws, manifest.entries[0])).toBe(big('b'));
  });

  it('holds nothing across holds of the lock: a read before the hold is read again', () => {
    const root = tempRoot('ew-held-');
    write(root, 'a.txt', big('a'));
    const { ws } = openWorkspace(root);
    age();
    ws.transact(() => ws.read('a.txt'));
    const reads = vi.spyOn(fs, 'readSync');
    const manifest = ws.transact(() => ws.transactions.checkpoints.createFiles(['a.txt'], 'held', 'test', origin));
    expect(reads).toHaveBeenCalled();
    expect(bytesOf(ws, manifest.entries[0])).toBe(big('a'));
  });

  it('takes them only for the file that was read', () => {
    const root = tempRoot('ew-held-');
    write(root, 'a.txt', big('a'));
    write(root, 'b.txt', big('b'));
    const { ws } = openWorkspace(root);
    age();
    const manifest = ws.transact(() => {
      ws.read('a.txt');
      return ws.transactions.checkpoints.createFiles(['b.txt'], 'held', 'test', origin);
    });
    expect(bytesOf(ws, manifest.entries[0])).toBe(big('b'));
  });
});

describe('when a stat vouches for held bytes (the racily-clean rule)', () => {
  const stat = { dev: 1, ino: 2, size: 5, mtimeMs: 1_700_000_000_123.456, ctimeMs: 1_700_000_000_123.456 };
  const held = (over: Partial<HeldRead> = {}): HeldRead => ({ relative: 'a.txt', bytes: Buffer.from('hello'), ...stat, readAtMs: stat.ctimeMs + 1_000, ...over });

  it('a file changed within the margin before the read is not vouched for: a change in the same clock tick would not show', () => {
    expect(heldBytes(held({ readAtMs: stat.ctimeMs + HELD_READ_MARGIN_MS }), 'a.txt', stat)).toBeUndefined();
    expect(heldBytes(held({ readAtMs: stat.ctimeMs + 1 }), 'a.txt', stat)).toBeUndefined();
    expect(heldBytes(held({ readAtMs: stat.ctimeMs + HELD_READ_MARGIN_MS + 1 }), 'a.txt', stat)?.toString()).toBe('hello');
  });

  it('a file system with whole-second ctimes needs its change seconds before the read', () => {
    const coarse = { ...stat, mtimeMs: 1_700_000_000_000, ctimeMs: 1_700_000_000_000 };
    expect(heldBytes(held({ ...coarse, readAtMs: coarse.ctimeMs + 999 }), 'a.txt', coarse)).toBeUndefined();
    expect(heldBytes(held({ ...coarse, readAtMs: coarse.ctimeMs + 2_000 }), 'a.txt', coarse)).toBeUndefined();
    expect(heldBytes(held({ ...coarse, readAtMs: coarse.ctimeMs + 3_000 }), 'a.txt', coarse)?.toString()).toBe('hello');
  });

  it('property: vouched only for the same path, device, inode, size and times, with a ctime older than the margin', () => {
    const then = fc.record({ dev: fc.integer({ min: 1, max: 3 }), ino: fc.integer({ min: 1, max: 3 }), size: fc.constant(5), mtimeMs: fc.constantFrom(10_000.5, 10_001.5), ctimeMs: fc.constantFrom(10_000.5, 10_001.5, 12_000) });
    // The stat the capture takes: the read's own, or one with a single field changed since.
    const changed = fc.option(fc.constantFrom('dev', 'ino', 'size', 'mtimeMs', 'ctimeMs') as fc.Arbitrary<keyof typeof stat>, { nil: undefined });
    fc.assert(
      fc.property(then, changed, fc.constantFrom('a.txt', 'a.txt', 'b.txt'), fc.integer({ min: 0, max: 5_000 }), (before, field, rel, after) => {
        const now = field === undefined ? before : { ...before, [field]: before[field] + 1 };
        const h = held({ ...before, readAtMs: before.ctimeMs + after });
        const margin = now.ctimeMs % 1000 === 0 ? 2_500 : HELD_READ_MARGIN_MS;
        const vouched = rel === 'a.txt' && field === undefined && now.ctimeMs < h.readAtMs - margin;
        expect(heldBytes(h, rel, now) !== undefined).toBe(vouched);
      }),
      { numRuns: 300 },
    );
  });
});
