/**
 * The search behind search_files: a literal or a regular expression over the
 * files of the root that git would not ignore, optionally filtered by globs,
 * reporting `path:line:text` like `grep -rn`. Literal searches run on the
 * raw bytes (Buffer.indexOf) and decode only the lines that match, so the
 * cost of a search is the cost of reading the files. Read-only; files that
 * look binary (a NUL byte) are skipped, as grep does for text output.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import { walkFiles } from './file-walk.js';

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

export interface SearchMatch {
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

/** Longest line text returned per match: minified files have megabyte lines. */
export const MAX_LINE_CHARS = 300;
const NEWLINE = 0x0a;

/** A line-oriented matcher over one file's bytes. */
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

function rarestByte(needle: Buffer): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) if ((RANK[needle[i] as number] ?? 0) < (RANK[needle[best] as number] ?? 0)) best = i;
  return best;
}

function literalMatcher(needle: Buffer): FileMatcher {
  const pivot = rarestByte(needle);
  const rare = needle[pivot] as number;
  const len = needle.length;
  const find = (bytes: Buffer, from: number): number => {
    let misses = 0;
    for (let i = bytes.indexOf(rare, from + pivot); i !== -1; i = bytes.indexOf(rare, i + 1)) {
      const start = i - pivot;
      if (start + len > bytes.length) return -1;
      if (bytes.compare(needle, 0, len, start, start + len) === 0) return start;
      // The "rare" byte is common in this file: let the full-needle search take over.
      if (++misses > 16) return bytes.indexOf(needle, i - pivot + 1);
    }
    return -1;
  };
  return (bytes, emit) => {
    let from = 0;
    for (;;) {
      const at = find(bytes, from);
      if (at === -1) return;
      if (!emit(at)) return;
      // One result per line, like grep: continue after the end of this line.
      const eol = bytes.indexOf(NEWLINE, at + len);
      if (eol === -1) return;
      from = eol + 1;
    }
  };
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

export function compileMatcher(query: Pick<SearchQuery, 'pattern' | 'regex' | 'caseSensitive'>): FileMatcher {
  if (!query.regex && query.caseSensitive && !query.pattern.includes('\n')) return literalMatcher(Buffer.from(query.pattern, 'utf8'));
  return regexMatcher(query.regex ? query.pattern : escapeRegex(query.pattern), query.caseSensitive);
}

function globFilter(globs: string[]): ((rel: string) => boolean) | null {
  if (globs.length === 0) return null;
  const tests = globs.map((g) => picomatch(g, { dot: true, basename: !g.includes('/') }));
  return (rel) => tests.some((t) => t(rel));
}

export function emptyOutcome(): SearchOutcome {
  return { matches: [], filesSearched: 0, filesMatched: 0, skippedBinary: 0, skippedLarge: 0, truncated: false };
}

/** Searches one file into `out`; false once maxResults is reached. */
function searchOne(rel: string, abs: string, matcher: FileMatcher, query: Pick<SearchQuery, 'maxResults' | 'maxFileBytes'>, out: SearchOutcome): boolean {
  const bytes = readFile(abs, query.maxFileBytes);
  if (bytes === null) return true; // Vanished or unreadable.
  if (bytes === 'large') {
    out.skippedLarge++;
    return true;
  }
  out.filesSearched++;
  let lineNo = 1;
  let counted = 0;
  let first = true;
  let more = true;
  matcher(bytes, (offset) => {
    if (first) {
      first = false;
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
    if (out.matches.length >= query.maxResults) {
      out.truncated = true;
      more = false;
      return false;
    }
    return true;
  });
  return more;
}

/** The query without what cannot cross a thread (the signal). */
export type PortableQuery = Omit<SearchQuery, 'signal'>;

/** Searches a list of files (relative paths), in order: the work of one search thread. */
export function searchFileList(root: string, files: readonly string[], query: PortableQuery): SearchOutcome {
  const matcher = compileMatcher(query);
  const out = emptyOutcome();
  for (const rel of files) if (!searchOne(rel, path.join(root, rel), matcher, query, out)) break;
  return out;
}

/** Synchronous search in this thread: walk and search in one pass. */
export function searchFiles(root: string, query: SearchQuery): SearchOutcome {
  const matcher = compileMatcher(query);
  const filter = globFilter(query.globs);
  const out = emptyOutcome();
  walkFiles(
    root,
    (rel, type, abs) => {
      if (type !== 'file') return;
      if (filter && !filter(rel)) return;
      if (!searchOne(rel, abs, matcher, query, out)) return false;
      return undefined;
    },
    { start: query.start, ...(query.signal ? { signal: query.signal } : {}) },
  );
  return out;
}

/** Below this many files, starting threads costs more than it saves. */
export const PARALLEL_MIN_FILES = 4000;
const CHUNK = 512;

/**
 * The same search on several threads: this thread walks (the walk is a
 * small share of the cost), worker threads read and match chunks of files,
 * results are merged in walk order, so the output is identical to
 * searchFiles. Falls back to searchFiles for small trees or where the
 * worker script is not available (running from TypeScript sources).
 */
export async function searchFilesParallel(root: string, query: SearchQuery, threads = defaultThreads()): Promise<SearchOutcome> {
  const workerFile = fileURLToPath(new URL('./search-worker.js', import.meta.url));
  if (threads < 2 || !fs.existsSync(workerFile)) return searchFiles(root, query);
  const filter = globFilter(query.globs);
  const files: string[] = [];
  walkFiles(
    root,
    (rel, type) => {
      if (type === 'file' && (!filter || filter(rel))) files.push(rel);
    },
    { start: query.start, ...(query.signal ? { signal: query.signal } : {}) },
  );
  if (files.length < PARALLEL_MIN_FILES) {
    const matcher = compileMatcher(query);
    const out = emptyOutcome();
    for (const rel of files) if (!searchOne(rel, path.join(root, rel), matcher, query, out)) break;
    return out;
  }
  const { signal, ...portable } = query;
  const chunks: string[][] = [];
  for (let i = 0; i < files.length; i += CHUNK) chunks.push(files.slice(i, i + CHUNK));
  const results: Array<SearchOutcome | undefined> = new Array(chunks.length);
  const { Worker } = await import('node:worker_threads');
  const workers = Array.from({ length: Math.min(threads, chunks.length) }, () => new Worker(workerFile, { workerData: { root, query: portable } }));
  let next = 0;
  let merged = 0;
  let found = 0;
  const enough = (): boolean => {
    while (merged < chunks.length && results[merged]) found += (results[merged++] as SearchOutcome).matches.length;
    return found >= query.maxResults || signal?.aborted === true;
  };
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const feed = (): void => {
              if (next >= chunks.length || enough()) {
                resolve();
                return;
              }
              const id = next++;
              worker.postMessage({ id, files: chunks[id] });
            };
            worker.on('message', (msg: { id: number; out: SearchOutcome }) => {
              results[msg.id] = msg.out;
              feed();
            });
            worker.once('error', reject);
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const out = emptyOutcome();
  for (const part of results) {
    if (!part) break; // Chunks after an early stop were never searched.
    out.filesSearched += part.filesSearched;
    out.filesMatched += part.filesMatched;
    out.skippedBinary += part.skippedBinary;
    out.skippedLarge += part.skippedLarge;
    for (const m of part.matches) {
      if (out.matches.length >= query.maxResults) {
        out.truncated = true;
        break;
      }
      out.matches.push(m);
    }
    if (part.truncated) out.truncated = true;
    if (out.truncated) break;
  }
  return out;
}

/**
 * One core stays with this thread (the walk, the event loop); on a 2-core
 * machine the bench measured the threaded search slower than the one-thread
 * one, so threads start only where there are at least two spare cores.
 */
function defaultThreads(): number {
  const spare = os.availableParallelism() - 1;
  return spare >= 2 ? Math.min(4, spare) : 1;
}

/** One buffer reused for every small file: no allocation and no fstat per file (most source files are small). */
const SCRATCH = Buffer.allocUnsafe(256 * 1024);

/**
 * The file's bytes — for a small file a view of SCRATCH, valid until the next
 * read (searches are synchronous, so nothing else reads in between);
 * 'large' for a file over `max` (not read whole); null when unreadable.
 */
function readFile(abs: string, max: number): Buffer | 'large' | null {
  let fd: number;
  try {
    fd = fs.openSync(abs, 'r');
  } catch {
    return null;
  }
  try {
    const n = fs.readSync(fd, SCRATCH, 0, SCRATCH.length, 0);
    if (n < SCRATCH.length) return n > max ? 'large' : SCRATCH.subarray(0, n);
    if (fs.fstatSync(fd).size > max) return 'large';
    return fs.readFileSync(abs);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE, from); i !== -1 && i < to; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}
