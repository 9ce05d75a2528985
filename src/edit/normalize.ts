/**
 * Character-level normalisation for tolerant matching, with a map back to the
 * original offsets. Each option forgives one class of difference models make
 * when they quote code; nothing here forgives a different token.
 */
import { FIRST_LOOKALIKE, LOOKALIKE_MAP } from './lookalikes.js';

export interface NormalizeOptions {
  /** Drop spaces and tabs at the end of every line. */
  trailing: boolean;
  /** Collapse runs of spaces/tabs after the indentation into one space. Indentation is kept verbatim. */
  runs: boolean;
  /** Map typographic look-alikes (smart quotes, dashes, NBSP, ellipsis) to ASCII; drop zero-width characters. */
  unicode: boolean;
  /**
   * Drop blanks inside a line where a formatter may put them or not (`myFunc( a, b )` = `myFunc(a,b)`): next to a
   * bracket, "," or ";", and between an operator and a word. Two words keep one blank between them (never joined),
   * and so do two operators (`= >` is not `=>`, `+ ++` is not `++ +`). Needs `runs`.
   */
  punctuation?: boolean;
}

/** Next to these a blank is layout, never meaning. */
const BRACKETISH = new Set(['(', ')', '[', ']', '{', '}', ',', ';']);
/** Operator characters: a blank between one of them and a word is layout; between two of them it may be meaning. */
const OPERATOR = new Set(['+', '-', '*', '/', '%', '=', '<', '>', '!', '&', '|', '^', '~', '?', ':', '.']);

/** Whether a run of blanks between `before` and `after` (the characters around it) may be dropped. */
function layoutBlank(before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) return false;
  if (BRACKETISH.has(before) || BRACKETISH.has(after)) return true;
  return OPERATOR.has(before) !== OPERATOR.has(after);
}

export interface NormalizedText {
  text: string;
  /** For each normalised char, the raw offset where its source starts. */
  starts: Int32Array;
  /** For each normalised char, the raw offset just after its source. */
  ends: Int32Array;
}

export { mapLookalike } from './lookalikes.js';

const TAB = 9;
const LF = 10;
const SPACE = 32;

export function normalizeText(raw: string, options: NormalizeOptions): NormalizedText {
  // Each source char gives at most one normalised char, except "…" (three).
  let capacity = raw.length;
  if (options.unicode) for (let k = raw.indexOf('\u2026'); k !== -1; k = raw.indexOf('\u2026', k + 1)) capacity += 2;
  const offsets = { starts: new Int32Array(capacity), ends: new Int32Array(capacity), n: 0 };
  const text = normalize(raw, options, offsets);
  return { text, starts: offsets.starts.subarray(0, offsets.n), ends: offsets.ends.subarray(0, offsets.n) };
}

/** The normalised text alone, for comparing lines (no offset map to allocate). */
export function normalizedString(raw: string, options: NormalizeOptions): string {
  return normalize(raw, options, null);
}

interface Offsets {
  starts: Int32Array;
  ends: Int32Array;
  n: number;
}

function normalize(raw: string, options: NormalizeOptions, map: Offsets | null): string {
  const len = raw.length;
  const unicode = options.unicode;
  let out = '';
  // The last character written, kept here: `out` grows by appends (a rope), and reading its last character would
  // flatten the whole of it each time (a copy of the text so far per blank: 2 s of CPU for a 6,000-line file).
  let last: string | undefined;
  // Offsets of every normalised char, written as it is produced.
  const mark = (from: number, to: number, count: number): void => {
    if (map === null) return;
    for (let c = 0; c < count; c++) {
      map.starts[map.n] = from;
      map.ends[map.n] = to;
      map.n++;
    }
  };
  let atLineStart = true;
  let i = 0;
  while (i < len) {
    const code = raw.charCodeAt(i);
    if (code === LF) {
      out += '\n';
      last = '\n';
      mark(i, i + 1, 1);
      atLineStart = true;
      i++;
      continue;
    }
    let blank = code === SPACE || code === TAB;
    if (!blank && unicode && code >= FIRST_LOOKALIKE) {
      const mapped = LOOKALIKE_MAP.get(raw[i] as string);
      if (mapped === ' ')
        blank = true; // a look-alike space is a space: in a run, or in the indentation
      else if (mapped !== undefined) {
        if (mapped !== '') {
          out += mapped;
          last = mapped[mapped.length - 1];
          mark(i, i + 1, mapped.length);
          atLineStart = false;
        }
        i++;
        continue;
      }
    }
    if (blank) {
      let j = i + 1;
      for (; j < len; j++) {
        const c = raw.charCodeAt(j);
        if (c === SPACE || c === TAB) continue;
        if (unicode && c >= FIRST_LOOKALIKE && LOOKALIKE_MAP.get(raw[j] as string) === ' ') continue;
        break;
      }
      const atLineEnd = j >= len || raw.charCodeAt(j) === LF;
      if (options.trailing && atLineEnd) {
        // Trailing blanks, or a blank line made of spaces (it is an empty line).
        i = j;
        continue;
      }
      if (options.runs && !atLineStart) {
        if (options.punctuation && layoutBlank(last, raw[j])) {
          i = j;
          continue;
        }
        out += ' ';
        last = ' ';
        mark(i, j, 1);
      } else {
        // Indentation is kept char for char (its width matters); without `runs`, so is every blank.
        // Look-alike spaces become plain spaces.
        for (let k = i; k < j; k++) {
          last = raw.charCodeAt(k) === TAB ? '\t' : ' ';
          out += last;
          mark(k, k + 1, 1);
        }
      }
      i = j;
      continue;
    }
    // A run of characters normalisation leaves alone: copied in one piece.
    let j = i + 1;
    for (; j < len; j++) {
      const c = raw.charCodeAt(j);
      if (c === LF || c === SPACE || c === TAB) break;
      if (unicode && c >= FIRST_LOOKALIKE && LOOKALIKE_MAP.has(raw[j] as string)) break;
    }
    out += raw.slice(i, j);
    last = raw[j - 1];
    if (map !== null) for (let k = i; k < j; k++) mark(k, k + 1, 1);
    atLineStart = false;
    i = j;
  }
  return out;
}

/** Every start offset of `needle` in `hay`, overlapping matches included. */
export function allIndexes(hay: string, needle: string, limit = Number.POSITIVE_INFINITY): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let i = hay.indexOf(needle); i !== -1 && found.length < limit; i = hay.indexOf(needle, i + 1)) found.push(i);
  return found;
}
