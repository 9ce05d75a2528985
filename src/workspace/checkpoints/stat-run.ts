/**
 * The calling thread's side of one walk's stats (walk.ts): it queues the
 * files in batches as the walk lists them, posts each full batch to the
 * stat pool's threads (stat-pool.ts), and at the end stats what no thread
 * claimed, waits briefly for what they hold, and fills every entry's key.
 *
 * It must never fill a key from numbers a thread has not finished writing:
 * a batch counts only once its thread marked it done; one still held past
 * the grace is statted again here into numbers of this thread's own, and a
 * thread that threw fails the run (the walk walks again without threads).
 */
import { CLAIMS, DONE, FAILED, FIELDS, FREE, MAX_BATCHES, REGION_FILES, SETTLED, statBatch, TAKEN } from './stat-batch.js';
import type { StatPool } from './stat-pool.js';

/** A walked file's stat: `stats[at … at + FIELDS)` (stat-batch.ts), pointed into its batch's numbers, no object per file. */
export interface StatSlot {
  stats: Float64Array;
  at: number;
}

interface Batch {
  dirs: string[];
  names: string[];
  /** The walk's entries whose stat numbers this batch holds, in order. */
  entries: StatSlot[];
  out: Float64Array | null;
}

/**
 * The stats of one walk: `add` queues a file (its folder's path prefix, its
 * name, the entry whose stat slot to point at its numbers); `finish` fills every entry, or
 * returns false when a thread failed (the caller walks again without the
 * pool). A batch is posted as soon as it is full, so the threads stat while
 * the walk still lists.
 */
export class StatRun {
  private readonly batches: Batch[] = [];
  private current: Batch | null = null;
  private currentDir = '';
  private control: Int32Array | null = null;
  private posted = 0;
  private walk = 0;
  private region: SharedArrayBuffer | null = null;
  private regionIndex = -1;
  private regionUsed = 0;

  constructor(
    private readonly pool: StatPool | null,
    private readonly batchFiles: number,
    /** Batches at the start of the walk that are never posted. */
    private readonly lead = 0,
  ) {}

  add(dirPrefix: string, name: string, entry: StatSlot): void {
    let batch = this.current;
    if (batch === null) {
      batch = { dirs: [], names: [], entries: [], out: null };
      this.current = batch;
      this.currentDir = '';
    }
    if (batch.dirs.length === 0 || this.currentDir !== dirPrefix) {
      batch.dirs.push(dirPrefix);
      batch.names.push(''); // Switches to the next prefix.
      this.currentDir = dirPrefix;
    }
    batch.names.push(name);
    batch.entries.push(entry);
    if (batch.entries.length >= this.batchFiles) this.close();
  }

  private close(): void {
    const batch = this.current;
    if (batch === null) return;
    this.current = null;
    const index = this.batches.length;
    this.batches.push(batch);
    const pool = this.pool;
    if (pool === null || index < this.lead || index >= MAX_BATCHES) return;
    const count = batch.entries.length;
    if (this.control === null) {
      this.control = new Int32Array(new SharedArrayBuffer(4 * (CLAIMS + MAX_BATCHES)));
      this.walk = pool.nextWalk();
    }
    if (this.region === null || this.regionUsed + count > REGION_FILES) {
      // A new region (a batch never spans two): posted once, before the batches that write into it.
      this.region = new SharedArrayBuffer(8 * FIELDS * Math.max(REGION_FILES, count));
      this.regionUsed = 0;
      pool.post({ kind: 'region', walk: this.walk, control: this.control.buffer as SharedArrayBuffer, region: ++this.regionIndex, out: this.region });
    }
    const offset = FIELDS * this.regionUsed;
    this.regionUsed += count;
    batch.out = new Float64Array(this.region, 8 * offset, FIELDS * count);
    pool.post({ kind: 'batch', walk: this.walk, batch: index, region: this.regionIndex, offset, count, dirs: batch.dirs, names: batch.names.join('\0') });
    this.posted = index + 1;
  }

  /** Stats what no thread claimed, waits for the rest, and fills every entry's `stat`; false: a thread failed, nothing is filled. */
  finish(): boolean {
    // The last, partial batch stays here: posting it would only race this thread for it.
    if (this.current !== null) this.batches.push(this.current);
    this.current = null;
    const control = this.control;
    let ownPosted = 0;
    // From the last batch back: the threads take them from the first on.
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const batch = this.batches[i] as Batch;
      const posted = control !== null && i >= this.lead && i < this.posted;
      if (posted && (!this.pool?.callerStats || Atomics.compareExchange(control, CLAIMS + i, FREE, TAKEN) !== FREE)) continue;
      batch.out ??= new Float64Array(FIELDS * batch.entries.length);
      statBatch(batch.dirs, batch.names, batch.out);
      if (posted) {
        Atomics.store(control, CLAIMS + i, DONE);
        ownPosted++;
      }
      if (this.pool) this.pool.counts.callerBatches++;
    }
    if (control !== null && this.pool !== null) {
      const pool = this.pool;
      const deadline = performance.now() + pool.graceMs;
      for (let i = this.lead; i < this.posted; i++) {
        if (!this.awaitBatch(control, i, deadline)) {
          // A thread threw: nothing it did is trusted; the caller walks again on this thread alone.
          pool.lost();
          return false;
        }
        if (Atomics.load(control, CLAIMS + i) === DONE) continue;
        // Held by a thread past the grace (descheduled, stopped or dead): statted here too, into this thread's own
        // numbers; whatever the thread writes later goes to a buffer nobody reads.
        const batch = this.batches[i] as Batch;
        batch.out = new Float64Array(FIELDS * batch.entries.length);
        statBatch(batch.dirs, batch.names, batch.out);
        ownPosted++;
        pool.counts.retaken++;
      }
      if (Atomics.load(control, FAILED) !== 0) {
        pool.lost();
        return false;
      }
      pool.counts.threadBatches += this.posted - this.lead - ownPosted;
    }
    // Each entry points into its batch's numbers: 50k files cost no 50k key objects (nor their collection).
    for (const batch of this.batches) {
      const out = batch.out as Float64Array;
      const entries = batch.entries;
      for (let j = 0; j < entries.length; j++) {
        const slot = entries[j] as StatSlot;
        slot.stats = out;
        slot.at = j * FIELDS;
      }
    }
    return true;
  }

  /** Waits for batch `i` until it is done or `deadline` passes; false when a thread failed. */
  private awaitBatch(control: Int32Array, i: number, deadline: number): boolean {
    for (;;) {
      if (Atomics.load(control, FAILED) !== 0) return false;
      const seen = Atomics.load(control, SETTLED);
      if (Atomics.load(control, CLAIMS + i) === DONE) return true;
      const left = deadline - performance.now();
      if (left <= 0) return true;
      Atomics.wait(control, SETTLED, seen, left);
    }
  }
}
