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

/** The running total of one blob store. One per BlobStore; only used under the root lock. */
export class StoreBudget {
  private total: number | null = null;
  private dirty = false;

  constructor(
    private readonly dir: string,
    readonly limits: CheckpointLimits,
    /** Counts the store from its blobs (the ledger is missing or damaged). */
    private readonly recount: () => number,
  ) {}

  /** Refuses a file too large to copy, before a byte of it is read. */
  admitFile(rel: string, size: number): void {
    if (size > this.limits.maxFileBytes) throw fileTooLarge(rel, size, this.limits);
  }

  /** Current total (ledger, or a recount). */
  current(): number {
    if (this.total === null) this.total = this.load();
    return this.total;
  }

  /** Whether `bytes` more would still fit. */
  fits(bytes: number): boolean {
    return this.current() + bytes <= this.limits.maxTotalBytes;
  }

  /** Charges a new blob of `bytes`; throws (nothing written) when it does not fit. */
  charge(bytes: number): void {
    const total = this.current();
    if (total + bytes > this.limits.maxTotalBytes) throw storeFull(bytes, total, this.limits);
    this.total = total + bytes;
    this.dirty = true;
  }

  /** Corrects a charge (a streamed blob turned out smaller, or already existed). */
  refund(bytes: number): void {
    if (this.total === null || bytes <= 0) return;
    this.total = Math.max(0, this.total - bytes);
    this.dirty = true;
  }

  /** Sets the exact total (the garbage collector has just counted it). */
  reset(total: number): void {
    this.total = total;
    this.dirty = true;
  }

  /** Writes the ledger if it changed (after a flush of blobs or a collection). */
  save(): void {
    if (!this.dirty || this.total === null) return;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      const temp = path.join(this.dir, `.tmp-usage-${process.pid}`);
      fs.writeFileSync(temp, JSON.stringify({ format: 1, bytes: this.total }));
      fs.renameSync(temp, path.join(this.dir, LEDGER));
      this.dirty = false;
    } catch {
      // A ledger that cannot be written is counted again by the next process.
    }
  }

  private load(): number {
    try {
      const data = JSON.parse(fs.readFileSync(path.join(this.dir, LEDGER), 'utf8')) as { format?: unknown; bytes?: unknown };
      if (data.format === 1 && typeof data.bytes === 'number' && Number.isSafeInteger(data.bytes) && data.bytes >= 0) return data.bytes;
    } catch {
      // Missing or damaged: count.
    }
    this.dirty = true;
    return this.recount();
  }
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
