/**
 * search_files on more than one thread, both sides of it: SearchPool (the
 * calling thread walks and hands out the file list in chunks as the walk
 * finds them; it and long-lived worker threads take chunks from one shared
 * counter) and the worker's body (run when this module is loaded as a
 * worker). Results are merged in walk order, so a search gives exactly
 * what searchFiles gives. Read-only, like the search itself; never holds
 * the process open (idle workers are unref'd).
 *
 * A user's regular expression never runs on the calling thread: a
 * catastrophic one (`(a+)+$`) would block it, and with it every other MCP
 * call and every deadline timer. Such a search runs on worker threads leased
 * to it alone and is stopped — its workers terminated — when it outlives its
 * time budget or its signal aborts (E_SEARCH_TIMEOUT).
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { EditwardenError, ErrorCode, quote } from '../errors.js';
import { walkFiles } from '../workspace/file-walk.js';
import { emptyOutcome, FileSearcher, globFilter, searchFiles, type SearchOutcome, type SearchQuery } from './search.js';
import { CHUNK, CLOSED, claimAndSearch, FOUND, type FromWorker, JobFeed, merge, NEXT, searchChunk, searchList, type ToWorker } from './search-chunks.js';
import { defined } from '../defined.js';
import { cwdLendable } from './search-cwd.js';

/** Files a regular-expression search screens before it judges whether screening pays (it stops when most pass). */
const SCREEN_TRIAL = 256;
/** Below this many files a search stays on the calling thread: handing out chunks would cost more than it saves. */
const PARALLEL_MIN_FILES = 2000;

if (!isMainThread && parentPort && (workerData as { editwardenSearch?: true } | null)?.editwardenSearch) {
  const port = parentPort;
  let current: { job: number; searcher: FileSearcher; control: Int32Array; maxResults: number; chunks: string[][] } | null = null;
  port.on('message', (msg: ToWorker) => {
    switch (msg.kind) {
      case 'start':
        current = { job: msg.job, searcher: new FileSearcher(msg.query, msg.root), control: new Int32Array(msg.control), maxResults: msg.query.maxResults, chunks: [] };
        return;
      case 'chunk': {
        const job = current;
        if (job === null || job.job !== msg.job) return;
        // Chunks arrive in order: every chunk below this one is here too.
        job.chunks[msg.id] = msg.files;
        claimAndSearch(
          job.control,
          msg.id + 1,
          job.maxResults,
          (id) => {
            const files = job.chunks[id] as string[];
            return searchChunk(job.searcher, files, 0, files.length);
          },
          (id, out) => port.postMessage({ job: job.job, id, out } satisfies FromWorker),
        );
        return;
      }
      default: {
        const never: never = msg;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  });
}

/**
 * Searches with the calling thread and up to `threads - 1` worker threads
 * (a literal search on a thread that can be lent the working folder stays
 * on that thread: cheaper per file than two threads), these
 * started on the first search that reaches PARALLEL_MIN_FILES files and
 * kept for the next ones (starting a thread costs about as much CPU as
 * searching 5,000 files). One pool serves any number of searches, also
 * concurrent ones. Where the worker script is not available (running from
 * TypeScript sources) every search runs on the calling thread.
 */
export class SearchPool {
  private readonly workerFile = fileURLToPath(import.meta.url);
  private readonly usable: boolean;
  private workers: Worker[] = [];
  private jobs = 0;
  private readonly waiting = new Map<number, { deliver: (msg: FromWorker) => void; lost: () => void }>();
  /** Whether worker threads can be started at all (not when running from TypeScript sources). */
  private readonly workersAvailable: boolean;
  /** Workers for regular-expression searches waiting for their next lease. */
  private idle: Worker[] = [];
  /** The search each leased worker serves. */
  private readonly leases = new Map<Worker, number>();

  /** Whether a literal search may use the worker threads even where the calling thread can be lent the working folder. */
  private readonly literalOnThreads: boolean;

  constructor(
    private readonly threads = defaultThreads(),
    options: { literalOnThreads?: boolean } = {},
  ) {
    this.workersAvailable = this.workerFile.endsWith('.js') && fs.existsSync(this.workerFile);
    this.usable = threads >= 2 && this.workersAvailable;
    this.literalOnThreads = options.literalOnThreads ?? false;
  }

  /**
   * `budgetMs` bounds a regular-expression search (default: none); past it,
   * or once `query.signal` aborts, the search stops with E_SEARCH_TIMEOUT.
   */
  async search(root: string, query: SearchQuery, budgetMs = Number.POSITIVE_INFINITY): Promise<SearchOutcome> {
    if (query.regex && this.workersAvailable) return this.searchIsolated(root, query, budgetMs);
    // On a thread that can be lent the working folder, a literal search opens each file by name (search-cwd.ts); a worker
    // thread cannot, and its open through procfs costs ~1.5× the CPU per file. Measured on 2 cores, 5,000 files: one
    // thread 1.14× grep's CPU, this thread and a worker 1.48×, and no faster in wall time either (docs/benchmarks.md).
    if (!this.usable || (cwdLendable() && !this.literalOnThreads)) return searchFiles(root, query);
    const { signal, ...portable } = query;
    const filter = globFilter(query.globs);
    const feed = new JobFeed(++this.jobs, root, portable);
    const { files, control, job } = feed;
    let workers: Worker[] = [];
    const post = (upTo: number): void => feed.post(workers, upTo);
    walkFiles(
      root,
      (rel, type) => {
        if (type !== 'file' || (filter && !filter(rel))) return undefined;
        files.push(rel);
        if (files.length === PARALLEL_MIN_FILES) {
          workers = this.start();
          feed.begin(workers);
        }
        // The workers search while the walk goes on.
        if (workers.length > 0 && files.length % CHUNK === 0) {
          post(files.length / CHUNK);
          if (Atomics.load(control, FOUND) >= query.maxResults) return false;
        }
        return undefined;
      },
      { start: query.start, ...defined({ signal }) },
    );
    if (workers.length === 0) return searchList(root, files, portable);
    const chunks = Math.ceil(files.length / CHUNK);
    post(chunks);

    const results: Array<SearchOutcome | undefined> = [];
    let present = 0;
    let claimed = Number.POSITIVE_INFINITY;
    let alive = workers.length;
    let wake: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      wake = () => {
        if (present >= claimed || alive === 0) resolve();
      };
    });
    // Delivered only once this thread yields: its own share below blocks the event loop.
    this.collect(
      job,
      results,
      () => {
        present++;
        wake();
      },
      () => {
        alive--;
        wake();
      },
    );
    for (const w of workers) w.ref();
    try {
      const searcher = new FileSearcher(portable, root);
      claimAndSearch(
        control,
        chunks,
        query.maxResults,
        (id) => searchChunk(searcher, files, id * CHUNK, Math.min(files.length, (id + 1) * CHUNK)),
        (id, out) => {
          results[id] = out;
          present++;
        },
      );
      // Close the counter: no thread claims a chunk after this; the ones claimed before are awaited.
      claimed = Math.min(Atomics.exchange(control, NEXT, CLOSED), chunks);
      wake();
      await settled;
      return merge(root, files, portable, results, claimed);
    } finally {
      this.waiting.delete(job);
      if (this.waiting.size === 0) for (const w of this.workers) w.unref();
    }
  }

  /** Registers where a job's chunk outcomes land: `results[chunk]`, then `answered`; `lost` when one of its threads dies. */
  private collect(job: number, results: Array<SearchOutcome | undefined>, answered: () => void, lost: () => void): void {
    this.waiting.set(job, {
      deliver: (msg) => {
        results[msg.id] = msg.out;
        answered();
      },
      lost,
    });
  }

  /**
   * A regular-expression search: this thread walks and hands out chunks,
   * only leased workers run the expression. Stopped at `budgetMs` or when
   * the signal aborts: the leased workers are terminated (a thread stuck in
   * a backtracking expression cannot be asked to stop) and the search fails
   * with E_SEARCH_TIMEOUT; this thread never waits on them.
   */
  private async searchIsolated(root: string, query: SearchQuery, budgetMs: number): Promise<SearchOutcome> {
    const started = Date.now();
    const { signal, ...portable } = query;
    const filter = globFilter(query.globs);
    const feed = new JobFeed(++this.jobs, root, portable);
    const { files, control, job } = feed;
    let leased: Worker[] = [];
    const lease = (n: number): void => {
      leased = this.lease(n, job);
      feed.begin(leased);
    };
    const post = (upTo: number): void => feed.post(leased, upTo);
    const results: Array<SearchOutcome | undefined> = [];
    let present = 0;
    let lost = false;
    let wake: () => void = () => undefined;
    // Registered before any chunk is posted: a fast worker may answer while the walk goes on.
    this.collect(
      job,
      results,
      () => {
        present++;
        wake();
      },
      () => {
        lost = true;
        wake();
      },
    );
    // The text every match needs is looked for on this thread, which reads files by name in the lent working folder
    // (search-cwd.ts); only the files holding it go to the leased threads, and only they run the expression.
    const screen = cwdLendable() ? new FileSearcher(portable, root) : null;
    const screened = emptyOutcome();
    let screening = screen?.screens ?? false;
    let looked = 0;
    let passed = 0;
    try {
      try {
        walkFiles(
          root,
          (rel, type, _abs, dir, name) => {
            if (type !== 'file' || (filter && !filter(rel))) return undefined;
            if (screening) {
              if (!(screen as FileSearcher).mayMatchIn(dir, name, screened)) {
                looked++;
                return undefined;
              }
              // Most files hold the text: screening them only reads them twice.
              if (++passed * 2 > ++looked && looked >= SCREEN_TRIAL) {
                screening = false;
                screen?.release();
              }
            }
            files.push(rel);
            if (files.length === PARALLEL_MIN_FILES) lease(this.threads);
            if (leased.length > 0 && files.length % CHUNK === 0) {
              post(files.length / CHUNK);
              if (Atomics.load(control, FOUND) >= query.maxResults) return false;
            }
            return undefined;
          },
          { start: query.start, ...defined({ signal }) },
        );
      } finally {
        screen?.release();
      }
      const chunks = Math.ceil(files.length / CHUNK);
      if (chunks === 0) return screened;
      if (leased.length === 0) lease(1);
      post(chunks);
      const left = budgetMs - (Date.now() - started);
      let claimed: number | null = null;
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const stop = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = (): void => {
          stop();
          reject(this.timedOut(query.pattern, budgetMs, signal?.aborted === true && Date.now() - started < budgetMs));
        };
        wake = () => {
          if (lost) {
            stop();
            reject(new EditwardenError({ code: ErrorCode.INTERNAL, message: 'A search thread stopped before it finished.', hint: 'Run the search again.' }));
            return;
          }
          // Enough matches: close the counter; the chunks claimed before are awaited.
          if (claimed === null && Atomics.load(control, FOUND) >= query.maxResults) claimed = Math.min(Atomics.exchange(control, NEXT, CLOSED), chunks);
          if (present >= (claimed ?? chunks)) {
            stop();
            resolve();
          }
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        if (Number.isFinite(budgetMs)) timer = setTimeout(onAbort, Math.max(0, left));
        wake();
      });
      const out = merge(root, files, portable, results, claimed ?? chunks);
      out.filesSearched += screened.filesSearched;
      out.skippedLarge += screened.skippedLarge;
      this.release(leased);
      leased = [];
      return out;
    } finally {
      this.waiting.delete(job);
      // Still leased here: the search failed or was stopped. Its threads may be stuck in the expression.
      for (const w of leased) this.discard(w);
    }
  }

  private timedOut(pattern: string, budgetMs: number, cancelled: boolean): EditwardenError {
    if (cancelled) {
      return new EditwardenError({
        code: ErrorCode.SEARCH_TIMEOUT,
        message: `The search for ${quote(pattern)} was stopped: its call was cancelled or reached the run's deadline.`,
        hint: 'Search again with a simpler expression, a literal (regex: false), or a narrower path or glob.',
      });
    }
    return new EditwardenError({
      code: ErrorCode.SEARCH_TIMEOUT,
      message: `The regular expression ${quote(pattern)} did not finish within ${Math.round(budgetMs) / 1000} s and was stopped.`,
      hint: 'Nested repetition such as (a+)+ or (a|a)* can take exponential time: rewrite the expression without it, search a literal (regex: false), or narrow the search with path or glob. The budget is search.timeout in .editwarden.yml.',
    });
  }

  /** `n` workers for one search, idle ones first. */
  private lease(n: number, job: number): Worker[] {
    const out: Worker[] = [];
    while (out.length < n) {
      const w = this.idle.pop() ?? this.spawn(true);
      this.leases.set(w, job);
      w.ref();
      out.push(w);
    }
    return out;
  }

  private release(workers: readonly Worker[]): void {
    for (const w of workers) {
      this.leases.delete(w);
      w.unref();
      this.idle.push(w);
    }
  }

  private discard(w: Worker): void {
    this.leases.delete(w);
    this.idle = this.idle.filter((x) => x !== w);
    w.terminate().catch(() => undefined);
  }

  /** Stops the worker threads; a later search starts new ones. */
  async close(): Promise<void> {
    const workers = [...this.workers, ...this.idle, ...this.leases.keys()];
    this.workers = [];
    this.idle = [];
    this.leases.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private start(): Worker[] {
    while (this.workers.length < this.threads - 1) this.workers.push(this.spawn(false));
    return [...this.workers];
  }

  /** A worker thread: shared (literal searches) or leased (one regular-expression search at a time). */
  private spawn(leased: boolean): Worker {
    const worker = new Worker(this.workerFile, { workerData: { editwardenSearch: true } });
    worker.unref();
    worker.on('message', (msg: FromWorker) => this.waiting.get(msg.job)?.deliver(msg));
    const gone = (): void => {
      if (leased) {
        // A leased thread that fails fails its own search only (never searched again on this thread).
        const job = this.leases.get(worker);
        this.leases.delete(worker);
        this.idle = this.idle.filter((w) => w !== worker);
        if (job !== undefined) this.waiting.get(job)?.lost();
        return;
      }
      // A shared thread that fails leaves its claimed chunks unsearched; merge searches them on the calling thread.
      if (!this.workers.includes(worker)) return;
      this.workers = this.workers.filter((w) => w !== worker);
      for (const waiter of this.waiting.values()) waiter.lost();
    };
    worker.once('error', gone);
    worker.once('exit', gone);
    return worker;
  }
}

/** One thread per core, at most four (reading files stops scaling there). */
function defaultThreads(): number {
  return Math.min(4, os.availableParallelism());
}
