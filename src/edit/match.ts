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
import type { MatchStrategy } from './types.js';
import { allIndexes, normalizeText, type NormalizeOptions } from './normalize.js';

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
  if (strict) return null;
  for (const strategy of STRATEGIES) {
    const matches = dedupe(strategy.find(text, oldText));
    if (matches.length > 0) return { strategy: strategy.name, matches };
  }
  return null;
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
  const hay = normalizeText(text, options);
  const out: TextMatch[] = [];
  for (const at of allIndexes(hay.text, needle, 1000)) {
    const start = hay.starts[at] as number;
    let end = hay.ends[at + needle.length - 1] as number;
    // Ends where the line ends once trailing blanks are ignored: take those blanks too,
    // so the replaced line does not keep stray whitespace the model never saw.
    const next = hay.text[at + needle.length];
    if (options.trailing && (next === undefined || next === '\n')) {
      while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
    }
    out.push({ start, end });
  }
  return out;
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

const leading = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? '';
const isBlankLine = (line: string): boolean => line.trim().length === 0;

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
  const norm = (line: string): string => normalizeText(line.slice(leading(line).length), options.contentOptions).text;
  const oldContent = oldLines.map(norm);
  const firstIdx = oldLines.findIndex((l) => !isBlankLine(l));
  const firstContent = oldContent[firstIdx] as string;
  const out: TextMatch[] = [];
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
    const shift = indentShift(oldLines, window);
    if (!shift) continue;
    const start = file.starts[i] as number;
    const lastLine = i + oldLines.length - 1;
    let end = (file.starts[lastLine] as number) + (file.lines[lastLine] as string).length;
    if (quote.trailingNewline) {
      if (end >= text.length) continue; // old_text ends with a newline the file does not have there
      end += 1;
    }
    out.push({ start, end, transform: shift });
  }
  return out;
}

/**
 * The indentation of `fileLines` must be `oldLines`' indentation shifted as a
 * whole: same relative structure (scaled by one factor, so 2-space vs 4-space
 * or tabs vs spaces still line up). Returns the re-indenter for new_text.
 */
function indentShift(oldLines: string[], fileLines: string[]): ((newText: string) => string) | null {
  const pairs: Array<[string, string]> = [];
  for (let k = 0; k < oldLines.length; k++) {
    const a = oldLines[k] as string;
    const b = fileLines[k] as string;
    if (!isBlankLine(a)) pairs.push([leading(a), leading(b)]);
  }
  const oldMin = Math.min(...pairs.map(([a]) => a.length));
  const fileMin = Math.min(...pairs.map(([, b]) => b.length));
  const fileBase = pairs.find(([, b]) => b.length === fileMin)?.[1] ?? '';
  const oldBase = pairs.find(([a]) => a.length === oldMin)?.[0] ?? '';
  let ratio: number | undefined;
  let fileUnit = '';
  for (const [a, b] of pairs) {
    const relOld = a.length - oldMin;
    const relFile = b.length - fileMin;
    if (relOld === 0 || relFile === 0) {
      if (relOld !== relFile) return null;
      continue;
    }
    const r = relFile / relOld;
    if (ratio === undefined) {
      ratio = r;
      fileUnit = b.slice(fileMin, fileMin + 1);
    } else if (Math.abs(ratio - r) > 1e-9) return null;
  }
  const scale = ratio ?? 1;
  const oldUnit = pairs.map(([a]) => a.slice(oldMin, oldMin + 1)).find((c) => c !== '') ?? '';
  const unit = fileUnit || (fileBase.endsWith('\t') ? '\t' : ' ');
  const verbatim = scale === 1 && (oldUnit === '' || oldUnit === unit);
  return (newText: string) =>
    newText
      .split('\n')
      .map((line) => {
        if (isBlankLine(line)) return line.trim() === '' && line.length > 0 ? '' : line;
        const lead = leading(line);
        const rest = line.slice(lead.length);
        const relative = lead.startsWith(oldBase) ? lead.slice(oldBase.length) : '';
        if (verbatim) return fileBase + relative + rest;
        return fileBase + unit.repeat(Math.round(relative.length * scale)) + rest;
      })
      .join('\n');
}

/**
 * Blank lines added or missing in the quote: compare the non-blank lines in
 * order (trailing whitespace ignored, indentation exact) and let any number of
 * blank lines sit between them.
 */
function blankLineTolerant(text: string, oldText: string): TextMatch[] {
  const quote = quoteLines(oldText);
  const wanted = quote.lines.filter((l) => !isBlankLine(l)).map((l) => l.trimEnd());
  if (wanted.length < 2) return [];
  const file = splitLines(text);
  const out: TextMatch[] = [];
  for (let i = 0; i < file.lines.length; i++) {
    if ((file.lines[i] as string).trimEnd() !== wanted[0]) continue;
    let k = 1;
    let j = i + 1;
    for (; j < file.lines.length && k < wanted.length; j++) {
      const line = file.lines[j] as string;
      if (isBlankLine(line)) continue;
      if (line.trimEnd() !== wanted[k]) break;
      k++;
    }
    if (k !== wanted.length) continue;
    const last = j - 1;
    const start = file.starts[i] as number;
    let end = (file.starts[last] as number) + (file.lines[last] as string).length;
    if (quote.trailingNewline && end < text.length) end += 1;
    out.push({ start, end, transform: (newText) => trimBlankEdges(newText, quote.lines, quote.trailingNewline) });
  }
  return out;
}

/** Drops the blank lines new_text repeats from old_text's edges: the match never covers them. */
function trimBlankEdges(newText: string, oldLines: string[], trailingNewline: boolean): string {
  let lead = 0;
  while (lead < oldLines.length && isBlankLine(oldLines[lead] as string)) lead++;
  let trail = 0;
  while (trail < oldLines.length - lead && isBlankLine(oldLines[oldLines.length - 1 - trail] as string)) trail++;
  const hadNewline = newText.endsWith('\n');
  const lines = (hadNewline ? newText.slice(0, -1) : newText).split('\n');
  let from = 0;
  while (from < lead && from < lines.length && isBlankLine(lines[from] as string)) from++;
  let to = lines.length;
  while (lines.length - to < trail && to > from && isBlankLine(lines[to - 1] as string)) to--;
  return lines.slice(from, to).join('\n') + (hadNewline && trailingNewline ? '\n' : hadNewline ? '\n' : '');
}
