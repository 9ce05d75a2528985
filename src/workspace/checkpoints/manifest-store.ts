/**
 * Checkpoint manifests on disk: `.editwarden/checkpoints/manifests/<scope>/<id>.json`,
 * each written atomically (temp + fsync + rename), so a crash leaves either
 * the whole manifest or none. Ids sort by creation time. This module never
 * touches blobs or project files.
 *
 * Two formats, both read (`read` always returns the whole `Manifest`):
 *
 *   format 1  {"format":1,"id",...,"entries":[ENTRY,...],"dirs":[...],"absentDirs":[...]}
 *             files scope, and workspace manifests written before chunks
 *   format 2  {"format":2,"id",...,"origin":{...},"createdAt","scanStartedMs",["cache":{"root":{"dev","ino"},
 *             "clock":{"ms","dev"}},]"dirs":[...],"absentDirs":[...],"chunks":[[DIR,CHUNK],...][,"unsynced":[CHUNK,...]]
 *             [,"held":[[CHUNK,TEXT],...]]}
 *             workspace scope: the top record; each folder holding entries names its chunk (chunks.ts),
 *             folders in path order. `cache`: the root and the file system's clock before the scan, which
 *             make it the next scan's stat cache (stat-cache.ts). `unsynced`: chunks it names that were
 *             never fsynced. `held`: chunks it carries whole (TEXT: the chunk's bytes), each also named in
 *             `chunks` and `unsynced`; read from here, never from their files.
 *
 * A durable format-2 manifest never names a chunk that a crash could lose:
 * either it carries the chunk (`held`: a few small new ones, chunks.ts
 * HOLD_*), or the chunk is fsynced in one group with the top record's temp
 * file, before its rename — its other new chunks, and those its base left
 * unsynced (written again first if a crash tore them). A command's index (no
 * fsync at all: a cache, see command-index.ts) lists its unsynced chunks
 * instead, so the durable manifest that next reuses one makes it durable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteAt } from '../atomic.js';
import { BATCH_FSYNC_LIMIT, syncFileSystem } from './blob-store.js';
import { READ_FLAGS } from '../resolver.js';
import type { Resolver } from '../resolver.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import { ChunkStore, foldersOf, type FolderChunk } from './chunks.js';
import type { FsClock } from './stat-cache.js';
import { compareByPath, type CheckpointScope, type Manifest, type ManifestEntry } from './types.js';

/** What makes a workspace manifest the next scan's stat cache: the root it was taken in, the file system's clock before its scan. */
export interface CacheStamp {
  root: { dev: number; ino: number };
  clock: FsClock;
}

/** The top record of a format-2 workspace manifest, without its entries. */
export interface WorkspaceTop {
  cache: CacheStamp | null;
  dirs: string[];
  absentDirs: string[];
  /** [folder, chunk name], folders in path order. */
  chunks: Array<[string, string]>;
  /** Chunks it names that were not fsynced for it: a durable manifest reusing one makes it durable first. */
  unsynced: Set<string>;
  /** Chunks it carries whole (name → text): read from here, never from their files. */
  held: Map<string, string>;
}

type TopRecord = Omit<Manifest, 'format' | 'entries'> & { format: 2; cache?: CacheStamp; chunks: Array<[string, string]>; unsynced?: string[]; held?: Array<[string, string]> };

const SCOPES: readonly CheckpointScope[] = ['files', 'workspace'];
const ID_PATTERN = /^\d{8}-\d{6}-\d{3}-[0-9a-f]{4}$/;

export class ManifestStore {
  readonly dir: string;
  private lastStamp = '';
  private readonly folders: Record<CheckpointScope, StateFolder>;
  /** The folder chunks of workspace manifests (`<sub>/../chunks`). */
  readonly chunks: ChunkStore;

  constructor(resolver: Resolver, sub: string) {
    this.folders = { files: new StateFolder(resolver, `${sub}/files`), workspace: new StateFolder(resolver, `${sub}/workspace`) };
    this.dir = path.dirname(this.folders.files.dir);
    this.chunks = new ChunkStore(resolver, `${path.posix.dirname(sub)}/chunks`);
  }

  /** A new id: `YYYYMMDD-HHMMSS-mmm-xxxx` (UTC), sortable by time; unique within this store object even within one millisecond. */
  newId(now: Date): string {
    let stamp = formatStamp(now);
    // Two checkpoints in one ms (a restore's safety checkpoint and the next edit) must still sort in order.
    if (stamp <= this.lastStamp) stamp = formatStamp(new Date(parseStamp(this.lastStamp) + 1));
    this.lastStamp = stamp;
    return `${stamp}-${randomBytes(2).toString('hex')}`;
  }

  /**
   * Writes a manifest (temp + rename: whole or absent). Durable on return,
   * unless `deferred` is given: then the manifest and its folder are added
   * to it, and the caller makes them durable before anything relies on them.
   * A workspace manifest is written as chunks and a top record (format 2):
   * `folders` are its entries cut per folder (capture.ts; cut here when
   * absent), `cache` what makes it the next scan's stat cache.
   */
  write(manifest: Manifest, deferred?: string[], folders?: readonly FolderChunk[], cache?: CacheStamp, unsyncedBase?: ReadonlySet<string>): void {
    if (!ID_PATTERN.test(manifest.id)) throw unknownCheckpoint(manifest.id);
    const name = `${manifest.id}.json`;
    const folder = this.folders[manifest.scope];
    let bytes: Buffer;
    const durableFirst: string[] = [];
    if (manifest.scope === 'workspace') {
      const cut = folders ?? foldersOf(manifest.entries);
      // A deferred manifest (a command's index) is not durable itself: its chunks need not be either, but it says which are not.
      const { names, unsynced, held } = this.chunks.write(cut, deferred === undefined ? durableFirst : null, unsyncedBase);
      const { format: _format, entries: _entries, dirs, absentDirs, ...meta } = manifest;
      const top: TopRecord = {
        format: 2,
        ...meta,
        ...(cache ? { cache } : {}),
        dirs,
        absentDirs,
        chunks: cut.map((f, i) => [f.chunk.dir, names[i] as string]),
        ...(unsynced.length > 0 ? { unsynced } : {}),
        ...(held.length > 0 ? { held } : {}),
      };
      bytes = Buffer.from(JSON.stringify(top));
    } else {
      bytes = Buffer.from(JSON.stringify(manifest));
    }
    // Many new chunks (a first checkpoint, a restore's safety checkpoint): one sync of the file system, not an fsync each.
    if (durableFirst.length > BATCH_FSYNC_LIMIT) {
      syncFileSystem(this.chunks.dir);
      durableFirst.length = 0;
    }
    // The chunks go in one group with the temp file's fsync, before the rename: never a durable top record naming a chunk a crash could lose.
    folder.with(true, undefined, (dir) => atomicWriteAt(dir, name, bytes, { mode: 0o644, noSync: deferred !== undefined, durableFirst }));
    deferred?.push(path.join(folder.dir, name), folder.dir);
  }

  /** Ids of every manifest, oldest first (optionally of one scope). */
  ids(scope?: CheckpointScope): Array<{ id: string; scope: CheckpointScope }> {
    return [...this.listed(scope ? [scope] : SCOPES)].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Each manifest's id as its folder lists it, unsorted (a folder that cannot be read lists nothing). */
  private *listed(scopes: readonly CheckpointScope[]): Generator<{ id: string; scope: CheckpointScope }> {
    for (const s of scopes) {
      let names: string[];
      try {
        names = this.folders[s].with(false, [] as string[], (dir) => fs.readdirSync(dir.self));
      } catch {
        continue;
      }
      for (const name of names) {
        if (!name.endsWith('.json')) continue;
        const id = name.slice(0, -'.json'.length);
        if (ID_PATTERN.test(id)) yield { id, scope: s };
      }
    }
  }

  /**
   * The id of the newest manifest of any scope (ids sort by time), or null:
   * what every write's event names. One pass over the listings, no list of
   * every id built and sorted — a write's cost must not grow with the
   * checkpoints a long session has kept.
   */
  newest(): string | null {
    let newest: string | null = null;
    for (const { id } of this.listed(SCOPES)) if (newest === null || id > newest) newest = id;
    return newest;
  }

  scopeOf(id: string): CheckpointScope | null {
    // Ids come from journal records and requests too: never build a path from one that is not an id.
    if (!ID_PATTERN.test(id)) return null;
    for (const s of SCOPES) if (this.folders[s].with(false, false, (dir) => fs.existsSync(dir.at(`${id}.json`)))) return s;
    return null;
  }

  read(id: string): Manifest {
    const { scope, parsed } = this.parse(id);
    if (scope === 'workspace' && typeof parsed === 'object' && parsed !== null && (parsed as { format?: unknown }).format === 2) {
      const top = parsed as TopRecord;
      const shape = checkTop(top, id);
      const entries: ManifestEntry[] = [];
      for (const chunk of this.chunks.getAll(shape.chunks, id, shape.held)) for (const e of chunk.entries) entries.push(e);
      // Each chunk is in name order; a folder's files and its subfolders' interleave in path order.
      entries.sort(compareByPath);
      const { format: _format, chunks: _chunks, cache: _cache, unsynced: _unsynced, held: _held, ...meta } = top;
      return { format: 1, ...meta, entries };
    }
    const manifest = parsed as Manifest;
    if (typeof manifest !== 'object' || manifest === null || manifest.format !== 1 || manifest.id !== id || manifest.scope !== scope || !Array.isArray(manifest.entries)) throw unknownFormat(id);
    return manifest;
  }

  /** A format-2 workspace manifest's top record (no chunk read); null for a format-1 manifest. Throws when it is unreadable. */
  readTop(id: string): WorkspaceTop | null {
    const { scope, parsed } = this.parse(id);
    if (scope !== 'workspace' || typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== 2) return null;
    return checkTop(parsed as TopRecord, id);
  }

  private parse(id: string): { scope: CheckpointScope; parsed: unknown } {
    if (!ID_PATTERN.test(id)) throw unknownCheckpoint(id);
    const scope = this.scopeOf(id);
    if (scope === null) throw unknownCheckpoint(id);
    try {
      return { scope, parsed: JSON.parse(this.folders[scope].with(false, Buffer.from('null'), (dir) => readStateFile(dir, `${id}.json`)).toString('utf8')) };
    } catch (error) {
      throw new EditwardenError(
        {
          code: ErrorCode.IO,
          message: `Checkpoint ${id} has an unreadable manifest.`,
          hint: 'The checkpoint store was changed by hand or damaged; drop this checkpoint and use another.',
        },
        { cause: error },
      );
    }
  }

  /**
   * Removes every chunk no workspace manifest names. Under the root lock, with
   * the blob collector (prune.ts). A top record that cannot be read keeps
   * nothing alive: that checkpoint is unreadable already.
   */
  collectChunks(): number {
    const live = new Set<string>();
    for (const { id } of this.ids('workspace')) {
      try {
        for (const [, hash] of this.readTop(id)?.chunks ?? []) live.add(hash);
      } catch {
        // Damaged: listed as such; its chunks cannot make it readable.
      }
    }
    return this.chunks.collect(live);
  }

  /**
   * Whether manifest `id` is of origin `index`, from its first bytes only (a
   * 50k-file manifest is an 11 MB JSON: parsing it just to read its origin
   * cost as much as the command's walk). `save` writes `origin` before
   * `entries`, and inside a JSON string a quote is escaped, so the unescaped
   * text below can only be the origin itself.
   */
  isIndex(id: string): boolean {
    const scope = this.scopeOf(id);
    if (scope === null) return false;
    try {
      const head = this.folders[scope].with(false, '', (dir) => {
        const fd = fs.openSync(dir.at(`${id}.json`), READ_FLAGS);
        try {
          const buf = Buffer.alloc(4096);
          return buf.toString('utf8', 0, fs.readSync(fd, buf, 0, buf.length, 0));
        } finally {
          fs.closeSync(fd);
        }
      });
      const entries = head.indexOf('"entries":');
      const origin = head.indexOf(',"origin":{"kind":"index"},');
      // Format 2 keeps "origin" before "chunks" as format 1 keeps it before "entries"; only a top-level key is unescaped.
      const chunks = head.indexOf('"chunks":');
      const start = head.startsWith(`{"format":1,"id":"${id}",`) || head.startsWith(`{"format":2,"id":"${id}",`);
      return start && origin !== -1 && (entries === -1 || origin < entries) && (chunks === -1 || origin < chunks);
    } catch {
      return false;
    }
  }

  /** The newest workspace manifest, for incremental checkpoints; null when there is none. */
  latestWorkspace(): Manifest | null {
    const ids = this.ids('workspace');
    for (let i = ids.length - 1; i >= 0; i--) {
      try {
        return this.read((ids[i] as { id: string }).id);
      } catch {
        // A damaged manifest is no base for reuse; try an older one.
      }
    }
    return null;
  }

  /** Removes a manifest (its chunks and blobs stay for the garbage collector); with `durable` false, the removal is not fsynced. */
  remove(id: string, durable = true): void {
    const scope = this.scopeOf(id);
    if (scope === null) throw unknownCheckpoint(id);
    this.folders[scope].with(false, undefined, (dir) => {
      fs.rmSync(dir.at(`${id}.json`), { force: true });
      if (durable) dir.fsync();
    });
  }
}

function unknownFormat(id: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.IO,
    message: `Checkpoint ${id} has a manifest of an unknown format.`,
    hint: 'It was written by another editwarden version; use that version or drop the checkpoint.',
  });
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The checked shape of a format-2 top record; unknownFormat when a field is not what the grammar says. */
function checkTop(top: TopRecord, id: string): WorkspaceTop {
  if (top.id !== id || top.scope !== 'workspace' || !isStrings(top.dirs) || !isStrings(top.absentDirs) || !Array.isArray(top.chunks)) throw unknownFormat(id);
  if (top.unsynced !== undefined && !isStrings(top.unsynced)) throw unknownFormat(id);
  let last: string | null = null;
  const named = new Set<string>();
  for (const pair of top.chunks) {
    if (!isPair(pair)) throw unknownFormat(id);
    // Folders in strictly increasing order: a folder named twice would give its paths twice.
    if (last !== null && !(last < pair[0])) throw unknownFormat(id);
    last = pair[0];
    named.add(pair[1]);
  }
  const unsynced = new Set(top.unsynced ?? []);
  const held = new Map<string, string>();
  if (top.held !== undefined) {
    if (!Array.isArray(top.held)) throw unknownFormat(id);
    // A held chunk is one this record names, and one a manifest reusing it must make durable (so it is unsynced too).
    for (const pair of top.held) {
      if (!isPair(pair) || !named.has(pair[0]) || !unsynced.has(pair[0])) throw unknownFormat(id);
      held.set(pair[0], pair[1]);
    }
  }
  const c = top.cache;
  const cache =
    typeof c === 'object' && c !== null && typeof c.root === 'object' && c.root !== null && isNum(c.root.dev) && isNum(c.root.ino) && typeof c.clock === 'object' && c.clock !== null && isNum(c.clock.ms) && isNum(c.clock.dev) ? c : null;
  return { cache, dirs: top.dirs, absentDirs: top.absentDirs, chunks: top.chunks, unsynced, held };
}

const isPair = (v: unknown): v is [string, string] => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';

export function unknownCheckpoint(id: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NOT_FOUND,
    message: `There is no checkpoint ${JSON.stringify(id)}.`,
    hint: 'Run `editwarden checkpoint list` to see the checkpoint ids of this root.',
  });
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function formatStamp(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}-` + `${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}-${pad(d.getUTCMilliseconds(), 3)}`;
}

function parseStamp(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})$/.exec(stamp);
  if (!m) return Date.now();
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s, ms);
}
