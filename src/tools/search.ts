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

/** A line-oriented matcher over one file's bytes: calls `emit` with the byte offset of the first match of each matching line until it returns false. */
type FileMatcher = (bytes: Buffer, emit: (offset: number) => boolean) => void;

/**
 * Rough rank of how common each ASCII byte is in source text (most common
 * first). A literal search looks for its rarest byte with memchr
 * (Buffer.indexOf of a number) and verifies the whole needle only there —
 * the trick ripgrep uses; Buffer.indexOf of a whole needle runs at about a
 * quarter of that speed.
 */
const COMMON = ' etaonisrlhdcu\n\tpmfgy.,;()_bw=v"\'/-{}k:x0>1<[]2*#j+3q9z48567!@$%&|\\?~`^';
const RANK = new Uint8Array(256).fill(0);
for (let i = 0; i < COMMON.length; i++) RANK[COMMON.charCodeAt(i)] = 255 - i;
// Letters in either case are about as common as each other.
for (let c = 65; c <= 90; c++) RANK[c] = Math.max(1, (RANK[c + 32] ?? 0) - 40);

/** The needle's positions, rarest byte first by the table above (one position per distinct byte). */
function byRank(needle: Buffer): number[] {
  const seen = new Set<number>();
  const positions: number[] = [];
  for (let i = 0; i < needle.length; i++) {
    const b = needle[i] as number;
    if (seen.has(b)) continue;
    seen.add(b);
    positions.push(i);
  }
  return positions.sort((a, b) => (RANK[needle[a] as number] ?? 0) - (RANK[needle[b] as number] ?? 0) || a - b);
}

/**
 * Files a literal search learns its pivot from: the needle's rarest bytes
 * (by the table) are counted in the first files it reads, and from then on
 * it looks for the one rarest there. The table is a guess about source text
 * in general; a project's own files say which byte is rare in them (`_` in
 * one, `7` in another). Each memchr call costs ~0.15 µs, so a pivot that
 * occurs eight times per file costs more than reading it.
 */
const LEARN_FILES = 4;
/** Distinct needle bytes counted while learning, and the count at which one stops being interesting. */
const LEARN_BYTES = 8;
const LEARN_CAP = 32;

/** Finds a literal needle in files' bytes, looking for its rarest byte with memchr (Buffer.indexOf of a number) and verifying the whole needle only there. */
export class LiteralFinder {
  private readonly candidates: number[];
  private readonly counts: number[];
  private learning: number;
  /** The needle's position whose byte is looked for. */
  pivot: number;

  constructor(private readonly needle: Buffer) {
    this.candidates = byRank(needle).slice(0, LEARN_BYTES);
    this.counts = new Array<number>(this.candidates.length).fill(0);
    this.pivot = this.candidates[0] ?? 0;
    this.learning = this.candidates.length > 1 ? LEARN_FILES : 0;
  }

  /** The offset of the first needle in `bytes` at or after `from`, or -1. A file's first call (`from` 0) may teach the pivot. */
  find(bytes: Buffer, from: number): number {
    if (this.learning > 0 && from === 0) this.learn(bytes);
    const needle = this.needle;
    const len = needle.length;
    const pivot = this.pivot;
    const rare = needle[pivot] as number;
    let misses = 0;
    for (let i = bytes.indexOf(rare, from + pivot); i !== -1; i = bytes.indexOf(rare, i + 1)) {
      const start = i - pivot;
      if (start + len > bytes.length) return -1;
      // Verified in JS: most candidates fail on the first byte, and a call
      // into Buffer.compare costs more than that (measured: a third of the matching time).
      let k = 0;
      while (k < len && bytes[start + k] === needle[k]) k++;
      if (k === len) return start;
      // The "rare" byte is common in this file: let the full-needle search take over.
      if (++misses > 16) return bytes.indexOf(needle, start + 1);
    }
    return -1;
  }

  private learn(bytes: Buffer): void {
    this.learning--;
    const { candidates, counts, needle } = this;
    for (let c = 0; c < candidates.length; c++) {
      const b = needle[candidates[c] as number] as number;
      let n = 0;
      for (let i = bytes.indexOf(b); i !== -1 && n < LEARN_CAP; i = bytes.indexOf(b, i + 1)) n++;
      counts[c] = (counts[c] as number) + n;
    }
    // Fewest seen wins; a tie keeps the table's order.
    let best = 0;
    for (let c = 1; c < candidates.length; c++) if ((counts[c] as number) < (counts[best] as number)) best = c;
    this.pivot = candidates[best] as number;
  }
}

function literalMatcher(needle: Buffer, finder: LiteralFinder): FileMatcher {
  const len = needle.length;
  return (bytes, emit) => {
    let from = 0;
    for (;;) {
      const at = finder.find(bytes, from);
      if (at === -1) return;
      if (!emit(at)) return;
      // One result per line, like grep: continue after the end of this line.
      const eol = bytes.indexOf(NEWLINE, at + len);
      if (eol === -1) return;
      from = eol + 1;
    }
  };
}

/** Escapes of a letter that stand for a class or an assertion, never for a literal character. */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B', 'n', 'r', 't', 'v', 'f']);
const QUANTIFIER = /^(?:([*?])|(\+)|\{(\d+)(?:,\d*)?\})\??/;

/** The index just after the group or class that opens at `i` (escapes and nested classes honoured), or -1. */
function skipBracketed(source: string, i: number): number {
  let depth = 0;
  let inClass = false;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === '\\') j++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (depth === 0) {
        // A class at the top: find its end and stop there.
        for (j++; j < source.length && source[j] !== ']'; j++) if (source[j] === '\\') j++;
        return j < source.length ? j + 1 : -1;
      }
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * The longest text every match of the expression `source` (JavaScript, no
 * `u`, case-sensitive) must contain, or null when there is none to rely on.
 * Deliberately conservative: alternatives at the top, groups, classes,
 * back-references and escapes it does not know end a run or give up, so a
 * file without the text can never hold a match.
 */
export function requiredLiteral(source: string): string | null {
  let best = '';
  let run = '';
  const flush = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    let atom: string | null = null; // The character this atom matches, null for anything else.
    if (c === '|' || c === ')' || c === '*' || c === '+' || c === '?' || c === '{') return null;
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined) return null;
      if (/^[!-/:-@[-`{-~]$/.test(e))
        atom = e; // ASCII punctuation: an identity escape.
      else if (!CLASS_ESCAPES.has(e)) return null; // \x41, \u0041, \cJ, \1, \k<n>…: not worth parsing.
      i += 2;
    } else if (c === '(' || c === '[') {
      const end = skipBracketed(source, i);
      if (end === -1) return null;
      i = end;
    } else {
      // A lone surrogate or U+FFFD could match bytes that do not encode it.
      const code = c.charCodeAt(0);
      if (c !== '.' && c !== '^' && c !== '$' && (code < 0xd800 || code > 0xdfff) && code !== 0xfffd) atom = c;
      i++;
    }
    const q = QUANTIFIER.exec(source.slice(i, i + 24));
    if (q === null) {
      if (atom === null) flush();
      else run += atom;
      continue;
    }
    i += q[0].length;
    // At least once (`+`, `{n}` with n ≥ 1): the atom is required, but what follows need not be next to it.
    if (atom !== null && (q[2] !== undefined || (q[3] !== undefined && Number(q[3]) > 0))) run += atom;
    flush();
  }
  flush();
  return best.length >= 2 ? best : null;
}

function regexMatcher(source: string, caseSensitive: boolean): FileMatcher {
  // No `u` flag: it rejects escapes models write all the time (`\-`, `\_`).
  const re = new RegExp(source, `gm${caseSensitive ? '' : 'i'}`);
  return (bytes, emit) => {
    const text = bytes.toString('utf8');
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    let lineEnd = -1;
    let charPos = 0;
    let bytePos = 0;
    while ((m = re.exec(text)) !== null) {
      const at = m.index;
      if (m[0].length === 0) re.lastIndex++;
      if (at <= lineEnd) continue;
      // Offsets are reported in bytes so both matchers share the line logic.
      bytePos += Buffer.byteLength(text.slice(charPos, at));
      charPos = at;
      if (!emit(bytePos)) return;
      lineEnd = text.indexOf('\n', at);
      if (lineEnd === -1) return;
      re.lastIndex = lineEnd + 1;
    }
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A query compiled: `mayMatch` is one scan of a file's bytes (false: no match in it, nothing more to do); `each` finds the matches. */
interface CompiledQuery {
  mayMatch: (bytes: Buffer) => boolean;
  each: FileMatcher;
}

const anything = (): boolean => true;

function compileMatcher(query: Pick<SearchQuery, 'pattern' | 'regex' | 'caseSensitive'>): CompiledQuery {
  if (!query.regex && query.caseSensitive && !query.pattern.includes('\n')) {
    const needle = Buffer.from(query.pattern, 'utf8');
    const finder = new LiteralFinder(needle);
    return { mayMatch: (bytes) => finder.find(bytes, 0) !== -1, each: literalMatcher(needle, finder) };
  }
  const source = query.regex ? query.pattern : escapeRegex(query.pattern);
  // Files without the literal every match needs are not decoded at all.
  const literal = query.caseSensitive ? requiredLiteral(source) : null;
  const prefilter = literal === null ? null : new LiteralFinder(Buffer.from(literal, 'utf8'));
  return { mayMatch: prefilter === null ? anything : (bytes) => prefilter.find(bytes, 0) !== -1, each: regexMatcher(source, query.caseSensitive) };
}

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
