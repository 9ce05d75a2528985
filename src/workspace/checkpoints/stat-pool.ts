/**
 * The walk's per-file lstat on more than one thread, both sides of it:
 * StatPool (long-lived worker threads, unref'd so they never hold the
 * process open) and the worker's body (run when this module is loaded as a
 * worker). The walk (walk.ts) lists folders on the calling thread and hands
 * out the files in batches; a worker claims a batch by one atomic exchange
 * on a per-walk shared array, stats it and writes the numbers into a
 * SharedArrayBuffer; the calling thread stats every batch nobody claimed.
 * walkWorkspace is synchronous, so nothing here waits on the event loop: the
 * calling thread waits with Atomics.wait.
 *
 * It must never hand back a partial or mixed result. A batch counts only
 * once a thread has marked it done (after writing all of it); one a thread
 * still holds when the calling thread has nothing else left (GRACE_MS: a
 * descheduled, stopped or dead thread) is statted again by the calling
 * thread into numbers of its own. A thread that throws fails the whole run:
 * the walk walks again on the calling thread alone and the pool is not used
 * again. The stats are cache keys only (walk.ts, WalkedEntry): taken by path
 * string, as the single-thread walk takes them; no bytes are read here.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { StatKey } from './types.js';

/** Numbers per file in a batch's result: dev, ino, size, mtimeMs, ctimeMs, mode, uid, gid; dev NaN: no key. */
const FIELDS = 8;
/** Files per batch: small enough that the threads finish together, large enough that a message is worth its cost. */
const BATCH_FILES = 256;
/** Control slots: batches settled (done or failed), a failure flag, then one claim slot per batch. */
const SETTLED = 0;
const FAILED = 1;
const CLAIMS = 2;
/** Batches one walk may hand out; past it the calling thread stats the rest itself. */
const MAX_BATCHES = 1 << 14;
/** Claim states. */
const FREE = 0;
const TAKEN = 1;
const DONE = 2;
/**
 * Measured (walks of 300 / 1,000 / 2,500 / 5,000 files, 2 cores under load):
 * the threads cost 0.2-0.3 ms more than they save up to ~1,000 files and
 * save from ~2,500 on. So the first LEAD_FILES files of a walk are never
 * posted (the calling thread stats them after the listing, when it would
 * take batches anyway): a walk that small never wakes a thread. And the
 * pool starts only for a process that walks trees of POOL_MIN_FILES.
 */
const LEAD_FILES = 1024;
const POOL_MIN_FILES = 2000;
/**
 * How long, in all, the calling thread waits for the batches threads still
 * hold once it has statted every other one; past it, it stats them itself. A
 * thread finishes the batch it holds in well under a millisecond unless it
 * is descheduled (a loaded machine), stopped or dead.
 */
const GRACE_MS = 1;

/** Files per result region: one shared buffer per 4,096 files, posted once, not one per batch. */
const REGION_FILES = 4096;

/**
 * What a thread is sent, in order on its port: a region of a walk's results
 * (the first of a walk carries its control array), then the batches that
 * write into it: folder prefixes, and the names NUL-separated, "" switching
 * to the next prefix.
 */
type ToWorker =
  | { kind: 'region'; walk: number; control: SharedArrayBuffer; region: number; out: SharedArrayBuffer }
  | { kind: 'batch'; walk: number; batch: number; region: number; offset: number; count: number; dirs: string[]; names: string };

/** For tests: how a worker misbehaves (`throw`: fails each batch it claims; `exit`: claims one batch and ends its thread). */
type Fault = 'throw' | 'exit';

interface PoolWorkerData {
  editwardenStatPool: true;
  ready: SharedArrayBuffer;
  index: number;
  fault?: Fault;
}

/** lstat of every file of a batch into `out` (FIELDS numbers each); a "" name switches to the next prefix. Both sides run it. */
function statBatch(dirs: readonly string[], names: readonly string[], out: Float64Array): void {
  let d = -1;
  let prefix = '';
  let o = 0;
  for (const name of names) {
    if (name === '') {
      prefix = dirs[++d] as string;
      continue;
    }
    statInto(prefix + name, out, o);
    o += FIELDS;
  }
}

function statInto(file: string, out: Float64Array, o: number): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    st = undefined; // The capture reads it through the folder's descriptor and sees what is there.
  }
  if (st === undefined || !st.isFile()) {
    out[o] = Number.NaN;
    return;
  }
  out[o] = st.dev;
  out[o + 1] = st.ino;
  out[o + 2] = st.size;
  out[o + 3] = st.mtimeMs;
  out[o + 4] = st.ctimeMs;
  out[o + 5] = st.mode;
  out[o + 6] = st.uid;
  out[o + 7] = st.gid;
}

function keyAt(out: Float64Array, o: number): StatKey | null {
  const dev = out[o] as number;
  if (Number.isNaN(dev)) return null;
  return { dev, ino: out[o + 1] as number, size: out[o + 2] as number, mtimeMs: out[o + 3] as number, ctimeMs: out[o + 4] as number, mode: out[o + 5] as number, uid: out[o + 6] as number, gid: out[o + 7] as number };
}

if (!isMainThread && parentPort && (workerData as Partial<PoolWorkerData> | null)?.editwardenStatPool) {
  const data = workerData as PoolWorkerData;
  const port = parentPort;
  let walk = -1;
  let control: Int32Array<ArrayBufferLike> = new Int32Array(0);
  const regions: SharedArrayBuffer[] = [];
  port.on('message', (msg: ToWorker) => {
    if (msg.kind === 'region') {
      if (msg.walk !== walk) {
        walk = msg.walk;
        control = new Int32Array(msg.control);
        regions.length = 0;
      }
      regions[msg.region] = msg.out;
      return;
    }
    if (msg.walk !== walk) return; // A walk given up: its regions are gone.
    if (Atomics.compareExchange(control, CLAIMS + msg.batch, FREE, TAKEN) !== FREE) return; // The calling thread took it.
    if (data.fault === 'exit') process.exit(1);
    try {
      if (data.fault === 'throw') throw new Error('stat pool test fault');
      statBatch(msg.dirs, msg.names.split('\0'), new Float64Array(regions[msg.region] as SharedArrayBuffer, 8 * msg.offset, FIELDS * msg.count));
      Atomics.store(control, CLAIMS + msg.batch, DONE);
    } catch {
      Atomics.store(control, FAILED, 1);
    }
    Atomics.add(control, SETTLED, 1);
    Atomics.notify(control, SETTLED);
  });
  const ready = new Int32Array(data.ready);
  Atomics.store(ready, data.index, 1);
  Atomics.notify(ready, data.index);
}

export interface StatPoolOptions {
  /** Worker threads (default: one fewer than the cores, at most 3; 0: none, every stat on the calling thread). */
  threads?: number;
  /** The compiled module to run as the worker (default: this one; a TypeScript source cannot be a worker). */
  workerFile?: string;
  /** Files per batch (tests use tiny batches so that even a small tree is spread over the threads). */
  batchFiles?: number;
  /** Tests only: make the workers fail (see Fault). */
  fault?: Fault;
  /** Tests only: false leaves every posted batch to the threads (the calling thread stats only what it never posted). */
  callerStats?: boolean;
  /** Files of each walk never posted (default LEAD_FILES; tests: 0). */
  leadFiles?: number;
  /** How long the calling thread waits, in all, for the batches threads hold before it stats them itself (default GRACE_MS). */
  graceMs?: number;
}

/** What the threads and the calling thread did, over the pool's life (tests and benchmarks). */
export interface StatPoolCounts {
  /** Batches the threads statted. */
  threadBatches: number;
  /** Batches the calling thread statted. */
  callerBatches: number;
  /** Batches a thread still held past the grace, statted again by the calling thread. */
  retaken: number;
  /** Walks done again on the calling thread alone because a thread threw. */
  fallbacks: number;
}

function defaultThreads(): number {
  return Math.max(0, Math.min(3, os.availableParallelism() - 1));
}

/** Long-lived stat threads for walks (one process-wide pool: sharedStatPool). */
export class StatPool {
  private readonly threads: number;
  private readonly workerFile: string;
  readonly batchFiles: number;
  private readonly fault: Fault | undefined;
  readonly callerStats: boolean;
  readonly graceMs: number;
  readonly leadFiles: number;
  readonly counts: StatPoolCounts = { threadBatches: 0, callerBatches: 0, retaken: 0, fallbacks: 0 };
  private workers: Worker[] = [];
  private readyFlags: Int32Array | null = null;
  private failed = false;
  private largeWalks = 0;

  constructor(options: StatPoolOptions = {}) {
    this.threads = options.threads ?? defaultThreads();
    this.workerFile = options.workerFile ?? fileURLToPath(import.meta.url);
    this.batchFiles = options.batchFiles ?? BATCH_FILES;
    this.fault = options.fault;
    this.callerStats = options.callerStats ?? true;
    this.graceMs = options.graceMs ?? GRACE_MS;
    this.leadFiles = options.leadFiles ?? LEAD_FILES;
  }

  /** Whether threads can serve walks (started, and none has failed). */
  get usable(): boolean {
    return this.workers.length > 0 && !this.failed;
  }

  /** Whether the pool was given up (a thread failed or stalled): walks stay on the calling thread from then on. */
  get broken(): boolean {
    return this.failed;
  }

  /** Starts the threads (once); false where they cannot run (no threads wanted, or not compiled JavaScript). */
  start(): boolean {
    if (this.workers.length > 0 || this.failed) return this.usable;
    if (this.threads <= 0 || !this.workerFile.endsWith('.js') || !fs.existsSync(this.workerFile)) return false;
    const ready = new SharedArrayBuffer(4 * this.threads);
    this.readyFlags = new Int32Array(ready);
    try {
      for (let index = 0; index < this.threads; index++) {
        const data: PoolWorkerData = { editwardenStatPool: true, ready, index, ...(this.fault ? { fault: this.fault } : {}) };
        const worker = new Worker(this.workerFile, { workerData: data });
        worker.unref();
        // Seen between walks: a thread that died is never handed a batch again (a walk in flight notices by its stall).
        worker.on('error', () => this.giveUp());
        worker.on('exit', () => this.giveUp());
        this.workers.push(worker);
      }
    } catch {
      this.giveUp();
      return false;
    }
    return true;
  }

  /**
   * Called after each walk on the calling thread alone: the second walk of a
   * large tree starts the threads (a process that walks a large tree twice —
   * a server, a command's index and its diff — walks it again; a one-shot
   * command pays no thread start it would not use).
   */
  noteWalk(files: number): void {
    if (files < POOL_MIN_FILES || this.workers.length > 0 || this.failed) return;
    if (++this.largeWalks >= 2) this.start();
  }

  /** Waits up to `ms` for every thread to be listening (tests; walks never wait: a late thread just claims less). */
  waitReady(ms: number): boolean {
    const flags = this.readyFlags;
    if (flags === null) return false;
    const deadline = Date.now() + ms;
    for (let i = 0; i < flags.length; i++) {
      while (Atomics.load(flags, i) === 0) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        Atomics.wait(flags, i, 0, left);
      }
    }
    return true;
  }

  /** Stops the threads; the pool is not used again. */
  close(): void {
    this.giveUp();
  }

  private giveUp(): void {
    this.failed = true;
    const workers = this.workers;
    this.workers = [];
    for (const w of workers) void w.terminate();
  }

  /** A batch run for one walk (its batches go to the threads when the pool is usable, else all to the calling thread). */
  run(): StatRun {
    return new StatRun(this.usable ? this : null, this.batchFiles, Math.ceil(this.leadFiles / this.batchFiles));
  }

  private walks = 0;

  /** @internal A number for a new walk's messages. */
  nextWalk(): number {
    return ++this.walks;
  }

  private nextThread = 0;

  /**
   * @internal Posts a region to every thread, a batch to the next one in
   * turn (one message per batch, whatever the thread count): a thread that
   * lags leaves its batches unclaimed, and the calling thread takes them.
   */
  post(msg: ToWorker): void {
    if (msg.kind === 'region') {
      for (const w of this.workers) w.postMessage(msg);
      return;
    }
    const w = this.workers[this.nextThread++ % this.workers.length];
    w?.postMessage(msg);
  }

  /** @internal A walk saw a thread fail or stall. */
  lost(): void {
    this.counts.fallbacks++;
    this.giveUp();
  }
}

interface Batch {
  dirs: string[];
  names: string[];
  /** The walk's entries whose `stat` this batch fills, in order. */
  entries: Array<{ stat: StatKey | null }>;
  out: Float64Array | null;
}

/**
 * The stats of one walk: `add` queues a file (its folder's path prefix, its
 * name, the entry whose `stat` to fill); `finish` fills every entry, or
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

  add(dirPrefix: string, name: string, entry: { stat: StatKey | null }): void {
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
    for (const batch of this.batches) {
      const out = batch.out as Float64Array;
      const entries = batch.entries;
      for (let j = 0; j < entries.length; j++) (entries[j] as { stat: StatKey | null }).stat = keyAt(out, j * FIELDS);
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

/** The process's pool, made on first use. */
let shared: StatPool | null = null;
export function sharedStatPool(): StatPool {
  shared ??= new StatPool();
  return shared;
}
