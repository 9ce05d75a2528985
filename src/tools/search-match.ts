/**
 * The matchers behind search_files: a literal found by its rarest byte
 * (memchr, Buffer.indexOf of a number) and verified only there, on the raw
 * bytes, decoding only the lines that match; a regular expression run only
 * on files that contain the literal text every match must contain
 * (`requiredLiteral`). Pure functions of bytes; no file is touched here.
 */
import type { SearchQuery } from './search.js';

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
export interface CompiledQuery {
  mayMatch: (bytes: Buffer) => boolean;
  each: FileMatcher;
  /** Whether `mayMatch` can rule a file out (a regular expression without a required text cannot). */
  screens: boolean;
}

const anything = (): boolean => true;

export function compileMatcher(query: Pick<SearchQuery, 'pattern' | 'regex' | 'caseSensitive'>): CompiledQuery {
  if (!query.regex && query.caseSensitive && !query.pattern.includes('\n')) {
    const needle = Buffer.from(query.pattern, 'utf8');
    const finder = new LiteralFinder(needle);
    return { mayMatch: (bytes) => finder.find(bytes, 0) !== -1, each: literalMatcher(needle, finder), screens: true };
  }
  const source = query.regex ? query.pattern : escapeRegex(query.pattern);
  // Files without the literal every match needs are not decoded at all.
  const literal = query.caseSensitive ? requiredLiteral(source) : null;
  const prefilter = literal === null ? null : new LiteralFinder(Buffer.from(literal, 'utf8'));
  return { mayMatch: prefilter === null ? anything : (bytes) => prefilter.find(bytes, 0) !== -1, each: regexMatcher(source, query.caseSensitive), screens: prefilter !== null };
}
