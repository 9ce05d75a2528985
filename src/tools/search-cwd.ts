/**
 * The calling thread's working folder, lent to a search while it reads one
 * folder's files. Opening a file by its bare name relative to the working
 * folder costs what an `openat` on the folder's descriptor costs; the other
 * exact route, `/proc/self/fd/<folder>/<name>`, makes the kernel walk procfs
 * for every file, ~2.3 µs of the ~5 µs an open + close costs
 * (docs/benchmarks.md, "Search: what a file costs"). The working folder is
 * entered through the folder's own descriptor (`/proc/self/fd/N`, a magic
 * link: the very folder the resolver opened, never a path looked up again),
 * so a name read there is exactly the name the walk listed in that folder.
 *
 * Lent only on the main thread (a worker thread cannot `chdir`), only inside
 * one synchronous stretch of a search (no other JavaScript of this thread
 * runs before it is given back), and to one search at a time. The folder
 * before is held open and returned to by its descriptor, never by its name
 * (it may have been renamed meanwhile). editwarden's other threads never
 * resolve a relative path: the stat and fsync helpers and the search workers
 * work on absolute paths and descriptors. Where any of this does not hold,
 * `borrowCwd` answers null and the search opens through procfs as before.
 */
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import type { DirHandle } from '../workspace/resolver.js';

const C = fs.constants;

/** Whether a search holds the working folder now: a second one opens through procfs instead. */
let held = false;

export class BorrowedCwd {
  private entered: DirHandle | null = null;
  /** Whether the working folder was ever moved (nothing to put back otherwise). */
  private moved = false;
  private released = false;

  constructor(
    /** The working folder before the loan, opened. */
    private readonly before: number,
  ) {}

  /**
   * Makes `dir` the working folder, so its files are opened by name; false
   * when it cannot be entered (the caller opens through procfs).
   */
  enter(dir: DirHandle): boolean {
    if (this.released || !dir.viaFd) return false;
    if (this.entered === dir) return true;
    this.entered = null;
    try {
      this.moved = true;
      process.chdir(dir.self);
    } catch {
      return false; // Still where it was (chdir changes nothing when it fails).
    }
    this.entered = dir;
    return true;
  }

  /** Whether `dir` is the working folder now. */
  inside(dir: DirHandle): boolean {
    return this.entered === dir;
  }

  /** Gives the working folder back (idempotent). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.entered = null;
    held = false;
    try {
      if (this.moved) process.chdir(`/proc/self/fd/${this.before}`);
    } finally {
      fs.closeSync(this.before);
    }
  }
}

/**
 * Whether this thread can be lent the working folder at all (a search on it
 * then opens files by name): the main thread on Linux. Without procfs
 * mounted the loan fails at its proof (`borrowCwd`), and a folder the
 * resolver opened without it (`viaFd` false) is never entered.
 */
export function cwdLendable(): boolean {
  return isMainThread && process.platform === 'linux';
}

/**
 * The working folder for one synchronous stretch of a search, or null where
 * it cannot be lent (a worker thread, another search holding it, no procfs,
 * a working folder this process could not enter again through it). Release it in a
 * `finally`.
 */
export function borrowCwd(): BorrowedCwd | null {
  if (held || !cwdLendable()) return null;
  let before: number;
  try {
    before = fs.openSync('.', C.O_RDONLY | C.O_DIRECTORY);
  } catch {
    return null; // A working folder we may not read.
  }
  try {
    // Entering it again through its descriptor now proves it can be given back (a folder we may read but not enter cannot).
    process.chdir(`/proc/self/fd/${before}`);
  } catch {
    fs.closeSync(before);
    return null;
  }
  held = true;
  return new BorrowedCwd(before);
}
