/**
 * The stat cache of workspace checkpoints (src/workspace/checkpoints/stat-cache.ts)
 * never hides a change: after random edits — same-size rewrites within the
 * same clock tick, mtimes set back with `touch -d`, mode changes, file ↔
 * folder ↔ symlink swaps, renames over a file of the same size — the
 * incremental checkpoint equals a full one, every time. And a planted,
 * corrupt, symlinked or foreign cache only costs speed.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import { captureWorkspace } from '../../src/workspace/checkpoints/capture.js';
import { STAT_CACHE_FILE } from '../../src/workspace/checkpoints/stat-cache.js';
import type { Manifest, ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { tempRoot, write } from './fixtures/checkpoint-helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function root(): string {
  const r = tempRoot('ew-statcache-');
  made.push(r);
  return r;
}

/** What a checkpoint says about the tree (the stat fields are left out: a reused entry keeps the ones it was read with). */
function content(entries: ManifestEntry[]): string[] {
  return entries.map((e) => (e.type === 'file' ? `${e.path} file ${e.blob} ${e.size} ${e.mode.toString(8)}` : e.type === 'symlink' ? `${e.path} -> ${e.target}` : `${e.path} absent`));
}

/** The checkpoint of the service (stat cache in use) next to a full capture of the same moment. */
function incrementalAndFull(cps: CheckpointService, r: string): { incremental: string[]; full: string[]; dirs: [string[], string[]] } {
  const m = cps.createWorkspace('round', 'test', { kind: 'manual' });
  const full = captureWorkspace(r, cps.blobs, null);
  return { incremental: content(m.entries), full: content(full.entries), dirs: [m.dirs, full.dirs] };
}

type Op =
  | { kind: 'write'; file: string; text: string }
  | { kind: 'sameSize'; file: string; keepTimes: boolean }
  | { kind: 'touchBack'; file: string }
  | { kind: 'chmod'; file: string; mode: number }
  | { kind: 'delete'; file: string }
  | { kind: 'toDir'; file: string }
  | { kind: 'toLink'; file: string; target: string }
  | { kind: 'renameOver'; from: string; to: string };

const names = ['a', 'b', 'c', 'd/e', 'd/f', 'g/h/i'];
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), file: fc.constantFrom(...names), text: fc.string({ maxLength: 12 }) }),
  fc.record({ kind: fc.constant('sameSize' as const), file: fc.constantFrom(...names), keepTimes: fc.boolean() }),
  fc.record({ kind: fc.constant('touchBack' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('chmod' as const), file: fc.constantFrom(...names), mode: fc.constantFrom(0o600, 0o644, 0o755) }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('toDir' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('toLink' as const), file: fc.constantFrom(...names), target: fc.constantFrom('a', 'd', 'missing') }),
  fc.record({ kind: fc.constant('renameOver' as const), from: fc.constantFrom(...names), to: fc.constantFrom(...names) }),
);

function lstat(abs: string): fs.Stats | null {
  try {
    return fs.lstatSync(abs);
  } catch {
    return null;
  }
}

/** Applies an edit where it makes sense (an edit of nothing is skipped, as a person's would fail). */
function apply(r: string, o: Op): void {
  const abs = path.join(r, 'file' in o ? o.file : o.from);
  const st = lstat(abs);
  try {
    switch (o.kind) {
      case 'write':
        if (st?.isDirectory()) return;
        if (st?.isSymbolicLink()) fs.rmSync(abs);
        write(r, o.file, o.text);
        return;
      case 'sameSize': {
        if (!st?.isFile()) return;
        // Every byte changed, the size kept; with keepTimes the old atime/mtime are put back too (what `touch -r` or `cp -p` do).
        const old = fs.readFileSync(abs);
        const next = Buffer.from(old.map((b) => (b === 0x78 ? 0x79 : 0x78)));
        fs.writeFileSync(abs, next);
        if (o.keepTimes) fs.utimesSync(abs, st.atime, st.mtime);
        return;
      }
      case 'touchBack':
        if (st?.isFile()) fs.utimesSync(abs, new Date('2001-02-03T04:05:06Z'), new Date('2001-02-03T04:05:06Z'));
        return;
      case 'chmod':
        if (st?.isFile()) fs.chmodSync(abs, o.mode);
        return;
      case 'delete':
        if (st !== null && !st.isDirectory()) fs.rmSync(abs);
        return;
      case 'toDir':
        if (st !== null && !st.isDirectory()) fs.rmSync(abs);
        if (st?.isDirectory()) return;
        write(r, `${o.file}/inner`, 'inner\n');
        return;
      case 'toLink':
        if (st?.isDirectory()) return;
        fs.mkdirSync(path.dirname(abs), { recursive: true });
        if (st !== null) fs.rmSync(abs);
        fs.symlinkSync(o.target, abs);
        return;
      case 'renameOver': {
        const to = path.join(r, o.to);
        const tst = lstat(to);
        if (!st?.isFile() || tst?.isDirectory() || o.from === o.to) return;
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.renameSync(abs, to);
        return;
      }
      default: {
        const never: never = o;
        throw new Error(String(never));
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR') return;
    throw error;
  }
}

describe('stat cache', () => {
  it('never hides a change: after random edits the incremental workspace checkpoint equals a full one', () => {
    fc.assert(
      fc.property(fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (rounds, settle) => {
        const r = tempRoot('ew-statcache-prop-');
        try {
          for (const name of names) write(r, name, `${name} xxxx\n`);
          if (settle) {
            // Files older than the first scan's clock, so the cache trusts them (most of the time it must).
            const old = new Date(Date.now() - 60_000);
            for (const name of names) fs.utimesSync(path.join(r, name), old, old);
            const until = Date.now() + 15;
            while (Date.now() < until) {
              // Wait for the next timestamp tick (≤ 10 ms) without a timer: the property is synchronous.
            }
          }
          const cps = new CheckpointService(openWorkspace(r).ws);
          cps.createWorkspace('first', 'test', { kind: 'manual' });
          for (const edits of rounds) {
            // Straight after the checkpoint: often in the same timestamp tick as the stats it recorded.
            for (const e of edits) apply(r, e);
            const { incremental, full, dirs } = incrementalAndFull(cps, r);
            expect(incremental).toEqual(full);
            expect(dirs[0]).toEqual(dirs[1]);
          }
        } finally {
          fs.rmSync(r, { recursive: true, force: true });
        }
      }),
      { numRuns: 30 },
    );
  });

  it('is used: a second checkpoint of an unchanged, settled tree reads no file', async () => {
    const r = root();
    for (let i = 0; i < 30; i++) write(r, `f${i}.txt`, `file ${i}\n`);
    await new Promise((res) => setTimeout(res, 30));
    const cps = new CheckpointService(openWorkspace(r).ws);
    cps.createWorkspace('first', 'test', { kind: 'manual' });
    const cache = cps.statCache.load((id) => cps.manifests.scopeOf(id) === 'workspace');
    expect(cache?.size).toBe(30);
    let reads = 0;
    const put = cps.blobs.put.bind(cps.blobs);
    cps.blobs.put = (bytes, durability) => {
      reads++;
      return put(bytes, durability);
    };
    write(r, 'f3.txt', 'changed\n');
    cps.createWorkspace('second', 'test', { kind: 'manual' });
    expect(reads).toBe(1);
  });
});

/** A cache that would make the next checkpoint record the wrong bytes for a.txt if it were used. */
function poisoned(r: string, cps: CheckpointService): { bytes: Buffer; header: Record<string, unknown>; rest: Buffer } {
  const file = path.join(r, '.editwarden', 'checkpoints', STAT_CACHE_FILE);
  const bytes = fs.readFileSync(file);
  const lines = bytes.toString('latin1').split('\n');
  const header = JSON.parse(lines[1] as string) as Record<string, unknown>;
  const start = Math.ceil(Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`, 'latin1') / 8) * 8;
  const rest = Buffer.from(bytes.subarray(start));
  const manifest: Manifest = cps.get(String(header.manifest));
  const a = manifest.entries.find((e) => e.path === 'a.txt') as Extract<ManifestEntry, { type: 'file' }>;
  const b = manifest.entries.find((e) => e.path === 'b.txt') as Extract<ManifestEntry, { type: 'file' }>;
  // a.txt's blob id in the cache becomes b.txt's (a blob that exists, of the same size).
  const at = rest.indexOf(Buffer.from(a.blob, 'latin1'));
  rest.write(b.blob, at, 'latin1');
  return { bytes, header, rest };
}

function encode(header: Record<string, unknown>, rest: Buffer): Buffer {
  const head = Buffer.from(`editwarden stat cache 1\n${JSON.stringify(header)}\n`, 'utf8');
  return Buffer.concat([head, Buffer.alloc(Math.ceil(head.length / 8) * 8 - head.length), rest]);
}

describe('a planted or damaged stat cache only costs speed', () => {
  async function setup(): Promise<{ r: string; cps: CheckpointService; cacheFile: string; header: Record<string, unknown>; rest: Buffer }> {
    const r = root();
    write(r, 'a.txt', 'aaaa\n');
    write(r, 'b.txt', 'bbbb\n');
    await new Promise((res) => setTimeout(res, 30));
    const cps = new CheckpointService(openWorkspace(r).ws);
    cps.createWorkspace('first', 'test', { kind: 'manual' });
    const { header, rest } = poisoned(r, cps);
    return { r, cps, cacheFile: path.join(r, '.editwarden', 'checkpoints', STAT_CACHE_FILE), header, rest };
  }

  function recordsA(cps: CheckpointService): string {
    const m = cps.createWorkspace('next', 'test', { kind: 'manual' });
    const a = m.entries.find((e) => e.path === 'a.txt') as Extract<ManifestEntry, { type: 'file' }>;
    return cps.blobs.get(a.blob).toString('utf8');
  }

  it('control: the poisoned cache, planted whole and valid, would be believed (the state folder is trusted like its manifests)', async () => {
    const { cps, cacheFile, header, rest } = await setup();
    fs.writeFileSync(cacheFile, encode(header, rest));
    expect(recordsA(cps)).toBe('bbbb\n');
  });

  it('a symlink at the cache name is not followed', async () => {
    const { r, cps, cacheFile, header, rest } = await setup();
    const outside = path.join(root(), 'planted.bin');
    fs.writeFileSync(outside, encode(header, rest));
    fs.rmSync(cacheFile);
    fs.symlinkSync(outside, cacheFile);
    expect(recordsA(cps)).toBe('aaaa\n');
    // Replaced by a real cache; the outside file is untouched.
    expect(fs.lstatSync(cacheFile).isFile()).toBe(true);
    expect(fs.readFileSync(outside)).toEqual(encode(header, rest));
    expect(fs.readdirSync(r).sort()).toEqual(['.editwarden', 'a.txt', 'b.txt']);
  });

  it('a hard link planted at the cache name: the outside file it shares is never written', async () => {
    const { cps, cacheFile } = await setup();
    const outside = path.join(root(), 'victim.txt');
    fs.writeFileSync(outside, 'victim\n');
    fs.rmSync(cacheFile);
    fs.linkSync(outside, cacheFile);
    expect(recordsA(cps)).toBe('aaaa\n');
    expect(fs.readFileSync(outside, 'utf8')).toBe('victim\n');
  });

  const damaged: Array<[string, (h: Record<string, unknown>, rest: Buffer) => Buffer]> = [
    ['of another root (device and inode)', (h, rest) => encode({ ...h, root: { dev: 1, ino: 2 } }, rest)],
    ['of a checkpoint that no longer exists', (h, rest) => encode({ ...h, manifest: '20200101-000000-000-abcd' }, rest)],
    ['with a clock in the future', (h, rest) => encode({ ...h, clock: { ...(h.clock as object), ms: Date.now() + 86_400_000 } }, rest)],
    ['truncated', (h, rest) => encode(h, rest).subarray(0, encode(h, rest).length - 7)],
    ['with a count that does not fit the data', (h, rest) => encode({ ...h, count: (h.count as number) + 1 }, rest)],
    ['with a blob id that is not hex', (h, rest) => encode(h, Buffer.concat([rest.subarray(0, rest.length - 1), Buffer.from('/')]))],
    ['with a NaN in the numbers', (h, rest) => encode(h, Buffer.concat([Buffer.from(new Float64Array([Number.NaN]).buffer), rest.subarray(8)]))],
    ['not a stat cache at all', () => Buffer.from('{"format":1}')],
    ['empty', () => Buffer.alloc(0)],
  ];
  for (const [what, make] of damaged) {
    it(`a cache ${what} is ignored: every file is read`, async () => {
      const { cps, cacheFile, header, rest } = await setup();
      fs.writeFileSync(cacheFile, make(header, rest));
      expect(recordsA(cps)).toBe('aaaa\n');
    });
  }

  it('a folder at the cache name, or a FIFO, is ignored and the checkpoint still succeeds', async () => {
    const { cps, cacheFile } = await setup();
    fs.rmSync(cacheFile);
    fs.mkdirSync(cacheFile);
    expect(recordsA(cps)).toBe('aaaa\n');
    fs.rmSync(cacheFile, { recursive: true });
    if (process.platform !== 'win32') {
      const { spawnSync } = await import('node:child_process');
      spawnSync('mkfifo', [cacheFile]);
      expect(recordsA(cps)).toBe('aaaa\n');
    }
  });
});
