/**
 * The walk's per-file lstat on more than one thread: StatPool (long-lived
 * worker threads, unref'd so they never hold the process open) and the
 * worker's body (run when this module is loaded as a worker); the calling
 * thread's side of a walk is stat-run.ts, the protocol stat-batch.ts. The walk (walk.ts) lists folders on the calling thread and hands
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
import { CLAIMS, DONE, FAILED, FIELDS, FREE, SETTLED, statBatch, TAKEN, type ToWorker } from './stat-batch.js';
import { StatRun } from './stat-run.js';

/** Files per batch: small enough that the threads finish together, large enough that a message is worth its cost. */
const BATCH_FILES = 256;
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

/** For tests: how a worker misbehaves (`throw`: fails each batch it claims; `exit`: claims one batch and ends its thread). */
type Fault = 'throw' | 'exit';

interface PoolWorkerData {
  editwardenStatPool: true;
  ready: SharedArrayBuffer;
  index: number;
  fault?: Fault;
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

/** The process's pool, made on first use. */
let shared: StatPool | null = null;
export function sharedStatPool(): StatPool {
  shared ??= new StatPool();
  return shared;
}
