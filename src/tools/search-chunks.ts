/**
 * The chunk protocol shared by the calling thread and the search workers
 * (search-worker.ts): the file list handed out in chunks of CHUNK, the
 * shared control array threads claim chunks and count matches through, and
 * the in-order merge of chunk results (cut at maxResults exactly as
 * searchFiles cuts). Pure bookkeeping over FileSearcher; reads files only
 * through it, writes nothing.
 */
import type { Worker } from 'node:worker_threads';
import { emptyOutcome, FileSearcher, type PortableQuery, type SearchOutcome } from './search.js';

/** Files per claim: small enough to balance threads on a loaded machine, large enough that claiming costs nothing. */
export const CHUNK = 256;
/** Slots of a search's shared control array. */
export const NEXT = 0; // The next chunk to claim; set past any chunk when the search closes.
export const FOUND = 1; // Matches found so far: no chunk is claimed once maxResults are found.
export const CLOSED = 1 << 30;

export type ToWorker = { kind: 'start'; job: number; root: string; query: PortableQuery; control: SharedArrayBuffer } | { kind: 'chunk'; job: number; id: number; files: string[] };
export type FromWorker = { job: number; id: number; out: SearchOutcome };

/**
 * Claims chunks below `available` and searches each to its end (or its own
 * maxResults). Chunks are claimed in order, so once maxResults matches are
 * found in claimed chunks no later chunk can be needed.
 */
export function claimAndSearch(control: Int32Array, available: number, maxResults: number, search: (id: number) => SearchOutcome, report: (id: number, out: SearchOutcome) => void): void {
  for (;;) {
    if (Atomics.load(control, FOUND) >= maxResults) return;
    const id = Atomics.load(control, NEXT);
    if (id >= available) return;
    if (Atomics.compareExchange(control, NEXT, id, id + 1) !== id) continue; // Another thread took it.
    const out = search(id);
    Atomics.add(control, FOUND, out.matches.length);
    report(id, out);
  }
}

export function searchChunk(searcher: FileSearcher, files: readonly string[], from: number, to: number): SearchOutcome {
  const out = emptyOutcome();
  try {
    for (let i = from; i < to; i++) if (!searcher.searchFile(files[i] as string, out)) break;
  } finally {
    searcher.release();
  }
  return out;
}

/**
 * One search job as the workers see it: the files found so far, handed out
 * in chunks of CHUNK, and the shared control array they claim chunks and
 * count matches through. The pooled and the isolated search feed workers
 * the same way; only who the workers are differs.
 */
export class JobFeed {
  readonly files: string[] = [];
  readonly control = new Int32Array(new SharedArrayBuffer(8));
  private posted = 0;

  constructor(
    readonly job: number,
    private readonly root: string,
    private readonly query: PortableQuery,
  ) {}

  /** Tells `workers` about the job (before any chunk). */
  begin(workers: readonly Worker[]): void {
    const msg: ToWorker = { kind: 'start', job: this.job, root: this.root, query: this.query, control: this.control.buffer as SharedArrayBuffer };
    for (const w of workers) w.postMessage(msg);
  }

  /** Posts every chunk below `upTo` not posted yet. */
  post(workers: readonly Worker[], upTo: number): void {
    for (; this.posted < upTo; this.posted++) {
      const msg: ToWorker = { kind: 'chunk', job: this.job, id: this.posted, files: this.files.slice(this.posted * CHUNK, (this.posted + 1) * CHUNK) };
      for (const w of workers) w.postMessage(msg);
    }
  }
}

/** The files of a short list, in order, on this thread. */
export function searchList(root: string, files: readonly string[], query: PortableQuery): SearchOutcome {
  return searchChunk(new FileSearcher(query, root), files, 0, files.length);
}

/** Chunk results in order, cut at maxResults as searchFiles cuts; a chunk a failed thread left is searched here. */
export function merge(root: string, files: readonly string[], query: PortableQuery, results: Array<SearchOutcome | undefined>, claimed: number): SearchOutcome {
  const out = emptyOutcome();
  let searcher: FileSearcher | null = null;
  for (let id = 0; id < claimed && !out.truncated; id++) {
    const part = results[id] ?? searchChunk((searcher ??= new FileSearcher(query, root)), files, id * CHUNK, Math.min(files.length, (id + 1) * CHUNK));
    out.filesSearched += part.filesSearched;
    out.filesMatched += part.filesMatched;
    out.skippedBinary += part.skippedBinary;
    out.skippedLarge += part.skippedLarge;
    for (const m of part.matches) {
      out.matches.push(m);
      if (out.matches.length >= query.maxResults) {
        out.truncated = true;
        break;
      }
    }
  }
  return out;
}
