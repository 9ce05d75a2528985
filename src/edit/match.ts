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
import type { MatchStrategy } from './types.js';
import { allIndexes, mapLookalike, normalizedString, normalizeText, type NormalizeOptions } from './normalize.js';
import { ambiguousIndent, indentFrame, indentShift, isBlankLine, rebaseContinuation } from './reindent.js';

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

const STRATEGIES: readonly Strategy[] = [
  { name: 'trailing-whitespace', find: (t, o) => charLevel(t, o, CHAR_TRAILING) },
  { name: 'indentation', find: (t, o) => lineBlocks(t, o, { contentOptions: CHAR_TRAILING }) },
  { name: 'whitespace-runs', find: (t, o) => charLevel(t, o, CHAR_RUNS) },
  { name: 'unicode', find: (t, o) => charLevel(t, o, CHAR_UNICODE) },
  { name: 'indentation+unicode', find: (t, o) => lineBlocks(t, o, { contentOptions: CHAR_UNICODE }) },
  { name: 'blank-lines', find: (t, o) => blankLineTolerant(t, o) },
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
    out.push({ start, end, transform: (newText) => rebaseContinuation(indent, keepUnchangedLines(region, oldText, newText, changed)) });
  }
  return out;
}

const identity = (line: string): string => line;

/**
 * The indentation before a one-line quote that starts at the first non-blank character of its line ('' when
 * the quote starts at column 0, mid-text, or spans several lines — those carry their own indentation evidence).
 * Only tolerant matches use it: an exact match writes new_text verbatim (its inverse edit restores the file).
 */
function midLineIndent(text: string, start: number, oldText: string): string {
  if (oldText.replace(/\n$/, '').includes('\n') || /^\s/.test(oldText)) return '';
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(lineStart, start);
  return /^[ \t]+$/.test(before) ? before : '';
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

interface Lines {
  lines: string[];
  /** Offset where each line starts. */
  starts: number[];
}

function splitLines(text: string): Lines {
  const lines = text.split('\n');
  const starts: number[] = new Array(lines.length);
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = offset;
    offset += (lines[i] as string).length + 1;
  }
  return { lines, starts };
}

const PLAIN_LINE = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/;
const leading = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? '';
/** Indentation when look-alikes are forgiven: no-break and other typographic spaces count as spaces. */
const leadingUnicode = (line: string): string => /^[ \t\u00A0\u2002-\u200A\u202F\u205F\u3000]*/.exec(line)?.[0] ?? '';

/** Splits old_text into lines; a final newline is remembered, not a line. */
function quoteLines(oldText: string): { lines: string[]; trailingNewline: boolean } {
  const trailingNewline = oldText.endsWith('\n');
  const lines = (trailingNewline ? oldText.slice(0, -1) : oldText).split('\n');
  return { lines, trailingNewline };
}

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
        const shift = frame.kind === 'file' ? identity : reindent;
        return keepUnchangedLines(region, oldText, newText, (line) => shift(fixLookalikes(line)));
      },
    });
  }
  return out.length > 0 ? [...out, ...unshiftable] : out;
}

/**
 * Blank lines added or missing in the quote: compare the non-blank lines in
 * order (trailing whitespace ignored, indentation exact) and let any number of
 * blank lines sit between them.
 */
function blankLineTolerant(text: string, oldText: string): TextMatch[] {
  const quote = quoteLines(oldText);
  const first = quote.lines.findIndex((l) => !isBlankLine(l));
  if (first < 0) return [];
  let lastQuoted = quote.lines.length - 1;
  while (isBlankLine(quote.lines[lastQuoted] as string)) lastQuoted--;
  // The quote without its edge blank lines: the match never covers those.
  const core = quote.lines.slice(first, lastQuoted + 1);
  const wantedAt = core.flatMap((l, k) => (isBlankLine(l) ? [] : [k]));
  const wanted = wantedAt.map((k) => (core[k] as string).trimEnd());
  if (wanted.length < 2) return [];
  const file = splitLines(text);
  const out: TextMatch[] = [];
  for (let i = 0; i < file.lines.length; i++) {
    if ((file.lines[i] as string).trimEnd() !== wanted[0]) continue;
    // Where each non-blank quoted line sits in the file, relative to line i.
    const at: number[] = [0];
    let j = i + 1;
    for (; j < file.lines.length && at.length < wanted.length; j++) {
      const line = file.lines[j] as string;
      if (isBlankLine(line)) continue;
      if (line.trimEnd() !== wanted[at.length]) break;
      at.push(j - i);
    }
    if (at.length !== wanted.length) continue;
    const last = j - 1;
    const start = file.starts[i] as number;
    let end = (file.starts[last] as number) + (file.lines[last] as string).length;
    if (quote.trailingNewline || lastQuoted < quote.lines.length - 1) {
      if (end >= text.length) continue; // old_text ends with a newline the file does not have there
      end += 1;
    }
    const region = file.lines.slice(i, last + 1);
    const fileAt = new Map<number, number>(wantedAt.map((k, n) => [k, at[n] as number]));
    out.push({
      start,
      end,
      transform: (newText) => realignBlankLines(trimBlankEdges(newText, quote.lines), core, region, fileAt),
    });
  }
  return out;
}

/** Drops the blank lines new_text repeats from old_text's edges: the match never covers them. */
function trimBlankEdges(newText: string, oldLines: string[]): { lines: string[]; newline: boolean } {
  let lead = 0;
  while (lead < oldLines.length && isBlankLine(oldLines[lead] as string)) lead++;
  let trail = 0;
  while (trail < oldLines.length - lead && isBlankLine(oldLines[oldLines.length - 1 - trail] as string)) trail++;
  const hadNewline = newText.endsWith('\n');
  const lines = (hadNewline ? newText.slice(0, -1) : newText).split('\n');
  let from = 0;
  while (from < lead && from < lines.length && isBlankLine(lines[from] as string)) from++;
  let to = lines.length;
  // A dropped trailing blank line carries new_text's final newline with it.
  let newline = hadNewline;
  while (lines.length - to < trail && to > from && isBlankLine(lines[to - 1] as string)) {
    to--;
    newline = to > from;
  }
  return { lines: lines.slice(from, to), newline };
}

/**
 * Writes new_text over a block whose blank lines the quote got wrong. The
 * model's edit is what turns its quote into new_text (a line diff); that edit
 * is replayed on the file's own lines. Quoted lines it kept are written as the
 * file has them, and the blank lines between two quoted lines are the file's
 * wherever the model changed nothing there: it asked to change lines, not the
 * spacing it misremembered. Where it did change a gap, its layout stands.
 */
function realignBlankLines(next: { lines: string[]; newline: boolean }, core: string[], region: string[], fileAt: Map<number, number>): string {
  const finish = (lines: string[]): string => lines.join('\n') + (next.newline ? '\n' : '');
  const changes = diffArrays(core, next.lines, { maxEditLength: 4000 });
  if (!changes) return finish(next.lines);
  const kept: boolean[] = core.map(() => false);
  // Lines of new_text added before quoted line k (k = core.length: after the last).
  const addedBefore: string[][] = Array.from({ length: core.length + 1 }, () => []);
  // Lines of new_text that replace removed quoted lines, written where the first removed non-blank line stood.
  const replacing = new Map<number, string[]>();
  let q = 0;
  let removedFrom = -1;
  for (const change of changes) {
    if (change.added) {
      let at = -1;
      for (let k = removedFrom; k >= 0 && k < q && at < 0; k++) if (!isBlankLine(core[k] as string)) at = k;
      if (at >= 0) replacing.set(at, change.value);
      else (addedBefore[q] as string[]).push(...change.value);
      removedFrom = -1;
    } else if (change.removed) {
      removedFrom = q;
      q += change.value.length;
    } else {
      removedFrom = -1;
      for (let k = 0; k < change.value.length; k++) kept[q++] = true;
    }
  }
  const emit = (k: number): void => {
    if (kept[k]) out.push(region[fileAt.get(k) as number] as string);
    else out.push(...(replacing.get(k) ?? []));
  };
  const dropped = (k: number): boolean => !kept[k] && !replacing.has(k);
  const out: string[] = [...(addedBefore[0] as string[])];
  let prev = 0; // core[0] is never blank
  const survivorAfter = (k: number): boolean => {
    for (let j = k + 1; j < core.length; j++) if (!isBlankLine(core[j] as string) && !dropped(j)) return true;
    return false;
  };
  emit(0);
  for (let b = 1; b < core.length; b++) {
    if (isBlankLine(core[b] as string)) continue;
    // The gap between quoted lines prev and b: blank lines prev+1 … b-1.
    let untouched = true;
    for (let j = prev + 1; j <= b && untouched; j++) {
      if ((addedBefore[j] as string[]).length > 0 || (j < b && !kept[j])) untouched = false;
    }
    if (untouched) {
      // A deleted line takes one of the two gaps around it with it, so spacing does not double up.
      // Deleted lines take their spacing with them: of the gaps around a run of deleted lines only the
      // one after the last surviving line stands, and only if a surviving line follows (outside the
      // block, the file's own spacing already stands).
      const show = !dropped(prev) && (!dropped(b) || survivorAfter(b));
      if (show) out.push(...region.slice((fileAt.get(prev) as number) + 1, fileAt.get(b) as number));
    } else {
      for (let j = prev + 1; j <= b; j++) {
        out.push(...(addedBefore[j] as string[]));
        if (j < b && kept[j]) out.push(core[j] as string);
      }
    }
    emit(b);
    prev = b;
  }
  out.push(...(addedBefore[core.length] as string[]));
  return finish(out);
}
