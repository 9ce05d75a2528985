/**
 * A checkpoint after a small edit fsyncs two things, not six: the few small
 * files it reads stay inside their folder's chunk (no blob and its fan-out
 * folder to fsync: capture.ts), and its few new chunks ride in its top
 * record (`held`: no chunk and chunk folder to fsync: chunks.ts). What that
 * must never cost: a crash that tears the unsynced chunk file loses nothing
 * (the record carries it), a later checkpoint never names that file without
 * first writing it again whole and fsyncing it, and inline bytes never pile
 * up in a chunk (the next cut of the folder stores them as blobs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointService } from '../../src/workspace/checkpoints/service.js';
import type { Manifest, ManifestEntry } from '../../src/workspace/checkpoints/types.js';
import { setDurableObserver, type DurableEvent } from '../../src/workspace/durable.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { snapshotTree, tempRoot, write } from './fixtures/checkpoint-helpers.js';

type FileEntry = Extract<ManifestEntry, { type: 'file' }>;

interface Top {
  chunks: Array<[string, string]>;
  unsynced?: string[];
  held?: Array<[string, string]>;
}

const state = (r: string) => path.join(r, '.editwarden', 'checkpoints');
const topPath = (r: string, id: string) => path.join(state(r), 'manifests', 'workspace', `${id}.json`);
const chunkPath = (r: string, name: string) => path.join(state(r), 'chunks', name);
const topOf = (r: string, id: string): Top => JSON.parse(fs.readFileSync(topPath(r, id), 'utf8')) as Top;
const fresh = (r: string) => new CheckpointService(openWorkspace(r).ws);
const fileOf = (m: Manifest, p: string) => m.entries.find((e) => e.path === p) as FileEntry;

/** Every blob file in the store. */
function blobs(r: string): string[] {
  const dir = path.join(state(r), 'blobs');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).flatMap((fan) =>
    fs
      .readdirSync(path.join(dir, fan))
      .filter((n) => !n.startsWith('.'))
      .map((n) => fan + n),
  );
}

/** Waits past the file system's timestamp tick, so files written before are trusted by the next checkpoint. */
const pastTick = () => new Promise((res) => setTimeout(res, 30));

/** 24 files in 6 folders and a settled first checkpoint (too many new folders to hold: every chunk fsynced to its file). */
async function project(): Promise<{ r: string; cps: CheckpointService; first: Manifest }> {
  const r = tempRoot('ew-held-');
  for (let i = 0; i < 24; i++) write(r, `d${i % 6}/f${i}.txt`, `file ${i}\n`);
  await pastTick();
  const cps = fresh(r);
  const first = cps.createWorkspace('first', 'test', { kind: 'manual' });
  expect(topOf(r, first.id).held).toBeUndefined();
  return { r, cps, first };
}

/** The tree as it is now comes back exactly when checkpoint `id` is restored by a fresh process after `disturb` changed it. */
function expectRestores(r: string, id: string, disturb: () => void): void {
  const snap = snapshotTree(r);
  disturb();
  fresh(r).restore(id);
  expect(snapshotTree(r)).toEqual(snap);
}

function observed(fn: () => Manifest): { manifest: Manifest; events: DurableEvent[]; synced: string[] } {
  const events: DurableEvent[] = [];
  setDurableObserver((e) => events.push(e));
  try {
    const manifest = fn();
    const synced = events.flatMap((e) => (e.op === 'fsync' ? [e.path] : e.op === 'group' ? [...e.paths] : []));
    return { manifest, events, synced };
  } finally {
    setDurableObserver(null);
  }
}

describe('an incremental workspace checkpoint keeps the few small files it reads inside their folder chunk', () => {
  it('stores no blob for them; a fresh process restores them byte-exact', async () => {
    const { r, cps } = await project();
    const before = blobs(r);
    write(r, 'd2/f2.txt', 'edited: kept inline\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    expect(blobs(r)).toEqual(before);
    expect(Buffer.from(fileOf(second, 'd2/f2.txt').inline as string, 'base64').toString()).toBe('edited: kept inline\n');
    expectRestores(r, second.id, () => {
      write(r, 'd2/f2.txt', 'edited again\n');
      fs.rmSync(path.join(r, 'd3'), { recursive: true });
    });
  });

  it('the next checkpoint that cuts the folder anew stores a blob of each file it carries over inline, and keeps the base’s entry objects unchanged', async () => {
    const { r, cps } = await project();
    write(r, 'd2/f2.txt', 'kept inline first\n');
    // Past the tick: the third checkpoint trusts this edit's stat and carries the entry over (a racily clean file is read again).
    await pastTick();
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const inlineBefore = fileOf(second, 'd2/f2.txt');
    expect(inlineBefore.inline).toBeDefined();
    write(r, 'd2/f8.txt', 'another file of the same folder\n');
    const third = cps.createWorkspace('third', 'test', { kind: 'manual' });
    const carried = fileOf(third, 'd2/f2.txt');
    expect(carried.inline).toBeUndefined();
    expect(carried.blob).toBe(inlineBefore.blob);
    expect(blobs(r)).toContain(carried.blob);
    expect(fileOf(third, 'd2/f8.txt').inline).toBeDefined();
    // The second checkpoint's own entry (shared with the capture's base) still says inline.
    expect(fileOf(second, 'd2/f2.txt').inline).toBeDefined();
    // Read back by a fresh process, the chunk of d2 carries only the file read now.
    const back = fresh(r).get(third.id);
    expect(back.entries.filter((e) => e.type === 'file' && e.inline !== undefined && e.size > 0).map((e) => e.path)).toEqual(['d2/f8.txt']);
    // A folder left alone keeps its chunk, inline bytes and all: the second checkpoint's d2 chunk is not the third's, and d2/f2.txt restores.
    write(r, 'd2/f2.txt', 'lost?\n');
    fresh(r).restore(second.id);
    expect(fs.readFileSync(path.join(r, 'd2/f2.txt'), 'utf8')).toBe('kept inline first\n');
  });

  it('keeps at most 8 files inline, each at most 16 KB; a first checkpoint keeps none', async () => {
    const { r, cps, first } = await project();
    expect(first.entries.filter((e) => e.type === 'file' && e.inline !== undefined)).toEqual([]);
    for (let i = 0; i < 12; i++) write(r, `d${i % 6}/f${i}.txt`, `edited ${i}\n`);
    write(r, 'd5/big.txt', 'x'.repeat(16 * 1024 + 1));
    write(r, 'd5/edge.txt', 'y'.repeat(16 * 1024));
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const inline = second.entries.filter((e): e is FileEntry => e.type === 'file' && e.inline !== undefined);
    expect(inline).toHaveLength(8);
    expect(inline.every((e) => e.size <= 16 * 1024)).toBe(true);
    expect(fileOf(second, 'd5/big.txt').inline).toBeUndefined();
    expect(blobs(r)).toContain(fileOf(second, 'd5/big.txt').blob);
    expectRestores(r, second.id, () => {
      for (let i = 0; i < 24; i++) write(r, `d${i % 6}/f${i}.txt`, 'overwritten\n');
    });
  });
});

describe('a durable checkpoint that cuts a few small folders anew carries their chunks in its top record', () => {
  it('fsyncs only its top record and the manifests folder; the record holds the chunk it cut, which it names and lists as unsynced', async () => {
    const { r, cps } = await project();
    write(r, 'd2/f2.txt', 'edited\n');
    const { manifest, synced } = observed(() => cps.createWorkspace('second', 'test', { kind: 'manual' }));
    const top = topOf(r, manifest.id);
    const d2 = top.chunks.find(([d]) => d === 'd2')?.[1] as string;
    expect(top.held?.map(([name]) => name)).toEqual([d2]);
    expect(top.unsynced).toEqual([d2]);
    expect(JSON.parse(top.held?.[0]?.[1] as string)).toMatchObject({ dir: 'd2' });
    // The top record's temp file and the manifests folder: no blob, no chunk, no chunk folder.
    expect(synced).toHaveLength(2);
    expect(synced.some((p) => p.includes(`${path.sep}chunks`) || p.includes(`${path.sep}blobs`))).toBe(false);
  });

  it('its chunk file torn by a crash (written, never fsynced): the checkpoint still reads and restores exactly', async () => {
    const { r, cps } = await project();
    write(r, 'd2/f2.txt', 'edited before the crash\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const d2 = topOf(r, second.id).held?.[0]?.[0] as string;
    fs.writeFileSync(chunkPath(r, d2), '');
    expect(fresh(r).get(second.id).entries).toEqual(second.entries);
    expectRestores(r, second.id, () => write(r, 'd2/f2.txt', 'after\n'));
  });

  it('the next durable checkpoint that reuses the chunk writes its file again whole and fsyncs it before its rename; it carries nothing of it, and reads without the older record', async () => {
    const { r, cps } = await project();
    write(r, 'd2/f2.txt', 'edited\n');
    // Past the tick: the next checkpoint trusts the edit's stat and reuses d2's chunk (a racily clean file is read again).
    await pastTick();
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const d2 = topOf(r, second.id).held?.[0]?.[0] as string;
    fs.writeFileSync(chunkPath(r, d2), 'torn');
    // A fresh process (the crash): its base is the second checkpoint, its chunk from the record.
    write(r, 'd4/f4.txt', 'edited in another folder\n');
    const { manifest: third, events, synced } = observed(() => fresh(r).createWorkspace('third', 'test', { kind: 'manual' }));
    const top = topOf(r, third.id);
    expect(top.chunks.find(([d]) => d === 'd2')?.[1]).toBe(d2);
    expect(top.held?.map(([name]) => name)).toEqual([top.chunks.find(([d]) => d === 'd4')?.[1]]);
    expect(top.unsynced ?? []).not.toContain(d2);
    expect(synced).toContain(chunkPath(r, d2));
    const lastRename = events.map((e) => e.op).lastIndexOf('rename');
    expect(events.findIndex((e) => (e.op === 'group' && e.paths.includes(chunkPath(r, d2))) || (e.op === 'fsync' && e.path === chunkPath(r, d2)))).toBeLessThan(lastRename);
    expect(fs.readFileSync(chunkPath(r, d2), 'utf8')).toMatch(/^\{"format":1,"dir":"d2"/);
    // Without the record that carried it, the third checkpoint reads d2 from the file, written again whole.
    fresh(r).drop(second.id);
    expectRestores(r, third.id, () => write(r, 'd2/f2.txt', 'changed after\n'));
  });

  it('a held text that does not hash to its name is never read as rows (the base is passed over, reading fails loudly); one the record does not name is of an unknown format', async () => {
    const { r, cps } = await project();
    write(r, 'd2/f2.txt', 'edited\n');
    const second = cps.createWorkspace('second', 'test', { kind: 'manual' });
    const top = topOf(r, second.id);
    const [name, text] = top.held?.[0] as [string, string];
    // The d2 chunk says f2.txt holds f3.txt's bytes: believed, a restore would write the wrong file.
    const poisoned = text.replace(fileOf(second, 'd2/f2.txt').blob, fileOf(second, 'd3/f3.txt').blob);
    expect(poisoned).not.toBe(text);
    fs.writeFileSync(topPath(r, second.id), JSON.stringify({ ...top, held: [[name, poisoned]] }));
    expect(() => fresh(r).get(second.id)).toThrow(/damaged/);
    const next = fresh(r).createWorkspace('next', 'test', { kind: 'manual' });
    expect(fileOf(next, 'd2/f2.txt').blob).toBe(fileOf(second, 'd2/f2.txt').blob);
    fs.writeFileSync(topPath(r, second.id), JSON.stringify({ ...top, held: [['0'.repeat(64), text]] }));
    expect(() => fresh(r).get(second.id)).toThrow(/unknown format/);
  });
});
