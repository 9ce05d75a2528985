/**
 * Finding `old_text` in a file: exactly first, then — unless strict — through
 * tolerant strategies that forgive only what models get wrong when they quote
 * code (trailing whitespace, a block indented differently as a whole, runs of
 * whitespace, typographic look-alikes, blank lines). A strategy is accepted
 * only when it yields exactly one match (or, for replace_all, when it is the
 * first that yields any); the caller refuses ambiguity. Never anchor on
 * "first and last line match": that is how tools silently edit the wrong block.
 *
 * Pure: strings in, offsets out.
 */
import { diffArrays } from 'diff';
import { lineOf } from './text.js';
import type { MatchStrategy } from './types.js';
import { allIndexes, mapLookalike, normalizedString, normalizeText, type NormalizeOptions } from './normalize.js';
import { blankLineTolerant } from './blank-lines.js';
import { quoteLines, splitLines } from './lines.js';
import { ambiguousIndent, continuationFrame, indentFrame, indentShift, isBlankLine } from './reindent.js';

export interface TextMatch {
  /** Offsets in the file text ("\n"-normalised). */
  start: number;
  end: number;
  /** Rewrites new_text for this match (re-indentation); identity when absent. */
  transform?: (newText: string) => string;
}

export interface MatchOutcome {
  strategy: MatchStrategy;
  matches: TextMatch[];
}

interface Strategy {
  name: MatchStrategy;
  find: (text: string, oldText: string) => TextMatch[];
}

const CHAR_TRAILING: NormalizeOptions = { trailing: true, runs: false, unicode: false };
const CHAR_RUNS: NormalizeOptions = { trailing: true, runs: true, unicode: false };
const CHAR_UNICODE: NormalizeOptions = { trailing: true, runs: true, unicode: true };
const CHAR_INNER: NormalizeOptions = { trailing: true, runs: true, unicode: false, punctuation: true };

const STRATEGIES: readonly Strategy[] = [
  { name: 'trailing-whitespace', find: (t, o) => charLevel(t, o, CHAR_TRAILING) },
  { name: 'indentation', find: (t, o) => lineBlocks(t, o, { contentOptions: CHAR_TRAILING }) },
  { name: 'whitespace-runs', find: (t, o) => charLevel(t, o, CHAR_RUNS) },
  { name: 'unicode', find: (t, o) => charLevel(t, o, CHAR_UNICODE) },
  { name: 'indentation+unicode', find: (t, o) => lineBlocks(t, o, { contentOptions: CHAR_UNICODE }) },
  { name: 'blank-lines', find: (t, o) => blankLineTolerant(t, o) },
  // Last: blanks a formatter adds or drops inside a line (`myFunc( a, b )`); unique, like every other.
  { name: 'inner-whitespace', find: (t, o) => charLevel(t, o, CHAR_INNER) },
];

/** Finds old_text; null when no strategy finds it. Both texts must be "\n"-normalised. */
export function findMatches(text: string, oldText: string, strict: boolean): MatchOutcome | null {
  const exact = allIndexes(text, oldText).map((start) => ({ start, end: start + oldText.length }));
  if (exact.length > 0) return { strategy: 'exact', matches: exact };
  if (strict || !wordsPresent(text, oldText)) return null;
  for (const strategy of STRATEGIES) {
    const matches = dedupe(strategy.find(text, oldText));
    if (matches.length > 0) return { strategy: strategy.name, matches };
  }
  return null;
}

const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/;

/**
 * No strategy changes letters, digits or "_", nor joins two words: a word of
 * old_text that is not in the file rules every strategy out, without the cost
 * of normalising a large file several times. (A zero-width character inside a
 * word of the file is the exception: the unicode strategies drop it.)
 */
function wordsPresent(text: string, oldText: string): boolean {
  if (ZERO_WIDTH.test(text)) return true;
  const words = [...new Set(oldText.match(/[A-Za-z0-9_]{3,}/g) ?? [])].sort((a, b) => b.length - a.length).slice(0, 8);
  return words.every((word) => text.includes(word));
}

function dedupe(matches: TextMatch[]): TextMatch[] {
  const seen = new Set<string>();
  return matches.filter((m) => {
    const key = `${m.start}:${m.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Keeps matches that do not overlap an earlier one (for replace_all). */
export function nonOverlapping(matches: TextMatch[]): TextMatch[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start);
  const out: TextMatch[] = [];
  let lastEnd = -1;
  for (const m of sorted) {
    if (m.start >= lastEnd) {
      out.push(m);
      lastEnd = Math.max(m.end, m.start + 1);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Character-level strategies: normalise both texts, search, map back.

function charLevel(text: string, oldText: string, options: NormalizeOptions): TextMatch[] {
  const needle = normalizeText(oldText, options).text;
  if (needle.trim().length === 0) return [];
  // The offset map costs memory the size of the file: build it only when there is something to map.
  const hits = allIndexes(normalizedString(text, options), needle, 1000);
  if (hits.length === 0) return [];
  const hay = normalizeText(text, options);
  const out: TextMatch[] = [];
  for (const at of hits) {
    const after = at + needle.length;
    // A match that starts or ends inside one source character's expansion ("…" → "...")
    // would replace text the quote did not contain: "wait.." is not "wait…".
    if (at > 0 && hay.starts[at] === hay.starts[at - 1]) continue;
    if (after < hay.text.length && hay.starts[after] === hay.starts[after - 1]) continue;
    const start = hay.starts[at] as number;
    let end = hay.ends[after - 1] as number;
    // Ends where the line ends once trailing blanks are ignored: take those blanks too,
    // so the replaced line does not keep stray whitespace the model never saw.
    const next = hay.text[after];
    if (options.trailing && (next === undefined || next === '\n')) {
      while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
    }
    const region = text.slice(start, end);
    const changed = options.unicode ? lookalikeFixer(oldText, region) : identity;
    const indent = midLineIndent(text, start, oldText);
    const line = lineOf(text, start);
    out.push({ start, end, transform: (newText) => (indent === '' ? keepUnchangedLines(region, oldText, newText, changed) : fromLineStart(indent, region, oldText, newText, changed, line)) });
  }
  return out;
}

const identity = (line: string): string => line;

/**
 * The indentation before a quote that starts at the first non-blank character of its line ('' when the quote
 * starts at column 0, mid-text, or with blanks of its own — those carry their own indentation evidence).
 * Only tolerant matches use it: an exact match writes new_text verbatim (its inverse edit restores the file).
 */
function midLineIndent(text: string, start: number, oldText: string): string {
  if (/^\s/.test(oldText)) return '';
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(lineStart, start);
  return /^[ \t]+$/.test(before) ? before : '';
}

/**
 * new_text for a quote copied from the first non-blank character of an indented line: its first line lands
 * after that indentation, its further lines in the frame continuationFrame finds — moved by the same
 * indentation as the first line (the whole block re-indented as one, never its first line alone), or kept.
 * The quote, the file's lines and new_text are compared with their first lines completed by the indentation,
 * so lines copied unchanged are still written as the file has them.
 */
function fromLineStart(indent: string, region: string, oldText: string, newText: string, changed: (line: string) => string, line: number): string {
  const frame = continuationFrame(indent, oldText, newText);
  if (frame.kind === 'ambiguous') throw ambiguousIndent(frame.why, line);
  const wanted = newText
    .split('\n')
    .map((l, k) => (k === 0 || (frame.kind === 'quote' && !isBlankLine(l)) ? indent + l : l))
    .join('\n');
  const out = keepUnchangedLines(indent + region, indent + oldText, wanted, changed);
  // The match starts after the indentation, so the first line written must start with it (a line written less
  // indented than the line it replaces cannot be placed there: refused rather than eating its first characters).
  if (!out.startsWith(indent)) throw ambiguousIndent("new_text's first line would sit left of the line it replaces", line);
  return out.slice(indent.length);
}

/**
 * Look-alike characters the quote used where the file has plain ASCII are the
 * model's typography, not the code's: the same characters in the lines it
 * changed are written as the ASCII the file uses (a smart quote pasted into
 * code would break it).
 */
function lookalikeFixer(oldText: string, region: string): (line: string) => string {
  const foreign = new Set<string>();
  for (const ch of oldText) if (mapLookalike(ch) !== undefined && !region.includes(ch)) foreign.add(ch);
  if (foreign.size === 0) return identity;
  return (line) => {
    let out = '';
    for (const ch of line) out += foreign.has(ch) ? (mapLookalike(ch) as string) : ch;
    return out;
  };
}

/**
 * Lines of new_text that the model copied unchanged from old_text are written
 * exactly as the file has them: a tolerant match must not rewrite whitespace,
 * alignment or typography of lines nobody asked to change. Other lines go
 * through `changed` (re-indentation, look-alike repair). Needs `region` and
 * `oldText` to have the same number of lines, which every 1:1 strategy gives.
 */
function keepUnchangedLines(region: string, oldText: string, newText: string, changed: (line: string) => string): string {
  const fileLines = region.split('\n');
  const quoted = oldText.split('\n');
  const wanted = newText.split('\n');
  const changes = fileLines.length === quoted.length ? diffArrays(quoted, wanted, { maxEditLength: 4000 }) : undefined;
  if (!changes) return wanted.map(changed).join('\n');
  const out: string[] = [];
  let q = 0;
  for (const change of changes) {
    if (change.removed) q += change.value.length;
    else if (change.added) for (const line of change.value) out.push(changed(line));
    else for (let k = 0; k < change.value.length; k++) out.push(fileLines[q++] as string);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------
// Line-block strategies: whole lines, compared without their indentation.

const PLAIN_LINE = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/;
const leading = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? '';
/** Indentation when look-alikes are forgiven: no-break and other typographic spaces count as spaces. */
const leadingUnicode = (line: string): string => /^[ \t\u00A0\u2002-\u200A\u202F\u205F\u3000]*/.exec(line)?.[0] ?? '';

interface LineBlockOptions {
  contentOptions: NormalizeOptions;
}

function lineBlocks(text: string, oldText: string, options: LineBlockOptions): TextMatch[] {
  const quote = quoteLines(oldText);
  const oldLines = quote.lines;
  if (oldLines.every(isBlankLine)) return [];
  const file = splitLines(text);
  const lead = options.contentOptions.unicode ? leadingUnicode : leading;
  const norm = (line: string): string => {
    const content = line.slice(lead(line).length);
    // Printable ASCII with single inner spaces and no trailing blank: every normalisation leaves it as it is.
    return PLAIN_LINE.test(content) ? content : normalizedString(content, options.contentOptions);
  };
  const oldContent = oldLines.map(norm);
  const firstIdx = oldLines.findIndex((l) => !isBlankLine(l));
  const firstContent = oldContent[firstIdx] as string;
  const out: TextMatch[] = [];
  const unshiftable: TextMatch[] = [];
  const limit = file.lines.length - oldLines.length;
  // Cheap pre-filter before normalising a candidate line: only sound when content is not remapped.
  const probeText = options.contentOptions.unicode || options.contentOptions.runs ? '' : firstContent.slice(0, 8);
  for (let i = 0; i <= limit; i++) {
    const probe = file.lines[i + firstIdx] as string;
    if (probeText !== '' && !probe.includes(probeText)) continue;
    if (norm(probe) !== firstContent) continue;
    const window = file.lines.slice(i, i + oldLines.length);
    let same = true;
    for (let k = 0; k < oldLines.length && same; k++) {
      const a = oldLines[k] as string;
      const b = window[k] as string;
      if (isBlankLine(a) !== isBlankLine(b)) same = false;
      else if (!isBlankLine(a) && norm(b) !== oldContent[k]) same = false;
    }
    if (!same) continue;
    const reindent = indentShift(oldLines, window, lead);
    const start = file.starts[i] as number;
    if (!reindent) {
      // The same lines once indentation is ignored, nested differently: no re-indentation maps the quote onto
      // them, but they are a second place the quote may mean. Counted, so one such place next to a match is
      // ambiguity (refused), never a silent pick of the other.
      unshiftable.push({
        start,
        end: start + 1,
        transform: () => {
          throw ambiguousIndent('the lines match here only with a different nesting', i + 1);
        },
      });
      continue;
    }
    const lastLine = i + oldLines.length - 1;
    let end = (file.starts[lastLine] as number) + (file.lines[lastLine] as string).length;
    if (quote.trailingNewline) {
      if (end >= text.length) continue; // old_text ends with a newline the file does not have there
      end += 1;
    }
    const region = text.slice(start, end);
    const fixLookalikes = options.contentOptions.unicode ? lookalikeFixer(oldText, region) : identity;
    out.push({
      start,
      end,
      transform: (newText) => {
        // new_text may be written relative to the quote (shift it with the quote) or already at the file's indentation (keep it).
        const frame = indentFrame(oldLines, window, newText, lead);
        if (frame.kind === 'ambiguous') throw ambiguousIndent(frame.why, i + 1);
        if (frame.kind === 'file') {
          // new_text is at the file's indentation: its unchanged lines are the ones equal to the file's lines.
          // Compared with the quote's lines instead, a "\t}" written for the file's outer brace would be taken
          // for the quote's inner "\t}" and written as the file has that one (a tab too deep, the outer one lost).
          return keepUnchangedLines(region, region, newText, fixLookalikes);
        }
        return keepUnchangedLines(region, oldText, newText, (line) => reindent(fixLookalikes(line)));
      },
    });
  }
  return out.length > 0 ? [...out, ...unshiftable] : out;
}
