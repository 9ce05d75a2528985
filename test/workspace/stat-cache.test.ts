/**
 * The stat cache of workspace checkpoints (src/workspace/checkpoints/stat-cache.ts)
 * never hides a change: after random edits — same-size rewrites within the
 * same clock tick, mtimes set back with `touch -d`, mode changes, file ↔
 * folder ↔ symlink swaps, renames over a file of the same size — the
 * incremental checkpoint equals a full one, every time. And a planted,
 * corrupt, symlinked or foreign cache only costs speed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { setDurableObserver, type DurableEvent } from '../../src/workspace/durable.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import { captureWorkspace } from '../../src/workspace/checkpoints/capture.js';
import { bytesOf } from '../../src/workspace/checkpoints/current.js';
import type { Manifest, ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { doesNotFit, tempRoot, write } from './fixtures/checkpoint-helpers.js';

/** A word to wait on that nobody wakes: Atomics.wait on it is a synchronous sleep. */
const NEVER_WOKEN = new Int32Array(new SharedArrayBuffer(4));

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

/**
 * The checkpoint of the service (stat cache and chunks of the last one in use) next to a full capture of the same
 * moment, and the same checkpoint as a fresh process reads it back from disk (its chunks). The service's capture reuses
 * the folder listings its last walk recorded (listings.ts), so the property covers them too.
 */
function incrementalAndFull(cps: CheckpointService, r: string): { incremental: string[]; full: string[]; onDisk: string[]; dirs: [string[], string[], string[]] } {
  const m = cps.createWorkspace('round', 'test', { kind: 'manual' });
  // Cold: no stat cache, and every folder read (no listing of an earlier walk reused: listings.ts).
  const full = captureWorkspace(r, cps.blobs, null, [], undefined, { reuseListings: false });
  const back = new CheckpointService(openWorkspace(r).ws).get(m.id);
  return { incremental: content(m.entries), full: content(full.entries), onDisk: content(back.entries), dirs: [m.dirs, full.dirs, back.dirs] };
}

type Op =
  | { kind: 'write'; file: string; text: string }
  | { kind: 'sameSize'; file: string; keepTimes: boolean }
  | { kind: 'touchBack'; file: string }
  | { kind: 'chmod'; file: string; mode: number }
  | { kind: 'delete'; file: string }
  | { kind: 'toDir'; file: string }
  | { kind: 'toLink'; file: string; target: string }
  | { kind: 'renameOver'; from: string; to: string }
  | { kind: 'dirToLink'; dir: string; target: string }
  | { kind: 'ignore'; dir: string; rules: string };

const names = ['a', 'b', 'c', 'd/e', 'd/f', 'g/h/i', 'g/h/j k', 'd/ü'];
/** Paths not there at first: an edit can add them (a new folder on the way too). */
const added = ['n/o', 'd/new', 'g/h/k'];
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), file: fc.constantFrom(...names, ...added), text: fc.string({ maxLength: 12 }) }),
  fc.record({ kind: fc.constant('sameSize' as const), file: fc.constantFrom(...names), keepTimes: fc.boolean() }),
  fc.record({ kind: fc.constant('touchBack' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('chmod' as const), file: fc.constantFrom(...names), mode: fc.constantFrom(0o600, 0o644, 0o755) }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('toDir' as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant('toLink' as const), file: fc.constantFrom(...names), target: fc.constantFrom('a', 'd', 'missing') }),
  fc.record({ kind: fc.constant('renameOver' as const), from: fc.constantFrom(...names), to: fc.constantFrom(...names, ...added) }),
  fc.record({ kind: fc.constant('dirToLink' as const), dir: fc.constantFrom('d', 'g/h', 'g'), target: fc.constantFrom('a', 'd', 'missing') }),
  fc.record({ kind: fc.constant('ignore' as const), dir: fc.constantFrom('', 'd', 'g'), rules: fc.constantFrom('', 'b\n', 'd/\n', 'e\n', '*\n!f\n', 'h/\n', 'i\n!g/h/i\n') }),
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
  const abs = path.join(r, 'file' in o ? o.file : 'from' in o ? o.from : o.dir);
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
      case 'dirToLink':
        // A folder swapped for a link: its files must not be taken as the link's, nor kept from the old folder.
        if (!st?.isDirectory()) return;
        fs.rmSync(abs, { recursive: true });
        fs.symlinkSync(o.target, abs);
        return;
      case 'ignore':
        if (!st?.isDirectory() && o.dir !== '') return;
        fs.writeFileSync(path.join(r, o.dir, '.gitignore'), o.rules);
        return;
      default: {
        const never: never = o;
        throw new Error(String(never));
      }
    }
  } catch (error) {
    if (!doesNotFit(error)) throw error;
  }
}

describe('stat cache', () => {
  it('never hides a change: after random edits (same-size rewrites with times put back, adds, deletes, renames, chmod, a folder swapped for a link, .gitignore changes) the incremental workspace checkpoint equals a full one, in memory and read back', () => {
    fc.assert(
      fc.property(fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (rounds, settle) => {
        const r = tempRoot('ew-statcache-prop-');
        try {
          for (const name of names) write(r, name, `${name} xxxx\n`);
          if (settle) {
            // Files older than the first scan's clock, so the cache trusts them (most of the time it must).
            const old = new Date(Date.now() - 60_000);
            for (const name of names) fs.utimesSync(path.join(r, name), old, old);
            // Wait for the next timestamp tick (≤ 10 ms) without a timer (the property is synchronous), asleep, not spinning.
            const until = Date.now() + 15;
            for (let left = 15; left > 0; left = until - Date.now()) Atomics.wait(NEVER_WOKEN, 0, 0, left);
          }
          const cps = new CheckpointService(openWorkspace(r).ws);
          cps.createWorkspace('first', 'test', { kind: 'manual' });
          for (const edits of rounds) {
            // Straight after the checkpoint: often in the same timestamp tick as the stats it recorded.
            for (const e of edits) apply(r, e);
            const { incremental, full, onDisk, dirs } = incrementalAndFull(cps, r);
            expect(incremental).toEqual(full);
            expect(onDisk).toEqual(full);
            expect(dirs[0]).toEqual(dirs[1]);
            expect(dirs[2]).toEqual(dirs[1]);
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
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    cps.createWorkspace('first', 'test', { kind: 'manual' });
    const cache = cps.statCache.load(cps.manifests);
    expect(cache?.size).toBe(30);
    write(r, 'f3.txt', 'changed\n');
    expect(captureWorkspace(r, cps.blobs, cache).read).toBe(1);
    expect(captureWorkspace(r, cps.blobs, null).read).toBe(30);
  });
});

/** The files of the state folder a workspace checkpoint is stored in. */
function store(r: string): { top: (id: string) => string; chunk: (name: string) => string; chunksDir: string } {
  const cp = path.join(r, '.editwarden', 'checkpoints');
  return { top: (id) => path.join(cp, 'manifests', 'workspace', `${id}.json`), chunk: (name) => path.join(cp, 'chunks', name), chunksDir: path.join(cp, 'chunks') };
}

interface Top {
  id: string;
  cache?: { root: { dev: number; ino: number }; clock: { ms: number; dev: number } };
  chunks: Array<[string, string]>;
  unsynced?: string[];
  held?: Array<[string, string]>;
}

/**
 * A workspace checkpoint whose every chunk is read from its file: the first
 * checkpoint of a small tree carries its few chunks in its top record
 * (`held`), so a second one over the unchanged tree is taken, which names
 * the same chunks, made durable, and carries none.
 */
function onDisk(cps: CheckpointService): Manifest {
  cps.createWorkspace('first', 'test', { kind: 'manual' });
  return cps.createWorkspace('on disk', 'test', { kind: 'manual' });
}

/** The top record of workspace checkpoint `id`, as it is on disk. */
function topOf(r: string, id: string): Top {
  return JSON.parse(fs.readFileSync(store(r).top(id), 'utf8')) as Top;
}

/** Waits past the file system's timestamp tick, so files written before are trusted by the next checkpoint's clock. */
function pastTick(): Promise<void> {
  return new Promise((res) => setTimeout(res, 30));
}

function sha(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('a planted, damaged or torn base only costs speed, or fails loudly', () => {
  /** Two settled files and one workspace checkpoint: its top record, and the text of the root folder's chunk with a.txt's blob made b.txt's. */
  async function setup(): Promise<{ r: string; cps: CheckpointService; id: string; top: Top; rootChunk: string; poisoned: string }> {
    const r = root();
    write(r, 'a.txt', 'aaaa\n');
    write(r, 'b.txt', 'bbbb\n');
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    const m = onDisk(cps);
    const top = topOf(r, m.id);
    expect(top.held).toBeUndefined();
    const [dir, name] = top.chunks[0] as [string, string];
    expect(dir).toBe('');
    const text = fs.readFileSync(store(r).chunk(name), 'utf8');
    const a = m.entries.find((e) => e.path === 'a.txt') as Extract<ManifestEntry, { type: 'file' }>;
    const b = m.entries.find((e) => e.path === 'b.txt') as Extract<ManifestEntry, { type: 'file' }>;
    // a.txt's blob id becomes b.txt's (a blob that exists, of the same size): believed, the next checkpoint would record the wrong bytes.
    return { r, cps, id: m.id, top, rootChunk: name, poisoned: text.replace(a.blob, b.blob) };
  }

  /** What a fresh process (no chunk in memory) records for a.txt in its next workspace checkpoint. */
  function recordsA(r: string): string {
    const cps = new CheckpointService(openWorkspace(r).ws);
    const m = cps.createWorkspace('next', 'test', { kind: 'manual' });
    const a = m.entries.find((e) => e.path === 'a.txt') as Extract<ManifestEntry, { type: 'file' }>;
    return bytesOf(a, cps.blobs).toString('utf8');
  }

  function rewriteTop(r: string, id: string, top: Top): void {
    fs.writeFileSync(store(r).top(id), JSON.stringify(top));
  }

  it('control: a poisoned chunk planted whole and valid (renamed to its hash, named by the top record) would be believed', async () => {
    const { r, id, top, poisoned } = await setup();
    const name = sha(poisoned);
    fs.writeFileSync(store(r).chunk(name), poisoned);
    rewriteTop(r, id, { ...top, chunks: [['', name]] });
    expect(recordsA(r)).toBe('bbbb\n');
  });

  it('a chunk whose bytes do not hash to its name is never read as rows: the base is passed over, and reading that checkpoint fails loudly', async () => {
    const { r, id, rootChunk, poisoned } = await setup();
    fs.writeFileSync(store(r).chunk(rootChunk), poisoned);
    expect(() => new CheckpointService(openWorkspace(r).ws).get(id)).toThrow(/damaged/);
    expect(recordsA(r)).toBe('aaaa\n');
    // The next checkpoint, of the same folder, wrote the chunk again whole under its name: the old checkpoint reads again.
    expect(new CheckpointService(openWorkspace(r).ws).get(id).entries.map((e) => e.path)).toEqual(['a.txt', 'b.txt']);
  });

  it('a chunk of another folder, hashing right, is refused', async () => {
    const { r, id, top, poisoned } = await setup();
    const other = poisoned.replace('"dir":""', '"dir":"elsewhere"');
    const name = sha(other);
    fs.writeFileSync(store(r).chunk(name), other);
    rewriteTop(r, id, { ...top, chunks: [['', name]] });
    expect(() => new CheckpointService(openWorkspace(r).ws).get(id)).toThrow(/another folder/);
    expect(recordsA(r)).toBe('aaaa\n');
  });

  it('a symlink at a chunk name is not followed', async () => {
    const { r, id, rootChunk, poisoned } = await setup();
    const outside = path.join(root(), 'planted.json');
    fs.writeFileSync(outside, poisoned);
    fs.rmSync(store(r).chunk(rootChunk));
    fs.symlinkSync(outside, store(r).chunk(rootChunk));
    expect(() => new CheckpointService(openWorkspace(r).ws).get(id)).toThrow(/missing/);
    expect(recordsA(r)).toBe('aaaa\n');
    expect(fs.readFileSync(outside, 'utf8')).toBe(poisoned);
  });

  it('a missing chunk: the base is passed over, and the checkpoint is reported unreadable (never restored in part)', async () => {
    const { r, id, rootChunk } = await setup();
    fs.rmSync(store(r).chunk(rootChunk));
    write(r, 'a.txt', 'changed\n');
    expect(() => new CheckpointService(openWorkspace(r).ws).restore(id)).toThrow(/missing/);
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(recordsA(r)).toBe('changed\n');
  });

  const damaged: Array<[string, (t: Top, text: string) => string]> = [
    ['torn (cut short)', (_t, text) => text.slice(0, text.length - 9)],
    ['empty', () => ''],
    ['of another root (device and inode)', (t) => JSON.stringify({ ...t, cache: { ...t.cache, root: { dev: 1, ino: 2 } } })],
    ['with a clock in the future', (t) => JSON.stringify({ ...t, cache: { ...t.cache, clock: { ...t.cache?.clock, ms: Date.now() + 86_400_000 } } })],
    ['with a clock that is not a number', (t) => JSON.stringify({ ...t, cache: { ...t.cache, clock: { ...t.cache?.clock, ms: 'soon' } } })],
    ['with a chunk list that is not pairs', (t) => JSON.stringify({ ...t, chunks: [t.chunks[0]?.[1]] })],
  ];
  for (const [what, make] of damaged) {
    it(`a top record ${what}, naming the poisoned chunk, is no base: every file is read`, async () => {
      const { r, id, top, poisoned } = await setup();
      const name = sha(poisoned);
      fs.writeFileSync(store(r).chunk(name), poisoned);
      const planted = { ...top, chunks: [['', name]] as Array<[string, string]> };
      fs.writeFileSync(store(r).top(id), make(planted, JSON.stringify(planted)));
      expect(recordsA(r)).toBe('aaaa\n');
    });
  }

  it('a torn chunk left by a crash (same name, cut short) is rewritten whole by the next checkpoint that needs it', async () => {
    const { r, cps, rootChunk } = await setup();
    const text = fs.readFileSync(store(r).chunk(rootChunk), 'utf8');
    // The base is dropped (its chunk goes with the collector) and a torn file is left under the same name.
    write(r, 'c.txt', 'cccc\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    fs.writeFileSync(store(r).chunk(rootChunk), text.slice(0, 20));
    fs.rmSync(path.join(r, 'c.txt'));
    const third = new CheckpointService(openWorkspace(r).ws).createWorkspace('third', 'test', { kind: 'manual' });
    expect(topOf(r, third.id).chunks).toEqual([['', rootChunk]]);
    expect(fs.readFileSync(store(r).chunk(rootChunk), 'utf8')).toBe(text);
    expect(new CheckpointService(openWorkspace(r).ws).get(third.id).entries.map((e) => e.path)).toEqual(['a.txt', 'b.txt']);
    expect(second.entries.map((e) => e.path)).toEqual(['a.txt', 'b.txt', 'c.txt']);
  });
});

describe('folder chunks are shared and collected like blobs', () => {
  it('a checkpoint after a 1-file change writes one chunk; every other folder is the base’s', async () => {
    const r = root();
    for (let i = 0; i < 12; i++) write(r, `d${i % 4}/f${i}.txt`, `file ${i}\n`);
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    const first = cps.createWorkspace('first', 'test', { kind: 'manual' });
    const before = new Set(fs.readdirSync(store(r).chunksDir));
    write(r, 'd2/f2.txt', 'changed\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const added = fs.readdirSync(store(r).chunksDir).filter((n) => !before.has(n));
    expect(added).toHaveLength(1);
    const tops = [first, second].map((m) => topOf(r, m.id).chunks);
    expect(tops[1]?.filter(([d, h]) => tops[0]?.some(([d0, h0]) => d0 === d && h0 === h)).map(([d]) => d)).toEqual(['d0', 'd1', 'd3']);
  });

  it('dropping a checkpoint removes only the chunks (and blobs) no kept checkpoint names; the kept one restores exactly', async () => {
    const r = root();
    for (let i = 0; i < 6; i++) write(r, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    const first = cps.createWorkspace('first', 'test', { kind: 'manual' });
    write(r, 'd1/f1.txt', 'second version\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const kept = topOf(r, second.id).chunks.map(([, h]) => h);
    cps.drop(first.id);
    expect(fs.readdirSync(store(r).chunksDir).sort()).toEqual([...kept].sort());
    write(r, 'd1/f1.txt', 'third\n');
    fs.rmSync(path.join(r, 'd2'), { recursive: true });
    new CheckpointService(openWorkspace(r).ws).restore(second.id);
    expect(fs.readFileSync(path.join(r, 'd1/f1.txt'), 'utf8')).toBe('second version\n');
    expect(fs.readFileSync(path.join(r, 'd2/f5.txt'), 'utf8')).toBe('file 5\n');
  });

  it('a workspace manifest of the older format (one JSON of every entry) is still read, and is no base for the cache', async () => {
    const r = root();
    write(r, 'a.txt', 'aaaa\n');
    const cps = new CheckpointService(openWorkspace(r).ws);
    const m = cps.createWorkspace('first', 'test', { kind: 'manual' });
    const old: Manifest = { ...m, format: 1 };
    fs.writeFileSync(store(r).top(m.id), JSON.stringify(old));
    const fresh = new CheckpointService(openWorkspace(r).ws);
    expect(fresh.get(m.id).entries).toEqual(m.entries);
    write(r, 'a.txt', 'changed\n');
    fresh.restore(m.id);
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('aaaa\n');
  });
});

describe('a chunk a crash could lose is never named by a durable checkpoint', () => {
  it("a command's index fsyncs no chunk and lists the ones it wrote; the durable checkpoint that next reuses them fsyncs them before its top record's rename", async () => {
    const r = root();
    for (let i = 0; i < 6; i++) write(r, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    onDisk(cps);
    const events: DurableEvent[] = [];
    setDurableObserver((e) => events.push(e));
    try {
      write(r, 'd1/f1.txt', 'edited before a command\n');
      // Past the tick: the manual checkpoint below trusts the edit's stat (a racily clean file would be read again, its folder cut anew).
      await pastTick();
      const index = cps.createWorkspace('index', 'test', { kind: 'index' }, [], false, false);
      const top = topOf(r, index.id);
      const d1 = top.chunks.find(([d]) => d === 'd1')?.[1] as string;
      expect(top.unsynced).toEqual([d1]);
      const synced = (): string[] => events.flatMap((e) => (e.op === 'fsync' ? [e.path] : e.op === 'group' ? [...e.paths] : []));
      expect(synced().filter((p) => p.includes(`${path.sep}chunks`))).toEqual([]);
      events.length = 0;
      // Nothing changed since the index: the manual checkpoint reuses every chunk, and must make the index's own durable first.
      const manual = cps.createWorkspace('manual', 'test', { kind: 'manual' });
      const manualTop = topOf(r, manual.id);
      expect(manualTop.chunks).toEqual(top.chunks);
      expect(manualTop.unsynced).toBeUndefined();
      const group = events.find((e) => e.op === 'group') as Extract<DurableEvent, { op: 'group' }>;
      expect(group.paths).toContain(store(r).chunk(d1));
      expect(group.paths).toContain(store(r).chunksDir);
      const renameAt = events.findIndex((e) => e.op === 'rename');
      expect(events.indexOf(group)).toBeLessThan(renameAt);
    } finally {
      setDurableObserver(null);
    }
  });

  it('a chunk already on disk with the same bytes is kept, never replaced by a file not yet fsynced', async () => {
    const r = root();
    write(r, 'a.txt', 'aaaa\n');
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    const first = cps.createWorkspace('first', 'test', { kind: 'manual' });
    const name = topOf(r, first.id).chunks[0]?.[1] as string;
    const inode = fs.statSync(store(r).chunk(name)).ino;
    // A fresh process cuts the same folder anew (no base in memory is needed to find the same bytes).
    const again = new CheckpointService(openWorkspace(r).ws);
    fs.rmSync(store(r).top(first.id));
    again.createWorkspace('again', 'test', { kind: 'index' }, [], false, false);
    expect(fs.statSync(store(r).chunk(name)).ino).toBe(inode);
  });
});

describe("a restore's safety checkpoint", () => {
  it('records the restored paths the walk does not see in their folders’ chunks, keeps the other folders’ chunks, and reads back the same', async () => {
    const r = root();
    write(r, '.gitignore', '*.env\n');
    write(r, 'd0/a.txt', 'a\n');
    write(r, 'd1/b.txt', 'b\n');
    write(r, 'd1/c.txt', 'c\n');
    await pastTick();
    const cps = new CheckpointService(openWorkspace(r).ws);
    const before = cps.createWorkspace('before', 'test', { kind: 'manual' });
    fs.rmSync(path.join(r, 'd1/c.txt'));
    write(r, 'd1/secret.env', 'ignored\n');
    const { safety } = cps.restore(before.id);
    const m = cps.get(safety as string);
    expect(m.entries.find((e) => e.path === 'd1/c.txt')).toEqual({ path: 'd1/c.txt', type: 'absent' });
    expect(content(new CheckpointService(openWorkspace(r).ws).get(safety as string).entries)).toEqual(content(m.entries));
    const chunksOf = (id: string): Array<[string, string]> => topOf(r, id).chunks;
    const base = new Map(chunksOf(before.id));
    const after = new Map(chunksOf(safety as string));
    expect(after.get('d0')).toBe(base.get('d0'));
    expect(after.get('d1')).not.toBe(base.get('d1'));
    expect(fs.readFileSync(path.join(r, 'd1/c.txt'), 'utf8')).toBe('c\n');
  });
});

describe('a top record naming a folder twice', () => {
  it('is refused as of an unknown format, never read with paths twice', async () => {
    const r = root();
    write(r, 'a.txt', 'a\n');
    const cps = new CheckpointService(openWorkspace(r).ws);
    const m = cps.createWorkspace('first', 'test', { kind: 'manual' });
    const top = topOf(r, m.id);
    fs.writeFileSync(store(r).top(m.id), JSON.stringify({ ...top, chunks: [top.chunks[0], top.chunks[0]] }));
    expect(() => new CheckpointService(openWorkspace(r).ws).get(m.id)).toThrow(/unknown format/);
  });
});
