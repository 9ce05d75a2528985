/**
 * The search behind search_files: a literal or a regular expression over the
 * files of the root that git would not ignore, optionally filtered by globs,
 * reporting `path:line:text` like `grep -rn`. Literal searches run on the
 * raw bytes (Buffer.indexOf) and decode only the lines that match, so the
 * cost of a search is the cost of reading the files. Read-only; files that
 * look binary (a NUL byte) are skipped, as grep does for text output.
 */
import fs from 'node:fs';
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

export function searchFiles(root: string, query: SearchQuery): SearchOutcome {
  const matcher = compileMatcher(query);
  const filter = globFilter(query.globs);
  const out: SearchOutcome = { matches: [], filesSearched: 0, filesMatched: 0, skippedBinary: 0, skippedLarge: 0, truncated: false };
  walkFiles(
    root,
    (rel, type, abs) => {
      if (type !== 'file') return;
      if (filter && !filter(rel)) return;
      const bytes = readFile(abs, query.maxFileBytes);
      if (bytes === null) return; // Vanished or unreadable.
      if (bytes === 'large') {
        out.skippedLarge++;
        return;
      }
      out.filesSearched++;
      let lineNo = 1;
      let counted = 0;
      let first = true;
      let stop = false;
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
          stop = true;
          return false;
        }
        return true;
      });
      if (stop) return false;
    },
    { start: query.start, ...(query.signal ? { signal: query.signal } : {}) },
  );
  return out;
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
