/**
 * Making things durable: fsync of files and folders, one at a time or as a
 * group. A group is a set of fsyncs with no order among them (say, a
 * checkpoint's manifest, its folder and the temp file of the write it
 * covers): its fsyncs run at the same time on a helper thread next to the
 * caller's own, so the group costs one disk round trip, not one each — the
 * file system commits them together. Every caller still waits until the
 * whole group is on disk before the step that depends on it (a rename).
 *
 * The helpers (EDITWARDEN_PARALLEL_FSYNC=1; off by default: measured on a
 * loaded 2-core machine, waking another thread and the concurrent journal
 * commits cost more than the overlap saved — docs/benchmarks.md) are worker
 * threads of this process, started on the second group (a process that
 * writes twice is a long-running one; a one-shot command never pays for the
 * threads) and used only once they are ready; without them (or when they are
 * busy) the group is fsynced in order on the calling thread. Nothing is ever reported durable that was not
 * fsynced: an fsync error on either thread is thrown to the caller.
 *
 * Also the one place fsyncs and renames of the write protocol are reported
 * to an observer (tests pin the protocol's order with it; a crash test
 * kills a real process at each step). This module never decides WHAT must
 * be durable, only does it.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { appendAll } from '../arrays.js';

/** A step of the write protocol, as an observer sees it. */
export type DurableEvent =
  | { op: 'fsync'; path: string }
  | { op: 'group'; paths: readonly string[]; parallel: boolean }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; path: string }
  | { op: 'checkpoint'; id: string; durable: boolean }
  | { op: 'journal'; tx: string; action: 'write' | 'close' }
  | { op: 'temp'; path: string }
  | { op: 'defer'; paths: readonly string[] };

let observer: ((event: DurableEvent) => void) | null = null;

/** Reports every protocol step to `fn` (tests only: ordering checks and crash injection); null stops it. */
export function setDurableObserver(fn: ((event: DurableEvent) => void) | null): void {
  observer = fn;
}

/** @internal */
export function observe(event: DurableEvent): void {
  observer?.(event);
}

const C = fs.constants;

/** fsync of a path: a regular file, or a folder (where the file system refuses folders, the rename is still atomic). */
function fsyncPath(p: string): void {
  let fd: number;
  try {
    // O_NOFOLLOW: a planted symlink in editwarden's state is never opened (an fsync through it would be harmless, but still).
    fd = fs.openSync(p, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder some file systems refuse to open read-only is not data we could lose.
    if (code === 'EISDIR' || code === 'EACCES') return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    if (!isFolderRefusal(fd, error)) throw error;
  } finally {
    fs.closeSync(fd);
  }
  observe({ op: 'fsync', path: p });
}

/** EINVAL on a folder: the file system does not fsync folders. */
function isFolderRefusal(fd: number, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EINVAL' && code !== 'ENOTSUP') return false;
  try {
    return fs.fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Makes every path of `paths` durable (order among them does not matter),
 * while `alongside` (the caller's own fsync, e.g. of the temp file) runs on
 * this thread. Returns once all are on disk; throws the first error.
 */
export function syncGroup(paths: readonly string[], alongside?: () => void): void {
  const unique = [...new Set(paths)];
  if (unique.length === 0) {
    alongside?.();
    return;
  }
  // One path per helper thread where there are enough: fsyncs of one thread run one after another.
  const helpers = SyncHelper.ready(unique.length);
  const share: string[][] = helpers.map(() => []);
  unique.forEach((p, i) => share[i % Math.max(1, helpers.length)]?.push(p));
  const pending = helpers.map((h, i) => ({ paths: share[i] as string[], job: h.start(share[i] as string[]) }));
  const mine = pending.filter((p) => p.job === null).flatMap((p) => p.paths);
  if (helpers.length === 0) appendAll(mine, unique);
  observe({ op: 'group', paths: unique, parallel: mine.length < unique.length });
  let first: unknown = null;
  try {
    alongside?.();
  } catch (error) {
    first = error;
  }
  for (const { paths: theirs, job } of pending) {
    if (job === null) continue;
    const outcome = job.wait();
    // The helper died under us: nothing is known of its share, so this thread does it.
    if (outcome === 'lost') appendAll(mine, theirs);
    else if (outcome === null) for (const p of theirs) observe({ op: 'fsync', path: p });
    else first ??= outcome;
  }
  if (first === null) for (const p of mine) fsyncPath(p);
  if (first !== null) throw first;
}

// ---- deferred durability (checkpoints.durability: deferred; docs/checkpoints.md) ----

let longLived = false;

/**
 * Called by a long-lived server (the MCP server, the hook server) as it
 * starts: it answers, then settles (settleDurable), so its projects may take
 * checkpoints.durability: deferred. A one-shot command never calls it: it has
 * no "after its answer" before it exits, and stays strict whatever the config.
 */
export function markLongLived(): void {
  longLived = true;
}

export function isLongLived(): boolean {
  return longLived;
}

/** Paths whose fsync a long-lived server runs after its answer, in the order deferred. Always empty in a one-shot process. */
const deferredPaths: string[] = [];
/** Files whose fsync waits for the settle, held open by the descriptor they were written through (deferFileSync). */
const deferredFiles: { fd: number; label: string }[] = [];
let deferredFailure: { error: Error; paths: string[] } | null = null;
let exitHooked = false;

/**
 * Takes paths out of the write's own round trip: `settleDurable` fsyncs them
 * after the server has answered, and before it answers anything else. Only
 * what "old or new" does not rest on may be deferred (the transaction layer
 * decides: a lone write's checkpoint and the folder of its rename; its temp
 * file only through deferFileSync, where the rename is ordered after it).
 */
export function deferDurable(paths: readonly string[]): void {
  if (paths.length === 0) return;
  settleOnExit();
  appendAll(deferredPaths, paths);
  observe({ op: 'defer', paths: [...paths] });
}

/**
 * Takes a written file's own fsync out of the write's round trip: `fd`
 * (open on the file, handed over: the settle closes it) is fsynced by
 * `settleDurable`. Through the descriptor, not the name: the settle makes
 * durable exactly the inode that was written, wherever its folder went.
 * Only for a replace whose rename the file system orders after the data
 * (replace-order.ts; atomic.ts decides). `label` names it for the observer
 * and in a failure.
 */
export function deferFileSync(fd: number, label: string): void {
  settleOnExit();
  deferredFiles.push({ fd, label });
  observe({ op: 'defer', paths: [label] });
}

/** A process that ends (normally) between its answer and the settle still leaves nothing behind. */
function settleOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', settleDurable);
}

/** Whether any deferred fsync still waits. */
export function hasDeferred(): boolean {
  return deferredPaths.length > 0 || deferredFiles.length > 0;
}

/**
 * Makes every deferred path durable now. A path gone meanwhile (a pruned
 * checkpoint, a folder removed) has nothing left to keep; any other fsync
 * failure is kept for `takeDurabilityFailure`, so the next answer says it.
 */
export function settleDurable(): void {
  while (hasDeferred()) {
    // The written files first: their data is what the checkpoint and the folder's entry describe.
    for (const { fd, label } of deferredFiles.splice(0)) {
      try {
        fs.fsyncSync(fd);
        observe({ op: 'fsync', path: label });
      } catch (error) {
        keepFailure(error, label);
      } finally {
        fs.closeSync(fd);
      }
    }
    const batch = [...new Set(deferredPaths.splice(0))];
    for (const p of batch) {
      try {
        fsyncPath(p);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        keepFailure(error, p);
      }
    }
  }
}

function keepFailure(error: unknown, what: string): void {
  if (deferredFailure === null) deferredFailure = { error: error as Error, paths: [] };
  deferredFailure.paths.push(what);
}

/** The deferred fsync that failed since the last call (and the paths it covered), once; null when all went to disk. */
export function takeDurabilityFailure(): { error: Error; paths: string[] } | null {
  const failure = deferredFailure;
  deferredFailure = null;
  return failure;
}

// ---- the helper thread ----

/** Control words: [0] state (0 idle, 1 request, 2 done), [1] byte length of the request, [2] errno-ish code of a failure (0: none), [3] index of the failing path. */
const IDLE = 0;
const REQUEST = 1;
const DONE = 2;
const PATH_BYTES = 64 * 1024;
/** Longer than any fsync takes on a working disk: after it, the helper is given up and this thread fsyncs itself. */
const HELPER_LIMIT_MS = 60_000;
/** Helper threads: a write's group is the checkpoint manifest and its folder (plus a blob and its folder, a journal record and its folder). */
const POOL_SIZE = 3;

/** The worker: waits for a request, fsyncs each NUL-separated path, reports. Runs as CommonJS (eval). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const ctl = new Int32Array(workerData.control);
const bytes = new Uint8Array(workerData.paths);
const C = fs.constants;
const decoder = new TextDecoder();
for (;;) {
  if (Atomics.wait(ctl, 0, ${IDLE}, 1000) === 'timed-out' && Atomics.load(ctl, 0) !== ${REQUEST}) continue;
  if (Atomics.load(ctl, 0) !== ${REQUEST}) continue;
  const paths = decoder.decode(bytes.slice(0, ctl[1])).split('\\0');
  let code = 0;
  let at = -1;
  for (let i = 0; i < paths.length && code === 0; i++) {
    let fd = -1;
    try {
      fd = fs.openSync(paths[i], C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
      try {
        fs.fsyncSync(fd);
      } catch (error) {
        const folder = (error.code === 'EINVAL' || error.code === 'ENOTSUP') && fs.fstatSync(fd).isDirectory();
        if (!folder) { code = error.errno ? -error.errno : 1; at = i; }
      }
    } catch (error) {
      if (error.code !== 'EISDIR' && error.code !== 'EACCES') { code = error.errno ? -error.errno : 1; at = i; }
    } finally {
      if (fd >= 0) fs.closeSync(fd);
    }
  }
  ctl[2] = code;
  ctl[3] = at;
  Atomics.store(ctl, 0, ${DONE});
  Atomics.notify(ctl, 0);
}
`;

interface Pending {
  /** Waits for the helper: null when every fsync succeeded, the error of a failed one, or 'lost' when the helper died (nothing is known). */
  wait(): Error | null | 'lost';
}

class SyncHelper {
  private static pool: SyncHelper[] | null = null;
  private static groups = 0;

  private readonly control = new SharedArrayBuffer(16);
  private readonly paths = new SharedArrayBuffer(PATH_BYTES);
  private readonly ctl = new Int32Array(this.control);
  private online = false;
  private broken = false;

  private constructor() {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { control: this.control, paths: this.paths } });
    worker.unref();
    worker.once('online', () => {
      this.online = true;
    });
    worker.once('error', () => {
      this.broken = true;
    });
    worker.once('exit', () => {
      this.broken = true;
    });
  }

  /**
   * Up to `wanted` helpers that are ready (none: the caller fsyncs alone).
   * The pool starts on the second group of this process (see the module comment).
   */
  static ready(wanted: number): SyncHelper[] {
    // Opt-in: on a loaded 2-core machine the hand-off to another thread cost more than the overlap saved (docs/benchmarks.md).
    if (process.env.EDITWARDEN_PARALLEL_FSYNC !== '1') return [];
    SyncHelper.groups++;
    if (SyncHelper.pool === null) {
      if (SyncHelper.groups >= 2) SyncHelper.pool = Array.from({ length: POOL_SIZE }, () => new SyncHelper());
      return [];
    }
    return SyncHelper.pool.filter((h) => h.online && !h.broken && Atomics.load(h.ctl, 0) === IDLE).slice(0, wanted);
  }

  /** Hands `paths` to this helper; null when it is busy or they do not fit (the caller fsyncs them itself). */
  start(paths: readonly string[]): Pending | null {
    if (Atomics.load(this.ctl, 0) !== IDLE) return null;
    const encoded = Buffer.from(paths.join('\0'), 'utf8');
    if (encoded.length > PATH_BYTES || paths.some((p) => p.includes('\0'))) return null;
    new Uint8Array(this.paths).set(encoded);
    this.ctl[1] = encoded.length;
    this.ctl[2] = 0;
    Atomics.store(this.ctl, 0, REQUEST);
    Atomics.notify(this.ctl, 0);
    return {
      wait: (): Error | null | 'lost' => {
        // The helper always answers; the limit only guards against a helper that died under us (its exit event cannot arrive while this thread waits).
        const deadline = Date.now() + HELPER_LIMIT_MS;
        while (Atomics.load(this.ctl, 0) === REQUEST) {
          if (Atomics.wait(this.ctl, 0, REQUEST, 1000) === 'timed-out' && (this.broken || Date.now() > deadline)) {
            this.broken = true;
            return 'lost';
          }
        }
        const code = this.ctl[2] as number;
        const at = this.ctl[3] as number;
        Atomics.store(this.ctl, 0, IDLE);
        if (code === 0) return null;
        const error = new Error(`fsync of ${paths[at] ?? 'a file'} failed (errno ${-code})`) as NodeJS.ErrnoException;
        error.errno = code;
        return error;
      },
    };
  }
}
