/**
 * The calling thread's side of one walk's stats (walk.ts): it queues the
 * files in batches as the walk lists them, posts each full batch to the
 * stat pool's threads (stat-pool.ts), and at the end stats what no thread
 * claimed, waits briefly for what they hold, and fills every entry's key —
 * all at once (`finish`), or batch by batch in order as a reader reaches
 * them (`settle`, the capture's way: its own work on the first batches runs
 * while the threads stat the later ones).
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
  // Pipelined use (`settle`): batches made final from the first on; posted batches this thread statted; where its
  // search for a free batch goes on (down from the last); when the grace for a batch a thread holds runs out (0: unset).
  private settled = 0;
  private ownPosted = 0;
  private stealFrom = 0;
  private graceDeadline = 0;

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
    this.seal();
    const control = this.control;
    // From the last batch back: the threads take them from the first on.
    for (let i = this.batches.length - 1; i >= 0; i--) {
      if (control === null || !this.isPosted(i)) this.statUnposted(i);
      else if (this.pool?.callerStats && Atomics.compareExchange(control, CLAIMS + i, FREE, TAKEN) === FREE) this.statClaimed(control, i);
    }
    if (control !== null && this.pool !== null) {
      const deadline = performance.now() + this.pool.graceMs;
      for (let i = this.lead; i < this.posted; i++) {
        if (!this.awaitBatch(control, i, deadline)) {
          // A thread threw: nothing it did is trusted; the caller walks again on this thread alone.
          this.pool.lost();
          return false;
        }
        if (Atomics.load(control, CLAIMS + i) !== DONE) this.retake(i);
      }
      if (!this.closeCount(control)) return false;
    }
    for (const batch of this.batches) pointAt(batch);
    return true;
  }

  /** Files per batch: the batch of a walk's `n`th file (0-based) is n / filesPerBatch, rounded down. */
  get filesPerBatch(): number {
    return this.batchFiles;
  }

  /**
   * Pipelined use (a capture that reads each file's numbers in walk order): the listing is over; the batches are then
   * made final in order by `settle`, and `end` closes the run. `finish` is the other way, all at once.
   */
  seal(): void {
    if (this.current !== null) this.batches.push(this.current);
    this.current = null;
  }

  /**
   * Makes batch `i` and every one before it final and points their entries at their numbers, statting here what no
   * thread holds: a batch itself when it is free, else — while a thread finishes it — the next free one after it (so
   * this thread never idles while work is left). A batch a thread holds past the grace is statted again here, into
   * numbers of this thread's own. False: a thread failed, and nothing of this run may be used.
   */
  settle(i: number): boolean {
    while (this.settled <= i && this.settled < this.batches.length) {
      if (!this.settleOne(this.settled)) return false;
      this.settled++;
    }
    return true;
  }

  /** After every batch was read: false when a thread failed (then nothing of this run may be used). */
  end(): boolean {
    if (!this.settle(this.batches.length - 1)) return false;
    return this.control === null || this.closeCount(this.control);
  }

  private settleOne(i: number): boolean {
    const batch = this.batches[i] as Batch;
    const control = this.control;
    const pool = this.pool;
    if (control === null || pool === null || !this.isPosted(i)) {
      this.statUnposted(i);
      pointAt(batch);
      return true;
    }
    for (;;) {
      if (Atomics.load(control, FAILED) !== 0) {
        pool.lost();
        return false;
      }
      if (pool.callerStats && Atomics.compareExchange(control, CLAIMS + i, FREE, TAKEN) === FREE) {
        this.statClaimed(control, i);
        pointAt(batch);
        return true;
      }
      const seen = Atomics.load(control, SETTLED);
      if (Atomics.load(control, CLAIMS + i) === DONE) {
        pointAt(batch);
        return true;
      }
      if (this.stealAfter(control, i)) continue;
      // Nothing left to take: wait for the thread that holds it, within the run's grace (as `finish` does).
      if (this.graceDeadline === 0) this.graceDeadline = performance.now() + pool.graceMs;
      const left = this.graceDeadline - performance.now();
      if (left <= 0) {
        this.retake(i);
        pointAt(batch);
        return true;
      }
      Atomics.wait(control, SETTLED, seen, left);
    }
  }

  private isPosted(i: number): boolean {
    return i >= this.lead && i < this.posted;
  }

  /** Stats a batch never posted (only this thread knows it). */
  private statUnposted(i: number): void {
    const batch = this.batches[i] as Batch;
    batch.out ??= new Float64Array(FIELDS * batch.entries.length);
    statBatch(batch.dirs, batch.names, batch.out);
    if (this.pool) this.pool.counts.callerBatches++;
  }

  /**
   * A posted batch a thread held past the grace (descheduled, stopped or dead): statted here too, into this thread's
   * own numbers; whatever the thread writes later goes to a buffer nobody reads.
   */
  private retake(i: number): void {
    const batch = this.batches[i] as Batch;
    batch.out = new Float64Array(FIELDS * batch.entries.length);
    statBatch(batch.dirs, batch.names, batch.out);
    this.ownPosted++;
    if (this.pool) this.pool.counts.retaken++;
  }

  /** The run's last check once every batch is final: false when a thread failed (the pool is given up); else counts what the threads did. */
  private closeCount(control: Int32Array): boolean {
    const pool = this.pool;
    if (pool === null) return true;
    if (Atomics.load(control, FAILED) !== 0) {
      pool.lost();
      return false;
    }
    pool.counts.threadBatches += this.posted - this.lead - this.ownPosted;
    return true;
  }

  /** Stats a posted batch this thread has claimed, into its shared numbers, and marks it done. */
  private statClaimed(control: Int32Array, i: number): void {
    const batch = this.batches[i] as Batch;
    statBatch(batch.dirs, batch.names, batch.out as Float64Array);
    Atomics.store(control, CLAIMS + i, DONE);
    this.ownPosted++;
    if (this.pool) this.pool.counts.callerBatches++;
  }

  /** Claims and stats the last free posted batch after `i` (the threads take them from the first on); false when there is none. */
  private stealAfter(control: Int32Array, i: number): boolean {
    if (!this.pool?.callerStats) return false;
    if (this.stealFrom === 0) this.stealFrom = this.posted;
    // Claims never return to free, so the search never comes back up.
    for (let j = this.stealFrom - 1; j > i; j--) {
      if (Atomics.compareExchange(control, CLAIMS + j, FREE, TAKEN) !== FREE) continue;
      this.stealFrom = j;
      this.statClaimed(control, j);
      return true;
    }
    return false;
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

/** Points each entry of a final batch at its numbers: 50k files cost no 50k key objects (nor their collection). */
function pointAt(batch: Batch): void {
  const out = batch.out as Float64Array;
  const entries = batch.entries;
  for (let j = 0; j < entries.length; j++) {
    const slot = entries[j] as StatSlot;
    slot.stats = out;
    slot.at = j * FIELDS;
  }
}
