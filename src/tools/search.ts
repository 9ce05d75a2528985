/**
 * The search behind search_files: a literal or a regular expression over the
 * files of the root that git would not ignore, optionally filtered by globs,
 * reporting `path:line:text` like `grep -rn`. Literal searches run on the
 * raw bytes and decode only the lines that match; a regular expression is
 * run only on files that contain the literal text every match must contain.
 * So the cost of a search is the cost of reading the files, and that is
 * one open, one read and one close per file into a reused buffer.
 * Read-only; files that look binary (a NUL byte) are skipped, as grep does
 * for text output.
 */
import fs from 'node:fs';
import picomatch from 'picomatch';
import { checkGlob } from '../config/glob-bounds.js';
import { READ_FLAGS, Resolver, type DirHandle } from '../workspace/resolver.js';
import { walkFiles } from '../workspace/file-walk.js';
import { defined } from '../defined.js';
import { borrowCwd, type BorrowedCwd } from './search-cwd.js';
import { type CompiledQuery, compileMatcher } from './search-match.js';

export interface SearchQuery {
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
  /** Folder to search, relative to the root ("" for all). */
  start: string;
  /** Globs on the path relative to the root; a glob without "/" matches the file name at any depth. */
  globs: string[];
  maxResults: number;
  /** Files larger than this are skipped (counted in `skippedLarge`). */
  maxFileBytes: number;
  signal?: AbortSignal;
}

interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  filesSearched: number;
  filesMatched: number;
  skippedBinary: number;
  skippedLarge: number;
  /** Stopped at maxResults. */
  truncated: boolean;
}

/** The query without what cannot cross a thread (the signal). */
export type PortableQuery = Omit<SearchQuery, 'signal'>;

/** Longest line text returned per match: minified files have megabyte lines. */
const MAX_LINE_CHARS = 300;
const NEWLINE = 0x0a;

export function globFilter(globs: string[]): ((rel: string) => boolean) | null {
  if (globs.length === 0) return null;
  for (const g of globs) checkGlob(g, 'glob');
  const tests = globs.map((g) => picomatch(g, { dot: true, basename: !g.includes('/') }));
  return (rel) => tests.some((t) => t(rel));
}

export function emptyOutcome(): SearchOutcome {
  return { matches: [], filesSearched: 0, filesMatched: 0, skippedBinary: 0, skippedLarge: 0, truncated: false };
}

/**
 * Reads and searches files one after another; owns the buffer they are read
 * into. One per thread: the buffer is reused for every small file (no
 * allocation and no fstat per file; most source files are small). Files
 * arrive folder by folder: each folder is opened once by the race-free
 * resolver and, on the main thread, made the working folder, so a file is
 * opened by its bare name (search-cwd.ts). Call `release` in a `finally`
 * when a synchronous stretch of searching ends.
 */
export class FileSearcher {
  private readonly scratch = Buffer.allocUnsafe(256 * 1024);
  private readonly matcher: CompiledQuery;
  private readonly resolver: Resolver;
  /** The parent folder of the last file read, opened exactly (kept open while files of one folder follow). */
  private parent: { dir: string; handle: DirHandle | null } | null = null;
  /** The working folder lent until `release` (undefined: not asked for yet; null: not to be had). */
  private cwd: BorrowedCwd | null | undefined;

  constructor(
    private readonly query: PortableQuery,
    root: string,
  ) {
    this.matcher = compileMatcher(query);
    this.resolver = new Resolver(root.replace(/[\\/]+$/, '') || '/');
  }

  /** Gives the working folder back and closes the folder kept open between files. */
  release(): void {
    const cwd = this.cwd;
    this.cwd = undefined;
    try {
      cwd?.release();
    } finally {
      this.parent?.handle?.close();
      this.parent = null;
    }
  }

  /** What to open for `rel` (a root-relative path): its bare name inside the working folder, or its folder's procfs path; null when its folder cannot be reached exactly. */
  private pathOf(rel: string): string | null {
    const slash = rel.lastIndexOf('/');
    let parent = this.parent;
    // Same folder as the file before: no string is built to find out.
    if (parent === null || (slash < 0 ? parent.dir !== '' : parent.dir.length !== slash || !rel.startsWith(parent.dir))) parent = this.enter(slash < 0 ? '' : rel.slice(0, slash));
    const handle = parent.handle;
    if (handle === null) return null;
    const name = slash < 0 ? rel : rel.slice(slash + 1);
    return this.cwd?.inside(handle) ? name : handle.at(name);
  }

  private enter(dir: string): { dir: string; handle: DirHandle | null } {
    this.parent?.handle?.close();
    let handle: DirHandle | null = null;
    try {
      handle = this.resolver.openDirExact(dir);
    } catch {
      handle = null; // A folder on the way is a symlink now: nothing in it is read.
    }
    if (handle !== null) {
      if (this.cwd === undefined) this.cwd = borrowCwd();
      this.cwd?.enter(handle);
    }
    this.parent = { dir, handle };
    return this.parent;
  }

  /** Searches one file (a root-relative path) into `out`; false once `out` holds maxResults matches. */
  searchFile(rel: string, out: SearchOutcome): boolean {
    return this.searchAt(this.pathOf(rel), rel, out);
  }

  /**
   * Searches the file `name` of the folder `dir` — opened by the caller,
   * who closes it (a walk's own folder: not opened again) — into `out`;
   * `rel` is its root-relative path. False once `out` holds maxResults matches.
   */
  searchIn(dir: DirHandle, name: string, rel: string, out: SearchOutcome): boolean {
    if (this.cwd === undefined) this.cwd = borrowCwd();
    return this.searchAt(this.cwd?.enter(dir) ? name : dir.at(name), rel, out);
  }

  /** Whether the query has text every match must contain, so that `mayMatchIn` can rule files out. */
  get screens(): boolean {
    return this.matcher.screens;
  }

  /**
   * Reads the file `name` of `dir` (as `searchIn` does) and answers whether
   * it may hold a match, without looking for the matches: for a regular
   * expression, the text every match needs is looked for here and the
   * expression itself is run elsewhere. A file that cannot match is counted
   * into `out` (searched, or too large); one that may is not (whoever
   * searches it counts it).
   */
  mayMatchIn(dir: DirHandle, name: string, out: SearchOutcome): boolean {
    if (this.cwd === undefined) this.cwd = borrowCwd();
    let fd: number;
    try {
      fd = fs.openSync(this.cwd?.enter(dir) ? name : dir.at(name), READ_FLAGS);
    } catch {
      return false; // Vanished or unreadable: its searcher would skip it too.
    }
    try {
      const bytes = this.read(fd);
      if (bytes === null) return false;
      if (bytes === 'large') {
        out.skippedLarge++;
        return false;
      }
      if (this.matcher.mayMatch(bytes)) return true;
      out.filesSearched++;
      return false;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Opens `at` (a name in the working folder, or a procfs path through its
   * folder's descriptor: either way relative to a folder reached one
   * component at a time without following a symlink, resolver.ts), reads
   * it and searches it.
   */
  private searchAt(at: string | null, rel: string, out: SearchOutcome): boolean {
    if (at === null) return true; // Its folder is a symlink now: nothing in it is read.
    let fd: number;
    try {
      // O_NOFOLLOW: a file swapped for a symlink is not followed; O_NONBLOCK: a FIFO never hangs the search.
      fd = fs.openSync(at, READ_FLAGS);
    } catch {
      return true; // Vanished or unreadable.
    }
    try {
      const bytes = this.read(fd);
      if (bytes === null) return true;
      if (bytes === 'large') {
        out.skippedLarge++;
        return true;
      }
      out.filesSearched++;
      // Most files hold no match: one scan, and nothing allocated for them.
      return this.matcher.mayMatch(bytes) ? this.match(rel, bytes, fd, out) : true;
    } finally {
      fs.closeSync(fd);
    }
  }

  private match(rel: string, bytes: Buffer, fd: number, out: SearchOutcome): boolean {
    const max = this.query.maxResults;
    let lineNo = 1;
    let counted = 0;
    let first = true;
    let more = true;
    this.matcher.each(bytes, (offset) => {
      if (first) {
        first = false;
        // What was read is shown only from a regular file with one name: one with a second hard link may be a window
        // onto an outside file (docs/workspace-boundary.md). Checked here, on the open descriptor, where a file first
        // matches — a file without a match shows nothing, so the 99% that do not match pay no fstat.
        if (!this.showable(fd)) {
          out.filesSearched--;
          return false;
        }
        // Binary only matters once there is a match to print.
        if (bytes.subarray(0, 8192).includes(0)) {
          out.skippedBinary++;
          return false;
        }
        out.filesMatched++;
      }
      lineNo += countNewlines(bytes, counted, offset);
      // lastIndexOf with a negative offset counts from the end: a match at 0 starts the first line.
      const start = offset === 0 ? 0 : bytes.lastIndexOf(NEWLINE, offset - 1) + 1;
      let end = bytes.indexOf(NEWLINE, offset);
      if (end === -1) end = bytes.length;
      counted = start;
      let text = bytes.toString('utf8', start, Math.min(end, start + MAX_LINE_CHARS * 4));
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}…`;
      out.matches.push({ path: rel, line: lineNo, text });
      if (out.matches.length >= max) {
        out.truncated = true;
        more = false;
        return false;
      }
      return true;
    });
    return more;
  }

  private showable(fd: number): boolean {
    try {
      const st = fs.fstatSync(fd);
      return st.isFile() && st.nlink <= 1;
    } catch {
      return false;
    }
  }

  /**
   * The bytes of the open file `fd` — for a small file a view of the scratch
   * buffer, valid until the next read; 'large' for a file over maxFileBytes
   * (not read whole); null when unreadable. No fstat before the read: the
   * walk saw a file, O_NOFOLLOW and O_NONBLOCK keep a link or a FIFO swapped
   * in harmless (a folder fails the read), and what is shown is checked on
   * the descriptor (`showable`).
   */
  private read(fd: number): Buffer | 'large' | null {
    try {
      const scratch = this.scratch;
      const n = fs.readSync(fd, scratch, 0, scratch.length, 0);
      if (n < scratch.length) return n > this.query.maxFileBytes ? 'large' : scratch.subarray(0, n);
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return null;
      if (st.size > this.query.maxFileBytes) return 'large';
      // Read through the same descriptor: no second open of a path that may have changed.
      return fs.readFileSync(fd);
    } catch {
      return null;
    }
  }
}

/** Synchronous search in this thread: walk and search in one pass. */
export function searchFiles(root: string, query: SearchQuery): SearchOutcome {
  const searcher = new FileSearcher(query, root);
  const filter = globFilter(query.globs);
  const out = emptyOutcome();
  try {
    walkFiles(
      root,
      (rel, type, _abs, dir, name) => {
        if (type !== 'file') return;
        if (filter && !filter(rel)) return;
        if (!searcher.searchIn(dir, name, rel, out)) return false;
        return undefined;
      },
      { start: query.start, ...defined({ signal: query.signal }) },
    );
  } finally {
    searcher.release();
  }
  return out;
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE, from); i !== -1 && i < to; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}
