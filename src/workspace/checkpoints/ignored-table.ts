/**
 * The table of the ignored files a command's checkpoint covers
 * (ignored.ts): per file its path, its lstat as a cache key, when its bytes
 * were last read, and the blob that holds them — or why none does (over a
 * cap, unreadable). It is to the ignored files what the stat cache is to the
 * tracked ones: a file whose stat is the recorded one is not read again, so
 * ignored files enter the store once and again only when their stat changes.
 *
 * `.editwarden/checkpoints/ignored-table`, binary, so a table of 20,000
 * files is read in a millisecond or two (a JSON of it cost more than the
 * walk): the magic line, a u32 length and a JSON header (count, symlink
 * targets, reasons), a u32 length and the paths NUL-separated (a path holds
 * no NUL), zero padding to 8 bytes, FIELDS float64 per entry, then 32 bytes
 * of sha256 per entry (all zero: no blob). Written without fsync: it is a
 * cache; a torn or missing table only makes the next command read every
 * ignored file again. It names blobs, so the garbage collector keeps them
 * (service.ts `collect`). State: read through the state folder, every path
 * checked again before a step names it, a damaged table read as empty.
 */
import { atomicWriteAt } from '../atomic.js';
import { readStateFile, StateFolder } from '../state-dir.js';
import type { Resolver } from '../resolver.js';

const FILE = 'ignored-table';
const MAGIC = Buffer.from('editwarden-ignored 1\n');
/** size, mtimeMs, ctimeMs, ino, mode, uid, gid, verifiedMs (the scan start of the last read of its bytes), kind (0 file, 1 symlink). */
const FIELDS = 9;
const HASH_BYTES = 32;
/** How long a blob the table stopped naming is still kept from the garbage collector (a command running meanwhile may name it in its step). */
const RETIRED_MS = 60 * 60 * 1000;
const BLOB = /^[0-9a-f]{64}$/;
const ZERO_HEX = '0'.repeat(HASH_BYTES * 2);

/** Why an ignored file has no blob: over `checkpoints.ignored.max_file_bytes`, over the project's ignored store, or it could not be read. */
export type NotKeptWhy = 'file-cap' | 'store-cap' | 'unreadable';

export interface IgnoredRecord {
  path: string;
  kind: 'file' | 'symlink';
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Permission bits. */
  mode: number;
  uid: number;
  gid: number;
  /** Scan start (wall ms) of the last time its bytes were read and hashed: a file changed within the racy margin of it is read again. */
  verifiedMs: number;
  /** sha256 of its bytes, the blob that holds them; null: not kept (`why`). */
  blob: string | null;
  why?: NotKeptWhy;
  /** A symlink's target. */
  target?: string;
}

interface Header {
  count: number;
  /** Blobs the table named until a write within RETIRED_MS replaced them: a command that began before still names them. */
  retired: Array<[string, number]>;
  /** Index → symlink target. */
  targets: Record<string, string>;
  /** Index → why a file has no blob. */
  why: Record<string, NotKeptWhy>;
}

export class IgnoredTable {
  private readonly folder: StateFolder;

  constructor(resolver: Resolver, sub: string) {
    this.folder = new StateFolder(resolver, sub);
  }

  /** The records, sorted by path; empty when there is no table or it is damaged (the next capture reads every file). */
  read(): IgnoredRecord[] {
    return this.load().records;
  }

  /** Replaces the table (records sorted by path); the blobs `old` named that `records` do not stay retired for RETIRED_MS. */
  write(records: readonly IgnoredRecord[], old: readonly IgnoredRecord[]): void {
    const now = Date.now();
    const named = new Set(records.map((r) => r.blob));
    const retired = new Map(this.load().retired.filter(([hash, at]) => now - at < RETIRED_MS && !named.has(hash)));
    for (const r of old) if (r.blob !== null && !named.has(r.blob) && !retired.has(r.blob)) retired.set(r.blob, now);
    this.folder.with(true, undefined, (dir) => atomicWriteAt(dir, FILE, encode(records, [...retired]), { mode: 0o644, noSync: true }));
  }

  /** Every blob the table names or retired within RETIRED_MS. */
  liveBlobs(): Set<string> {
    const { records, retired } = this.load();
    const out = new Set<string>();
    for (const r of records) if (r.blob !== null) out.add(r.blob);
    for (const [hash] of retired) out.add(hash);
    return out;
  }

  private load(): Decoded {
    let bytes: Buffer;
    try {
      bytes = this.folder.with(false, Buffer.alloc(0), (dir) => readStateFile(dir, FILE));
    } catch {
      return { records: [], retired: [] };
    }
    try {
      return decode(bytes);
    } catch {
      return { records: [], retired: [] };
    }
  }
}

interface Decoded {
  records: IgnoredRecord[];
  retired: Array<[string, number]>;
}

export function encode(records: readonly IgnoredRecord[], retired: Array<[string, number]> = []): Buffer {
  const header: Header = { count: records.length, retired, targets: {}, why: {} };
  const nums = new Float64Array(records.length * FIELDS);
  const hashes = Buffer.alloc(records.length * HASH_BYTES);
  records.forEach((r, i) => {
    if (r.target !== undefined) header.targets[i] = r.target;
    if (r.why !== undefined) header.why[i] = r.why;
    nums.set([r.size, r.mtimeMs, r.ctimeMs, r.ino, r.mode, r.uid, r.gid, r.verifiedMs, r.kind === 'symlink' ? 1 : 0], i * FIELDS);
    if (r.blob !== null) hashes.write(r.blob, i * HASH_BYTES, 'hex');
  });
  const head = Buffer.from(JSON.stringify(header));
  const paths = Buffer.from(records.map((r) => r.path).join('\0'));
  const before = MAGIC.length + 4 + head.length + 4 + paths.length;
  const pad = (8 - (before % 8)) % 8;
  const out = Buffer.alloc(before + pad + nums.byteLength + hashes.length);
  let o = MAGIC.copy(out, 0);
  o = out.writeUInt32LE(head.length, o);
  o += head.copy(out, o);
  o = out.writeUInt32LE(paths.length, o);
  o += paths.copy(out, o);
  o += pad;
  o += Buffer.from(nums.buffer).copy(out, o);
  hashes.copy(out, o);
  return out;
}

export function decode(bytes: Buffer): Decoded {
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not an ignored-files table');
  let o = MAGIC.length;
  const headLength = bytes.readUInt32LE(o);
  o += 4;
  const header = JSON.parse(bytes.toString('utf8', o, o + headLength)) as Header;
  o += headLength;
  const pathsLength = bytes.readUInt32LE(o);
  o += 4;
  const count = header.count;
  const paths = count === 0 ? [] : bytes.toString('utf8', o, o + pathsLength).split('\0');
  o += pathsLength;
  o += (8 - (o % 8)) % 8;
  if (!Number.isSafeInteger(count) || paths.length !== count || bytes.length !== o + count * (FIELDS * 8 + HASH_BYTES)) throw new Error('a damaged ignored-files table');
  // A copy: the Buffer's offset need not be 8-aligned for a Float64Array over it.
  const nums = new Float64Array(bytes.buffer.slice(bytes.byteOffset + o, bytes.byteOffset + o + count * FIELDS * 8));
  const hashesAt = o + count * FIELDS * 8;
  // One hex conversion for every hash, sliced per record (one per record cost a fifth of the read).
  const hex = bytes.toString('hex', hashesAt, hashesAt + count * HASH_BYTES);
  const out: IgnoredRecord[] = new Array(count);
  let previous = '';
  for (let i = 0; i < count; i++) {
    const path = paths[i] as string;
    // Out of order: refused (the merges rely on it). A path is not checked here: only a record whose path the walk
    // listed again is ever used (ignored.ts), and every path a step names is checked when the step is written.
    if (i > 0 && !(previous < path)) throw new Error('an ignored-files table out of order');
    previous = path;
    const n = i * FIELDS;
    const hash = hex.slice(i * HASH_BYTES * 2, (i + 1) * HASH_BYTES * 2);
    const record: IgnoredRecord = {
      path,
      kind: nums[n + 8] === 1 ? 'symlink' : 'file',
      size: nums[n] as number,
      mtimeMs: nums[n + 1] as number,
      ctimeMs: nums[n + 2] as number,
      ino: nums[n + 3] as number,
      mode: nums[n + 4] as number,
      uid: nums[n + 5] as number,
      gid: nums[n + 6] as number,
      verifiedMs: nums[n + 7] as number,
      blob: hash === ZERO_HEX ? null : hash,
    };
    const why = header.why[i];
    if (why === 'file-cap' || why === 'store-cap' || why === 'unreadable') record.why = why;
    const target = header.targets[i];
    if (typeof target === 'string') record.target = target;
    out[i] = record;
  }
  const retired = Array.isArray(header.retired) ? header.retired.filter((x): x is [string, number] => Array.isArray(x) && BLOB.test(String(x[0])) && typeof x[1] === 'number') : [];
  return { records: out, retired };
}
