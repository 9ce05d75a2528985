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
import { childProcess } from '../../builtins.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import type { DirHandle, Resolver } from '../resolver.js';
import { BLOB_ID, readStateFile, StateFolder, untrusted } from '../state-dir.js';
import { sha256 } from '../workspace.js';
import { occupiedBytes, type StoreBudget } from './budget.js';
import { systemProgram } from '../../sandbox/system-program.js';

/** How hard a put must work to make the blob durable. */
export type Durability =
  /** fsync the blob and its folder now: for the few files of a transaction. */
  | 'each'
  /** Leave it to `flush()`: one file-system sync after many blobs (workspace checkpoints). */
  | 'batch'
  /** Leave it to the caller: the blob's path and its folder are added to `deferred`, which the caller makes durable (durable.ts) before anything relies on the blob. */
  | 'defer';

export class BlobStore {
  /** Absolute path (messages, tests); every operation goes through the state folder's resolver walk. */
  readonly dir: string;
  private readonly folder: StateFolder;
  /** Fan-out folders written to since the last flush (their renames to make durable). */
  private readonly pendingDirs = new Set<string>();
  /** Blobs written in 'batch' mode since the last flush. */
  private readonly pendingBatch: string[] = [];
  /** Size accounting (checkpoints.max_file_bytes / max_total_bytes); none: unbounded (tests of the store alone). */
  budget: StoreBudget | null = null;
  /** Paths written in 'defer' mode, not yet durable: the caller takes them (takeDeferred) and fsyncs them as a group. */
  private deferred: string[] = [];
  /** The file system refused a reflink once (putByClone): later large files are streamed at once. */
  private cloneRefused = false;

  constructor(resolver: Resolver, sub: string) {
    this.folder = new StateFolder(resolver, sub);
    this.dir = this.folder.dir;
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
      return this.inFanout(hash, false, 0, (dir, name) => occupiedBytes(fs.lstatSync(dir.at(name))));
    } catch {
      return 0;
    }
  }

  pathOf(hash: string): string {
    checkId(hash);
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Runs `fn` in the blob's fan-out folder (opened without following a symlink); `missing` when absent. */
  private inFanout<T>(hash: string, create: boolean, missing: T, fn: (dir: DirHandle, name: string) => T): T {
    checkId(hash);
    return this.folder.with(create, missing, (blobs) => {
      let fan = blobs.openChild(hash.slice(0, 2));
      if (fan === null && create) {
        try {
          fs.mkdirSync(blobs.at(hash.slice(0, 2)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        fan = blobs.openChild(hash.slice(0, 2));
        if (fan === null) throw untrusted(`${path.join(this.dir, hash.slice(0, 2))} is not a real folder.`);
      }
      if (fan === null) return missing;
      try {
        return fn(fan, hash.slice(2));
      } finally {
        fan.close();
      }
    });
  }

  /** The blobs (and their folders) written in 'defer' mode since the last call: the caller must make them durable. */
  takeDeferred(): string[] {
    const out = this.deferred;
    this.deferred = [];
    return out;
  }

  /** Records a blob written in 'defer' mode: its file and the folder its rename changed. */
  private defer(hash: string): void {
    const fan = path.join(this.dir, hash.slice(0, 2));
    this.deferred.push(path.join(fan, hash.slice(2)), fan);
  }

  has(hash: string): boolean {
    return this.inFanout(hash, false, false, (dir, name) => fs.existsSync(dir.at(name)));
  }

  /** Stores bytes; returns their sha256. A blob that already exists is not rewritten. */
  put(bytes: Uint8Array, durability: Durability): string {
    const hash = sha256(bytes);
    this.inFanout(hash, true, undefined, (dir, name) => {
      if (fs.existsSync(dir.at(name))) return;
      // Charged before a byte is written: a full store refuses instead of filling the disk.
      this.budget?.charge(bytes.length);
      // The temp name lives in the blob's own folder so the rename never crosses a device.
      const temp = dir.at(`.tmp-${randomBytes(6).toString('hex')}`);
      const fd = fs.openSync(temp, 'wx', 0o644);
      try {
        let offset = 0;
        while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
        if (durability === 'each') fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, dir.at(name));
      if (durability === 'each') dir.fsync();
      else if (durability === 'defer') this.defer(hash);
      else this.pendingBatch.push(hash);
    });
    return hash;
  }

  /**
   * Stores a large file by streaming it from an open descriptor (hashing as
   * it copies), so a workspace checkpoint never holds a whole large file in
   * memory. Returns the hash and the number of bytes copied.
   */
  putFromFd(fd: number, durability: Durability): { hash: string; size: number } {
    return this.folder.with(true, { hash: '', size: 0 }, (blobs) => {
      const tempName = `.tmp-${randomBytes(6).toString('hex')}`;
      const temp = blobs.at(tempName);
      const out = fs.openSync(temp, 'wx', 0o644);
      // Charged chunk by chunk before each is written: a full store stops the copy at its limit.
      let charged = 0;
      let kept = false;
      const hasher = createHash('sha256');
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      let size = 0;
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
        this.inFanout(hash, true, undefined, (dir, name) => {
          if (fs.existsSync(dir.at(name))) {
            fs.rmSync(temp, { force: true });
            return;
          }
          fs.renameSync(temp, dir.at(name));
          kept = true;
          if (durability === 'each') dir.fsync();
          else if (durability === 'defer') this.defer(hash);
          else this.pendingBatch.push(hash);
        });
        // What it really occupies (block rounding) replaces the charge.
        if (kept) this.budget?.refund(charged - this.occupiedOf(hash));
        return { hash, size };
      } catch (error) {
        fs.rmSync(temp, { force: true });
        throw error;
      } finally {
        if (!kept) this.budget?.refund(charged);
      }
    });
  }

  /**
   * Stores the file open at `fd` copy-free where the file system allows:
   * `copyFileSync` with COPYFILE_FICLONE_FORCE makes the temp a reflink of
   * the file (btrfs, XFS: no byte is copied until one side is written).
   * Where the file system refuses (ext4 here: ENOTSUP) it returns null and
   * the caller streams the file (`putFromFd`): the kernel's fallback copy
   * plus a second read to hash measured slower than one read-hash-write
   * pass (bench/ignored.bench.mjs), so it is not used; the refusal is
   * remembered for the store's life. The hash is taken from the temp,
   * which nothing else holds: the blob is exactly the bytes hashed even if
   * the file changes meanwhile. Reached through /proc/self/fd, so the file
   * is the one opened (never a path resolved again).
   */
  putByClone(fd: number, durability: Durability): { hash: string; size: number } | null {
    const source = `/proc/self/fd/${fd}`;
    if (this.cloneRefused || !fs.existsSync(source)) return null;
    const size = fs.fstatSync(fd).size;
    return this.folder.with(true, null as { hash: string; size: number } | null, (blobs) => {
      const temp = blobs.at(`.tmp-${randomBytes(6).toString('hex')}`);
      // Charged as if copied: a reflink shares blocks only until either side is written.
      this.budget?.charge(size);
      let kept = false;
      try {
        try {
          fs.copyFileSync(source, temp, fs.constants.COPYFILE_FICLONE_FORCE | fs.constants.COPYFILE_EXCL);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV' && code !== 'EINVAL' && code !== 'ENOSYS') throw error;
          this.cloneRefused = true;
          return null;
        }
        const hasher = createHash('sha256');
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const tfd = fs.openSync(temp, 'r');
        let copied = 0;
        try {
          for (;;) {
            const n = fs.readSync(tfd, chunk, 0, chunk.length, null);
            if (n === 0) break;
            hasher.update(chunk.subarray(0, n));
            copied += n;
          }
          if (durability === 'each') fs.fsyncSync(tfd);
        } finally {
          fs.closeSync(tfd);
        }
        const hash = hasher.digest('hex');
        this.inFanout(hash, true, undefined, (dir, name) => {
          if (fs.existsSync(dir.at(name))) return;
          fs.renameSync(temp, dir.at(name));
          kept = true;
          if (durability === 'each') dir.fsync();
          else if (durability === 'defer') this.defer(hash);
          else this.pendingBatch.push(hash);
        });
        if (kept) this.budget?.refund(size - this.occupiedOf(hash));
        return { hash, size: copied };
      } finally {
        if (!kept) {
          fs.rmSync(temp, { force: true });
          this.budget?.refund(size);
        }
      }
    });
  }

  get(hash: string): Buffer {
    try {
      const bytes = this.inFanout(hash, false, null as Buffer | null, (dir, name) => readStateFile(dir, name));
      if (bytes === null) throw new Error('no such blob');
      return bytes;
    } catch (error) {
      if (error instanceof EditwardenError) throw error;
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
      for (const hash of this.pendingBatch) {
        this.inFanout(hash, false, undefined, (dir, name) => {
          fsyncFile(dir.at(name));
          dir.fsync();
        });
      }
    }
    this.pendingBatch.length = 0;
    this.pendingDirs.clear();
    this.budget?.save();
  }

  /** Every stored blob hash (for garbage collection). */
  listAll(): string[] {
    return this.folder.with(false, [] as string[], (blobs) => {
      const out: string[] = [];
      for (const prefix of fs.readdirSync(blobs.self)) {
        if (prefix.length !== 2) continue;
        const fan = blobs.openChild(prefix);
        if (fan === null) continue;
        try {
          for (const rest of fs.readdirSync(fan.self)) if (BLOB_ID.test(prefix + rest)) out.push(prefix + rest);
        } finally {
          fan.close();
        }
      }
      return out;
    });
  }

  sizeOf(hash: string): number {
    try {
      return this.inFanout(hash, false, 0, (dir, name) => fs.lstatSync(dir.at(name)).size);
    } catch {
      return 0;
    }
  }

  remove(hash: string): void {
    this.inFanout(hash, false, undefined, (dir, name) => fs.rmSync(dir.at(name), { force: true }));
  }

  /** Removes temp files a crashed writer left behind. Only safe under the root lock. */
  removeTemps(): void {
    this.folder.with(false, undefined, (blobs) => {
      for (const prefix of fs.readdirSync(blobs.self)) {
        if (prefix.startsWith('.tmp-')) {
          fs.rmSync(blobs.at(prefix), { force: true });
          continue;
        }
        const fan = blobs.openChild(prefix);
        if (fan === null) continue;
        try {
          for (const name of fs.readdirSync(fan.self)) if (name.startsWith('.tmp-')) fs.rmSync(fan.at(name), { force: true });
        } finally {
          fan.close();
        }
      }
    });
  }
}

/** A blob id from a manifest is data someone could have edited: `../../..` must never become a path. */
function checkId(hash: string): void {
  if (!BLOB_ID.test(hash)) {
    throw untrusted(`A checkpoint names the blob ${JSON.stringify(hash.slice(0, 80))}, which is not a sha256 id.`, 'The checkpoint manifest was changed by hand; drop that checkpoint (`editwarden checkpoint drop ID`) and use another.');
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
/** Above this many new files, one sync of the whole file system beats an fsync of each. */
export const BATCH_FSYNC_LIMIT = 64;

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
export function syncFileSystem(dir: string): void {
  // The system's own sync, never one found through PATH (sandbox/system-program.ts): it runs outside any sandbox.
  const sync = systemProgram('sync');
  if (sync === null) return;
  try {
    childProcess().execFileSync(sync, ['-f', dir], { stdio: 'ignore' });
  } catch {
    try {
      childProcess().execFileSync(sync, [], { stdio: 'ignore' });
    } catch {
      // No sync tool: see above.
    }
  }
}
