/**
 * Size accounting for the checkpoint store, so a checkpoint can never fill
 * the disk. Two limits (config `checkpoints.max_file_bytes`,
 * `checkpoints.max_total_bytes`): a file larger than the first is never
 * copied (its checkpoint is refused with E_CHECKPOINT_TOO_LARGE, naming the
 * file), and new blobs are admitted only while the store's total stays under
 * the second. The total is kept in a small ledger (`usage.json` beside the
 * blobs), updated under the root lock when blobs are written or collected,
 * and counted from the blobs themselves when the ledger is missing or
 * unreadable. Attack it defends against: a sparse file (`truncate -s 1G`)
 * or a command writing gigabytes, copied by every checkpoint until the disk
 * is full. It never deletes anything itself (the service prunes to make
 * room) and never trusts the ledger beyond sizing decisions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { readSmallFile } from '../../small-file.js';
import { atomicWriteFile } from '../atomic.js';

export interface CheckpointLimits {
  /** Largest file (apparent size) a checkpoint copies. */
  maxFileBytes: number;
  /** Largest total of stored blob bytes. */
  maxTotalBytes: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFileBytes: 256 * 1024 * 1024,
  maxTotalBytes: 8 * 1024 * 1024 * 1024,
};

const LEDGER = 'usage.json';

function fileTooLarge(rel: string, size: number, limits: CheckpointLimits): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.CHECKPOINT_TOO_LARGE,
    message: `${rel} is ${formatBytes(size)}, over checkpoints.max_file_bytes (${formatBytes(limits.maxFileBytes)}): it cannot be checkpointed, so nothing that needs a checkpoint of it ran.`,
    hint: `Add ${rel} to .gitignore (ignored files are not checkpointed) or raise checkpoints.max_file_bytes in .editwarden.yml.`,
    path: rel,
  });
}

/** The store has no room: the one refusal the service answers by pruning and trying once more. */
export class StoreFullError extends EditwardenError {}

function storeFull(needed: number, total: number, limits: CheckpointLimits): StoreFullError {
  return new StoreFullError({
    code: ErrorCode.CHECKPOINT_TOO_LARGE,
    message: `The checkpoint needs ${formatBytes(needed)} more, but the checkpoint store holds ${formatBytes(total)} of checkpoints.max_total_bytes (${formatBytes(limits.maxTotalBytes)}) even after old checkpoints were pruned; nothing that needs this checkpoint ran.`,
    hint: 'Drop checkpoints you no longer need (editwarden checkpoint prune --keep-last N), add large generated files to .gitignore, or raise checkpoints.max_total_bytes in .editwarden.yml.',
  });
}

/**
 * The running total of one blob store. One per BlobStore; only used under the
 * root lock. Other processes change the store too (a server and the hooks of
 * a client, each with a StoreBudget of its own): the ledger is read again in
 * each hold of the lock (`holds`), and what this object charged or refunded
 * since is kept as a difference and added to the ledger as it is on disk, so
 * no process's charges overwrite another's.
 */
export class StoreBudget {
  /** The ledger as read in the hold `readIn` (null: not read yet). */
  private base: number | null = null;
  private readIn = -1;
  /** Charged minus refunded since `base` was read, not yet in the ledger. */
  private delta = 0;
  private dirty = false;

  constructor(
    private readonly dir: string,
    readonly limits: CheckpointLimits,
    /** Counts the store from its blobs (the ledger is missing or damaged). */
    private readonly recount: () => number,
    /** Which hold of the root lock this is (RootLock.holds); a new hold reads the ledger again. */
    private readonly hold: () => number = () => 0,
  ) {}

  /** Refuses a file too large to copy, before a byte of it is read. */
  admitFile(rel: string, size: number): void {
    if (size > this.limits.maxFileBytes) throw fileTooLarge(rel, size, this.limits);
  }

  /** Current total (ledger, or a recount, with this object's changes since). */
  current(): number {
    return Math.max(0, this.ledger() + this.delta);
  }

  /** Whether `bytes` more would still fit. */
  fits(bytes: number): boolean {
    return this.current() + bytes <= this.limits.maxTotalBytes;
  }

  /** Charges a new blob of `bytes`; throws (nothing written) when it does not fit. */
  charge(bytes: number): void {
    const total = this.current();
    if (total + bytes > this.limits.maxTotalBytes) throw storeFull(bytes, total, this.limits);
    this.delta += bytes;
    this.dirty = true;
  }

  /** Corrects a charge (a streamed blob turned out smaller, or already existed), or counts blobs removed. */
  refund(bytes: number): void {
    if (bytes <= 0) return;
    this.delta -= bytes;
    this.dirty = true;
  }

  /** Sets the exact total (the garbage collector has just counted it). */
  reset(total: number): void {
    this.base = total;
    this.readIn = this.hold();
    this.delta = 0;
    this.dirty = true;
  }

  /** Writes the ledger if it changed (after a flush of blobs or a collection): the total on disk now, plus this object's changes. */
  save(): void {
    if (!this.dirty) return;
    const total = this.current();
    try {
      writeLedger(this.dir, total);
      this.base = total;
      this.delta = 0;
      this.dirty = false;
    } catch {
      // A ledger that cannot be written is counted again by the next process.
    }
  }

  /** The ledger as of this hold of the lock: read again in a new hold (another process may have written it). */
  private ledger(): number {
    const hold = this.hold();
    if (this.base === null || this.readIn !== hold) {
      const read = this.load();
      // A recount sees the blobs as they are, this object's unsaved ones included.
      if (read.recounted) this.delta = 0;
      this.base = read.bytes;
      this.readIn = hold;
    }
    return this.base;
  }

  private load(): { bytes: number; recounted: boolean } {
    try {
      const data = JSON.parse(readSmallFile(path.join(this.dir, LEDGER), { maxBytes: 4096, follow: false }).toString('utf8')) as { format?: unknown; bytes?: unknown };
      if (data.format === 1 && typeof data.bytes === 'number' && Number.isSafeInteger(data.bytes) && data.bytes >= 0) return { bytes: data.bytes, recounted: false };
    } catch {
      // Missing or damaged: count.
    }
    this.dirty = true;
    return { bytes: this.recount(), recounted: true };
  }
}

/** The ledger's fixed length: its JSON padded with spaces (JSON allows them), so a rewrite in place always covers the old one. */
const LEDGER_BYTES = 64;

/**
 * Writes the ledger. In place when it exists (one write at offset 0 of a
 * fixed-length record, under the root lock like every read of it: a
 * checkpoint spares a file creation and a rename, about a tenth of a
 * millisecond each time); created by temp file and rename otherwise. A
 * planted link or FIFO is never written through: it is replaced.
 */
function writeLedger(dir: string, total: number): void {
  const record = Buffer.from(`${JSON.stringify({ format: 1, bytes: total }).padEnd(LEDGER_BYTES - 1, ' ')}\n`);
  const file = path.join(dir, LEDGER);
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) {
      fs.closeSync(fd);
      fd = null;
    }
  } catch {
    fd = null;
  }
  if (fd !== null) {
    try {
      fs.writeSync(fd, record, 0, record.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  // Not fsynced, as before: a ledger lost in a crash is counted again.
  atomicWriteFile(file, record, { noSync: true, mode: 0o644 });
}

/** Bytes a stored file occupies: its size, or less when it is sparse (holes take no disk). */
export function occupiedBytes(stat: fs.Stats): number {
  return stat.blocks > 0 || stat.size === 0 ? Math.min(stat.size, stat.blocks * 512) : stat.size;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 / 1024 / 1024).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}
