/**
 * Content-addressed storage of file bytes for checkpoints:
 * `.editwarden/checkpoints/blobs/<aa>/<sha256>`. A blob is written once
 * (temp + rename, so a reader never sees half a blob) and never changed.
 * It must never be written anywhere but under its own folder, and it never
 * deletes a blob on its own: only the garbage collector (prune.ts) does, under
 * the root lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { fsyncDir } from '../atomic.js';
import { sha256 } from '../workspace.js';
import { occupiedBytes, StoreBudget } from './budget.js';

/** How hard a put must work to make the blob durable. */
export type Durability =
  /** fsync the blob and its folder now: for the few files of a transaction. */
  | 'each'
  /** Leave it to `flush()`: one file-system sync after many blobs (workspace checkpoints). */
  | 'batch';

export class BlobStore {
  readonly dir: string;
  private readonly pendingDirs = new Set<string>();
  /** Fan-out folders known to exist (saves a mkdir per blob in a 50,000-file checkpoint). */
  private readonly madeDirs = new Set<string>();
  /** Blobs written in 'batch' mode since the last flush. */
  private readonly pendingBatch: string[] = [];
  /** Size accounting (checkpoints.max_file_bytes / max_total_bytes); none: unbounded (tests of the store alone). */
  budget: StoreBudget | null = null;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Refuses a file over checkpoints.max_file_bytes before it is read. */
  admit(rel: string, size: number): void {
    this.budget?.admitFile(rel, size);
  }

  /** Bytes every stored blob occupies (a recount for the budget's ledger). */
  occupied(): number {
    let total = 0;
    for (const hash of this.listAll()) total += this.occupiedOf(hash);
    return total;
  }

  /** Bytes one blob occupies on disk (0 when it is gone). */
  occupiedOf(hash: string): number {
    try {
      return occupiedBytes(fs.statSync(this.pathOf(hash)));
    } catch {
      return 0;
    }
  }

  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    return fs.existsSync(this.pathOf(hash));
  }

  /** Stores bytes; returns their sha256. A blob that already exists is not rewritten. */
  put(bytes: Uint8Array, durability: Durability): string {
    const hash = sha256(bytes);
    const target = this.pathOf(hash);
    if (fs.existsSync(target)) return hash;
    // Charged before a byte is written: a full store refuses instead of filling the disk.
    this.budget?.charge(bytes.length);
    const folder = path.dirname(target);
    if (!this.madeDirs.has(folder)) {
      fs.mkdirSync(folder, { recursive: true });
      this.madeDirs.add(folder);
    }
    // The temp name lives in the blob's own folder so the rename never crosses a device.
    const temp = path.join(folder, `.tmp-${randomBytes(6).toString('hex')}`);
    let fd: number;
    try {
      fd = fs.openSync(temp, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The store was removed under a long-lived process: make the folder again.
      fs.mkdirSync(folder, { recursive: true });
      fd = fs.openSync(temp, 'wx', 0o644);
    }
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
      if (durability === 'each') fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
    if (durability === 'each') this.pendingDirs.add(folder);
    else this.pendingBatch.push(target);
    return hash;
  }

  /**
   * Stores a large file by streaming it from an open descriptor (hashing as
   * it copies), so a workspace checkpoint never holds a whole large file in
   * memory. Returns the hash and the number of bytes copied.
   */
  putFromFd(fd: number, durability: Durability): { hash: string; size: number } {
    fs.mkdirSync(this.dir, { recursive: true });
    const temp = path.join(this.dir, `.tmp-${randomBytes(6).toString('hex')}`);
    const out = fs.openSync(temp, 'wx', 0o644);
    // Charged chunk by chunk before each is written: a full store stops the copy at its limit.
    let charged = 0;
    const hasher = createHash('sha256');
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let size = 0;
    let kept = false;
    try {
      try {
        for (;;) {
          const n = fs.readSync(fd, chunk, 0, chunk.length, null);
          if (n === 0) break;
          hasher.update(chunk.subarray(0, n));
          // A chunk of zeros is left as a hole: a sparse file stays sparse in the store.
          if (!isZero(chunk, n)) {
            this.budget?.charge(n);
            charged += n;
            let offset = 0;
            while (offset < n) offset += fs.writeSync(out, chunk, offset, n - offset, size + offset);
          }
          size += n;
        }
        fs.ftruncateSync(out, size);
        if (durability === 'each') fs.fsyncSync(out);
      } finally {
        fs.closeSync(out);
      }
      const hash = hasher.digest('hex');
      const target = this.pathOf(hash);
      if (fs.existsSync(target)) {
        fs.rmSync(temp, { force: true });
        return { hash, size };
      }
      const folder = path.dirname(target);
      fs.mkdirSync(folder, { recursive: true });
      this.madeDirs.add(folder);
      fs.renameSync(temp, target);
      kept = true;
      // What it really occupies (block rounding) replaces the charge.
      this.budget?.refund(charged - this.occupiedOf(hash));
      if (durability === 'each') this.pendingDirs.add(folder);
      else this.pendingBatch.push(target);
      return { hash, size };
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    } finally {
      if (!kept) this.budget?.refund(charged);
    }
  }

  get(hash: string): Buffer {
    try {
      return fs.readFileSync(this.pathOf(hash));
    } catch (error) {
      throw new EditwardenError(
        {
          code: ErrorCode.IO,
          message: `Checkpoint blob ${hash.slice(0, 12)}… is missing from ${this.dir}.`,
          hint: 'The checkpoint store was changed by hand or damaged; this checkpoint cannot be restored exactly. Use another checkpoint.',
        },
        { cause: error },
      );
    }
  }

  /**
   * Makes every blob written so far durable. Called before the manifest that
   * names them is written, so a manifest never outlives its blobs in a crash.
   */
  flush(): void {
    if (this.pendingBatch.length > BATCH_FSYNC_LIMIT) {
      syncFileSystem(this.dir);
    } else {
      // A few new blobs (an incremental checkpoint): fsync each rather than flush the whole file system.
      for (const file of this.pendingBatch) {
        fsyncFile(file);
        this.pendingDirs.add(path.dirname(file));
      }
    }
    this.pendingBatch.length = 0;
    for (const folder of this.pendingDirs) fsyncDir(folder);
    this.pendingDirs.clear();
    this.budget?.save();
  }

  /** Every stored blob hash (for garbage collection). */
  listAll(): string[] {
    const out: string[] = [];
    let prefixes: string[];
    try {
      prefixes = fs.readdirSync(this.dir);
    } catch {
      return out;
    }
    for (const prefix of prefixes) {
      if (prefix.length !== 2) continue;
      for (const rest of fs.readdirSync(path.join(this.dir, prefix))) {
        if (!rest.startsWith('.tmp-')) out.push(prefix + rest);
      }
    }
    return out;
  }

  sizeOf(hash: string): number {
    try {
      return fs.statSync(this.pathOf(hash)).size;
    } catch {
      return 0;
    }
  }

  remove(hash: string): void {
    fs.rmSync(this.pathOf(hash), { force: true });
  }

  /** Removes temp files a crashed writer left behind. Only safe under the root lock. */
  removeTemps(): void {
    let prefixes: string[];
    try {
      prefixes = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const prefix of prefixes) {
      if (prefix.startsWith('.tmp-')) {
        fs.rmSync(path.join(this.dir, prefix), { force: true });
        continue;
      }
      const folder = path.join(this.dir, prefix);
      for (const name of fs.readdirSync(folder)) if (name.startsWith('.tmp-')) fs.rmSync(path.join(folder, name), { force: true });
    }
  }
}

/** Bytes per read when a large file is streamed into the store. */
const CHUNK_BYTES = 1024 * 1024;

/** Whether the first `n` bytes of `chunk` are all zero (compared 1 MiB at a time with memcmp). */
const ZEROS = Buffer.alloc(CHUNK_BYTES);
function isZero(chunk: Buffer, n: number): boolean {
  return chunk.compare(ZEROS, 0, n, 0, n) === 0;
}

/** Above this many new blobs, one syncfs is cheaper than an fsync each. */
const BATCH_FSYNC_LIMIT = 64;

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One syncfs for thousands of blobs instead of one fsync each (50,000 fsyncs
 * cost ~20 s here). `sync -f` (coreutils) calls syncfs(2); where it is
 * missing, fall back to the global sync(1), and where that is missing too,
 * to nothing: the blobs were renamed into place, so a crash can lose them but
 * never leaves a torn one under a real name.
 */
function syncFileSystem(dir: string): void {
  try {
    execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('sync', [], { stdio: 'ignore' });
    } catch {
      // No sync tool: see above.
    }
  }
}
