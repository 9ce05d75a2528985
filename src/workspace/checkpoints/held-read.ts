/**
 * The file an edit just read under the root lock, handed to the checkpoint
 * taken in the same hold (an edit reads the file it replaces, then
 * checkpoints it), so the checkpoint need not read it a second time — and
 * the rule for when a stat proves the held bytes are still the file's. It
 * never reads or writes a file itself.
 */
import type fs from 'node:fs';
import type { RootLock } from '../lock.js';

/**
 * A file's bytes as the workspace read them earlier in the same hold of the
 * root lock (an edit reads the file it is about to replace, then
 * checkpoints it): the checkpoint takes them instead of reading the file a
 * second time, when the file is provably the one read.
 */
export interface HeldRead {
  relative: string;
  bytes: Buffer;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Date.now() before the read began. */
  readAtMs: number;
}

/**
 * How much older than the read a file's ctime must be for its stat to vouch
 * for its bytes (git's "racily clean" rule). The kernel stamps ctime from a
 * coarse clock (one tick, 1–10 ms, behind the real time) at the file
 * system's granularity: a file changed at or after the read gets a ctime no
 * earlier than readAtMs minus a tick and a granule, so a ctime older than
 * that proves no change since. Fine-grained file systems (ext4, XFS, btrfs:
 * nanoseconds) need the short margin; one whose ctimes are whole seconds
 * (ext3, HFS+, some network mounts) the long one. A file written just
 * before the read is read again.
 */
export const HELD_READ_MARGIN_MS = 30;
const COARSE_HELD_READ_MARGIN_MS = 2_500;

/** The held bytes, when `stat` (of the descriptor the capture opened) is the same file, unchanged since they were read. */
export function heldBytes(held: HeldRead | undefined, rel: string, stat: Pick<fs.Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>): Buffer | undefined {
  if (held === undefined || held.relative !== rel) return undefined;
  if (stat.dev !== held.dev || stat.ino !== held.ino || stat.size !== held.size || stat.mtimeMs !== held.mtimeMs || stat.ctimeMs !== held.ctimeMs) return undefined;
  const margin = stat.ctimeMs % 1000 === 0 ? COARSE_HELD_READ_MARGIN_MS : HELD_READ_MARGIN_MS;
  if (stat.ctimeMs >= held.readAtMs - margin || held.bytes.length !== stat.size) return undefined;
  return held.bytes;
}

/**
 * The last file read while the lock was held, and in which hold
 * (RootLock.holds): only a checkpoint in that same hold takes it. One file
 * only, so a long transaction keeps no copies of what it read.
 */
export class LastRead {
  private last: { hold: number; read: HeldRead } | null = null;

  constructor(private readonly lock: RootLock) {}

  note(read: HeldRead): void {
    this.last = this.lock.held ? { hold: this.lock.holds, read } : null;
  }

  /** The file read in the current hold of the lock, if any. */
  take(): HeldRead | undefined {
    const last = this.last;
    if (last === null) return undefined;
    if (this.lock.held && last.hold === this.lock.holds) return last.read;
    this.last = null;
    return undefined;
  }
}
