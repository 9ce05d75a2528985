/**
 * The folder chunks of workspace manifests, as git's trees: one file per
 * folder's entries, named by the sha256 of its bytes, under
 * `.editwarden/checkpoints/chunks/<hash>`, shared by every manifest whose
 * folder holds exactly those entries (same names, stats, blobs). A workspace
 * checkpoint after a 1-file change writes one chunk, not the whole tree.
 *
 * Grammar of a chunk (one JSON value, UTF-8):
 *
 *   chunk  = {"format":1,"dir":DIR,"rows":[ROW,...]}     rows sorted by name, names unique
 *   ROW    = [NAME,"f",BLOB,SIZE,MODE,MTIME,CTIME,INO,UID,GID,DEV(,INLINE)]   a file; DEV: the device its
 *                                     stat was read on (-1: unknown, never trusted); INLINE: its bytes, base64
 *                                     (an empty file: a capture keeps no blob of nothing)
 *          | [NAME,"l",TARGET]                                    a symlink
 *          | [NAME,"a"]                                           nothing (a restore's extra path)
 *   DIR    = the folder, relative to the root ("" for the root); NAME has no "/"
 *
 * It must never hand out rows other than the bytes named: a chunk is read
 * without following a symlink and trusted only if its sha256 is its name and
 * its `dir` the folder asked for; anything else is an error, never a guess.
 * Chunks are written by temp file + rename and fsynced (in one group with the
 * manifest that names them, manifest-store.ts) before that manifest exists.
 * Removed only by the garbage collector, under the root lock.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { observe } from '../durable.js';
import type { DirHandle, Resolver } from '../resolver.js';
import { BLOB_ID, readStateFile, StateFolder } from '../state-dir.js';
import type { ManifestEntry } from './types.js';

const CHUNK_FORMAT = 1;
const FILE = 'f';
const LINK = 'l';
const ABSENT = 'a';

/** One folder's entries (full root-relative paths, sorted) and, per entry, the device a file's stat was read on (-1: none). */
export interface Chunk {
  dir: string;
  entries: ManifestEntry[];
  devs: number[];
}

/** A folder of a manifest: its chunk, and the chunk's name when it is known already (reused unchanged; null: to be hashed). */
export interface FolderChunk {
  hash: string | null;
  chunk: Chunk;
}

/**
 * A durable manifest that cuts at most this many folders anew, in at most
 * this many bytes of chunks, carries them in its top record (fsynced anyway)
 * instead of fsyncing each chunk and the chunk folder: a checkpoint after a
 * small edit then fsyncs two things (its top record, its folder), not four.
 */
const HOLD_MAX_CHUNKS = 4;
const HOLD_MAX_BYTES = 64 * 1024;

export class ChunkStore {
  readonly dir: string;
  private readonly folder: StateFolder;
  /**
   * Chunks of the last manifest this process wrote or loaded as a base, by
   * name. Content-addressed, so a hit is the bytes the name stands for; what
   * must be true on disk (the file exists) is the caller's to know.
   */
  private memory = new Map<string, Chunk>();

  constructor(resolver: Resolver, sub: string) {
    this.folder = new StateFolder(resolver, sub);
    this.dir = this.folder.dir;
  }

  /**
   * Writes the chunks of `folders` whose name is not known yet and returns
   * every folder's name, in order. A chunk already on disk with exactly these
   * bytes is kept (it may be the durable file an older manifest names: never
   * replaced by bytes not yet on disk); a missing or different one (a torn
   * leftover of a crash, which no durable manifest names) is written by temp
   * + rename. Nothing is fsynced here.
   *
   * `durable` given (a durable manifest): the paths to fsync before the top
   * record's rename are added to it — every chunk written or kept now, and
   * every reused one in `unsyncedBase` (not fsynced for the base that named
   * it: written again first when the file is not exactly its bytes, since a
   * crash may have torn it). Except the held ones: when this manifest cuts
   * only a few small folders anew (HOLD_*), their chunks are written without
   * an fsync and returned in `held` ([name, text]), for the top record to
   * carry, and in `unsynced`. `durable` null (a command's index): nothing is
   * to be fsynced, and the names this manifest relies on without their being
   * known durable are returned in `unsynced`, for its top record.
   */
  write(folders: readonly FolderChunk[], durable: string[] | null, unsyncedBase: ReadonlySet<string> = new Set()): { names: string[]; unsynced: string[]; held: Array<[string, string]> } {
    const names: string[] = new Array<string>(folders.length);
    const unsynced: string[] = [];
    // `cut`: a folder cut anew by this manifest (may be held), not a base's unsynced chunk written again.
    const fresh: Array<{ name: string; bytes: Buffer; cut: boolean }> = [];
    const needSync = (name: string): void => {
      if (durable === null) unsynced.push(name);
      else durable.push(path.join(this.dir, name));
    };
    let cut = 0;
    let cutBytes = 0;
    for (let i = 0; i < folders.length; i++) {
      const f = folders[i] as FolderChunk;
      if (f.hash !== null && !(durable !== null && unsyncedBase.has(f.hash))) {
        names[i] = f.hash;
        if (unsyncedBase.has(f.hash)) needSync(f.hash);
        continue;
      }
      // New, or the base's unsynced chunk a durable manifest relies on: its bytes, to write when the file is not them.
      const bytes = Buffer.from(encodeChunk(f.chunk), 'utf8');
      const name = createHash('sha256').update(bytes).digest('hex');
      names[i] = name;
      fresh.push({ name, bytes, cut: f.hash === null });
      if (f.hash === null) {
        cut++;
        cutBytes += bytes.length;
      }
    }
    // Only the chunks cut now are held; a base's unsynced chunk reused here is made durable, so the next manifest need not.
    const hold = durable !== null && cut > 0 && cut <= HOLD_MAX_CHUNKS && cutBytes <= HOLD_MAX_BYTES;
    const held: Array<[string, string]> = [];
    if (fresh.length > 0) {
      this.folder.with(true, undefined, (dir) => {
        for (const { name, bytes, cut: isCut } of fresh) {
          if (hold && isCut) {
            held.push([name, bytes.toString('utf8')]);
            unsynced.push(name);
          } else needSync(name);
          if (sameFile(dir.at(name), bytes)) continue;
          const temp = dir.at(`.tmp-${randomBytes(6).toString('hex')}`);
          // "wx": a planted file or link at the temp name is never written through.
          const fd = fs.openSync(temp, 'wx', 0o644);
          try {
            let off = 0;
            while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
          } finally {
            fs.closeSync(fd);
          }
          fs.renameSync(temp, dir.at(name));
          observe({ op: 'rename', from: 'temp', to: path.join(this.dir, name) });
        }
      });
    }
    if (durable !== null && durable.length > 0) durable.push(this.dir);
    const memory = new Map<string, Chunk>();
    for (let i = 0; i < folders.length; i++) memory.set(names[i] as string, (folders[i] as FolderChunk).chunk);
    this.memory = memory;
    return { names, unsynced, held };
  }

  /**
   * The chunks of `pairs` ([folder, name]), in order, for checkpoint `owner`;
   * an EditwardenError when one is missing, damaged or of another folder.
   * The chunk folder is opened once for all of them.
   */
  getAll(pairs: ReadonlyArray<readonly [string, string]>, owner: string, held: ReadonlyMap<string, string> = new Map()): Chunk[] {
    const out: Chunk[] = new Array<Chunk>(pairs.length);
    let opened: DirHandle | null | undefined;
    try {
      for (let i = 0; i < pairs.length; i++) {
        const [dir, name] = pairs[i] as readonly [string, string];
        const known = this.memory.get(name);
        if (known !== undefined && known.dir === dir) {
          out[i] = known;
          continue;
        }
        // Carried by the top record itself: its file may be torn by a crash (never fsynced), so it is not read.
        const text = held.get(name);
        if (text !== undefined) {
          out[i] = checkChunk(Buffer.from(text, 'utf8'), dir, name, owner);
          continue;
        }
        if (opened === undefined) opened = this.folder.open(false);
        out[i] = readChunk(opened, dir, name, owner);
      }
    } finally {
      opened?.close();
    }
    return out;
  }

  /** Keeps `chunks` as the ones to answer from memory (a base just loaded). */
  remember(chunks: ReadonlyMap<string, Chunk>): void {
    this.memory = new Map(chunks);
  }

  /** Removes every chunk (and leftover temp file) whose name is not in `live`; returns how many chunks went. */
  collect(live: ReadonlySet<string>): number {
    let removed = 0;
    this.folder.with(false, undefined, (dir) => {
      for (const name of fs.readdirSync(dir.self)) {
        const isChunk = BLOB_ID.test(name);
        if (isChunk && live.has(name)) continue;
        if (!isChunk && !name.startsWith('.tmp-')) continue;
        fs.rmSync(dir.at(name), { force: true });
        if (isChunk) {
          removed++;
          this.memory.delete(name);
        }
      }
      dir.fsync();
    });
    return removed;
  }
}

/** Sorted entries cut into one chunk per folder (folders in path order), devices unknown. */
export function foldersOf(entries: readonly ManifestEntry[]): FolderChunk[] {
  const byDir = new Map<string, Chunk>();
  for (const e of entries) {
    const slash = e.path.lastIndexOf('/');
    const dir = slash === -1 ? '' : e.path.slice(0, slash);
    let chunk = byDir.get(dir);
    if (chunk === undefined) {
      chunk = { dir, entries: [], devs: [] };
      byDir.set(dir, chunk);
    }
    chunk.entries.push(e);
    chunk.devs.push(-1);
  }
  return [...byDir.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)).map((chunk) => ({ hash: null, chunk }));
}

function chunkError(owner: string, dir: string, name: string, why: string, cause?: unknown): EditwardenError {
  return new EditwardenError(
    {
      code: ErrorCode.IO,
      message: `Checkpoint ${owner} names a chunk of folder ${JSON.stringify(dir)} that is ${why} (${name.slice(0, 12)}…).`,
      hint: 'The checkpoint store was changed by hand or damaged; this checkpoint cannot be read exactly. Use another checkpoint.',
    },
    cause === undefined ? undefined : { cause },
  );
}

/** Reads and checks one chunk in the opened chunk folder (null: there is none). */
function readChunk(folder: DirHandle | null, dir: string, name: string, owner: string): Chunk {
  if (!BLOB_ID.test(name)) throw chunkError(owner, dir, name, 'not a chunk name');
  if (folder === null) throw chunkError(owner, dir, name, 'missing');
  let bytes: Buffer;
  try {
    // Not followed if a link, and a regular file only (state-dir.ts).
    bytes = readStateFile(folder, name);
  } catch (error) {
    throw chunkError(owner, dir, name, 'missing', error);
  }
  return checkChunk(bytes, dir, name, owner);
}

/** The rows of a chunk's bytes, read from its file or carried by a top record: only if they hash to its name and are of folder `dir`. */
function checkChunk(bytes: Buffer, dir: string, name: string, owner: string): Chunk {
  const fail = (why: string, cause?: unknown): EditwardenError => chunkError(owner, dir, name, why, cause);
  if (!BLOB_ID.test(name)) throw fail('not a chunk name');
  // Content-addressed: bytes that do not hash to their name are damaged (or planted), never read as rows.
  if (createHash('sha256').update(bytes).digest('hex') !== name) throw fail('damaged');
  let chunk: Chunk | null;
  try {
    chunk = decodeChunk(bytes.toString('utf8'));
  } catch (error) {
    throw fail('malformed', error);
  }
  if (chunk === null) throw fail('malformed');
  if (chunk.dir !== dir) throw fail(`of another folder (${JSON.stringify(chunk.dir)})`);
  return chunk;
}

/** Whether the regular file at `abs` (not followed if a link) holds exactly `bytes`. */
function sameFile(abs: string, bytes: Buffer): boolean {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size !== bytes.length) return false;
    return fs.readFileSync(fd).equals(bytes);
  } finally {
    fs.closeSync(fd);
  }
}

function encodeChunk(chunk: Chunk): string {
  const prefix = chunk.dir === '' ? 0 : chunk.dir.length + 1;
  const rows: unknown[] = new Array<unknown>(chunk.entries.length);
  for (let i = 0; i < chunk.entries.length; i++) {
    const e = chunk.entries[i] as ManifestEntry;
    const name = e.path.slice(prefix);
    if (e.type === 'file') {
      const row = [name, FILE, e.blob, e.size, e.mode, e.mtimeMs, e.ctimeMs, e.ino, e.uid ?? -1, e.gid ?? -1, chunk.devs[i] ?? -1];
      if (e.inline !== undefined) row.push(e.inline);
      rows[i] = row;
    } else if (e.type === 'symlink') rows[i] = [name, LINK, e.target];
    else rows[i] = [name, ABSENT];
  }
  return JSON.stringify({ format: CHUNK_FORMAT, dir: chunk.dir, rows });
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isName = (v: unknown): v is string => typeof v === 'string' && v !== '' && v !== '.' && v !== '..' && !v.includes('/') && !v.includes('\0');

/** A chunk from its text; null when any field is not what the grammar says. */
function decodeChunk(text: string): Chunk | null {
  const data = JSON.parse(text) as { format?: unknown; dir?: unknown; rows?: unknown };
  if (typeof data !== 'object' || data === null || data.format !== CHUNK_FORMAT || typeof data.dir !== 'string' || !Array.isArray(data.rows)) return null;
  const dir = data.dir;
  const base = dir === '' ? '' : `${dir}/`;
  const entries: ManifestEntry[] = new Array<ManifestEntry>(data.rows.length);
  const devs: number[] = new Array<number>(data.rows.length);
  let last = '';
  for (let i = 0; i < data.rows.length; i++) {
    const row = data.rows[i] as unknown[];
    if (!Array.isArray(row) || !isName(row[0])) return null;
    const name = row[0];
    // Sorted and unique: a manifest's entries are in path order, one per path.
    if (i > 0 && !(last < name)) return null;
    last = name;
    const p = base + name;
    devs[i] = -1;
    if (row[1] === FILE && (row.length === 11 || (row.length === 12 && typeof row[11] === 'string'))) {
      const [, , blob, size, mode, mtimeMs, ctimeMs, ino, uid, gid, dev, inline] = row;
      if (typeof blob !== 'string' || !BLOB_ID.test(blob) || !isNum(size) || !isNum(mode) || !isNum(mtimeMs) || !isNum(ctimeMs) || !isNum(ino) || !isNum(uid) || !isNum(gid) || !isNum(dev)) return null;
      const entry: ManifestEntry = { path: p, type: 'file', blob, size, mode, mtimeMs, ctimeMs, ino };
      if (typeof inline === 'string') entry.inline = inline;
      if (uid !== -1) entry.uid = uid;
      if (gid !== -1) entry.gid = gid;
      entries[i] = entry;
      devs[i] = dev;
    } else if (row[1] === LINK && row.length === 3 && typeof row[2] === 'string') entries[i] = { path: p, type: 'symlink', target: row[2] };
    else if (row[1] === ABSENT && row.length === 2) entries[i] = { path: p, type: 'absent' };
    else return null;
  }
  return { dir, entries, devs };
}
