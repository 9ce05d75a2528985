/**
 * When old_text is not in the file, find the place the model most likely
 * meant and say what differs there, so its next request can be right. Only
 * advice: a near match is never applied.
 */
import { EditwardenError, ErrorCode, quote } from '../errors.js';
import { notFoundSentences } from './errors.js';
import { defined } from '../defined.js';

export interface NearMatch {
  /** 1-based line in the file where the likely intended block starts. */
  line: number;
  /** 1-based line of the first line that differs. */
  diffLine: number;
  fileText: string;
  quotedText: string;
  /** 'missing': the file's line `diffLine` is not in old_text; 'extra': old_text's line `quotedLine` is not in the file. */
  gap?: 'missing' | 'extra';
  quotedLine?: number;
}

const MAX_SCAN_LINES = 200_000;

export function findNearMatch(text: string, oldText: string): NearMatch | null {
  const fileLines = text.split('\n');
  if (fileLines.length > MAX_SCAN_LINES) return null;
  const quoted = (oldText.endsWith('\n') ? oldText.slice(0, -1) : oldText).split('\n');
  const key = (s: string): string => s.trim();
  // Votes: every quoted line found verbatim (trimmed) votes for where the block would start.
  const wanted = new Map<string, number[]>();
  quoted.forEach((line, k) => {
    const t = key(line);
    if (t.length < 3) return;
    const list = wanted.get(t) ?? [];
    list.push(k);
    wanted.set(t, list);
  });
  const votes = new Map<number, number>();
  for (let i = 0; i < fileLines.length; i++) {
    const ks = wanted.get(key(fileLines[i] as string));
    if (!ks) continue;
    for (const k of ks) votes.set(i - k, (votes.get(i - k) ?? 0) + 1);
  }
  let bestStart = -1;
  let bestVotes = 0;
  for (const [start, n] of votes) {
    if (n > bestVotes || (n === bestVotes && start < bestStart)) {
      bestStart = start;
      bestVotes = n;
    }
  }
  if (bestStart >= 0 && quoted.length > 1) {
    // A line left out of the quote, or one the file does not have, is named as such (not as a column difference).
    const gap = missingOrExtraLine(fileLines, quoted, bestStart);
    if (gap) return gap;
    // Name the first line whose content differs; a difference in indentation only comes second.
    for (const sameIf of [(a: string, b: string) => a.trim() === b.trim(), (a: string, b: string) => a === b]) {
      for (let k = 0; k < quoted.length; k++) {
        const fileLine = fileLines[bestStart + k];
        const q = quoted[k] as string;
        if (fileLine === undefined) return { line: bestStart + 1, diffLine: bestStart + k + 1, fileText: '(end of file)', quotedText: q };
        if (!sameIf(fileLine, q)) return { line: bestStart + 1, diffLine: bestStart + k + 1, fileText: fileLine, quotedText: q };
      }
    }
  }
  // One line (or nothing voted): the most similar single line. Character bigrams (Dice) shortlist
  // candidates cheaply; edit distance picks among them, since Dice favours a longer line that
  // merely shares more pairs ("value5001 = compute(5001" over "value500 = compute(500").
  const target = quoted.find((l) => l.trim().length > 0) ?? '';
  const wantedLine = target.trim();
  if (wantedLine.length < 3) return null;
  const targetGrams = bigrams(wantedLine);
  const used = new Map<number, number>();
  const shortlist: Array<{ index: number; score: number }> = [];
  for (let i = 0; i < fileLines.length; i++) {
    const line = (fileLines[i] as string).trim();
    if (line.length === 0 || Math.abs(line.length - wantedLine.length) > target.length) continue;
    used.clear();
    let shared = 0;
    for (let k = 0; k < line.length - 1; k++) {
      const gram = line.charCodeAt(k) * 0x10000 + line.charCodeAt(k + 1);
      const have = targetGrams.get(gram);
      if (have === undefined) continue;
      const taken = used.get(gram) ?? 0;
      if (taken < have) {
        shared++;
        used.set(gram, taken + 1);
      }
    }
    const total = wantedLine.length - 1 + Math.max(0, line.length - 1);
    const score = total === 0 ? 0 : (2 * shared) / total;
    if (score >= 0.6) shortlist.push({ index: i, score });
  }
  if (shortlist.length === 0) return null;
  shortlist.sort((x, y) => y.score - x.score || x.index - y.index);
  let best = shortlist[0] as { index: number; score: number };
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of shortlist.slice(0, SHORTLIST)) {
    const distance = editDistance(wantedLine, (fileLines[candidate.index] as string).trim());
    if (distance < bestDistance || (distance === bestDistance && candidate.index < best.index)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return { line: best.index + 1, diffLine: best.index + 1, fileText: fileLines[best.index] as string, quotedText: target };
}

/**
 * Walks the quote along the file from `start`: where quoted line k differs
 * from the file's line but equals the next file line (and the rest lines up),
 * the file's line is missing from the quote; where it equals the next quoted
 * line instead, the quote has a line the file does not.
 */
function missingOrExtraLine(fileLines: string[], quoted: string[], start: number): NearMatch | null {
  const same = (a: string | undefined, b: string | undefined): boolean => a !== undefined && b !== undefined && a.trim() === b.trim();
  // At least one line after the gap must confirm it: a last line that differs is a difference, not a gap.
  const restAligns = (f: number, q: number): boolean => {
    if (q >= quoted.length) return false;
    for (; q < quoted.length; f++, q++) if (!same(fileLines[f], quoted[q])) return false;
    return true;
  };
  for (let k = 0; k < quoted.length; k++) {
    const f = start + k;
    if (same(fileLines[f], quoted[k])) continue;
    if ((fileLines[f] ?? '').trim() !== '' && restAligns(f + 1, k)) {
      return { line: start + 1, diffLine: f + 1, fileText: fileLines[f] as string, quotedText: quoted[k] as string, gap: 'missing' };
    }
    if ((quoted[k] as string).trim() !== '' && restAligns(f, k + 1)) {
      return { line: start + 1, diffLine: f + 1, fileText: fileLines[f] ?? '(end of file)', quotedText: quoted[k] as string, gap: 'extra', quotedLine: k + 1 };
    }
    return null;
  }
  return null;
}

const SHORTLIST = 32;
/** Lines longer than this are compared by their bigram score only. */
const MAX_DISTANCE_LENGTH = 2000;

function bigrams(s: string): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const gram = s.charCodeAt(i) * 0x10000 + s.charCodeAt(i + 1);
    m.set(gram, (m.get(gram) ?? 0) + 1);
  }
  return m;
}

/** Levenshtein distance (two rows); very long lines count as equally far. */
function editDistance(a: string, b: string): number {
  if (a.length > MAX_DISTANCE_LENGTH || b.length > MAX_DISTANCE_LENGTH) return MAX_DISTANCE_LENGTH;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] as number;
}

/** Describes how two lines differ in words a model can act on. */
function describeDifference(fileText: string, quotedText: string): string {
  if (fileText.trim() === quotedText.trim()) {
    return 'only the indentation differs';
  }
  // Different indentation as well: compare the content, and count columns in the file's line.
  const fileIndent = /^[ \t]*/.exec(fileText)?.[0].length ?? 0;
  const quoteIndent = /^[ \t]*/.exec(quotedText)?.[0].length ?? 0;
  if (fileText.slice(0, fileIndent) !== quotedText.slice(0, quoteIndent)) {
    const inner = describeDifference(fileText.slice(fileIndent), quotedText.slice(quoteIndent));
    return `${inner.replace(/column (\d+)/, (_m, c: string) => `column ${Number(c) + fileIndent}`)} (and the indentation differs)`;
  }
  let i = 0;
  while (i < fileText.length && i < quotedText.length && fileText[i] === quotedText[i]) i++;
  const fileChar = fileText[i];
  const quoteChar = quotedText[i];
  const at = `column ${i + 1}`;
  if (fileChar === undefined) return `old_text continues past the end of the file's line at ${at}`;
  if (quoteChar === undefined) return `the file's line continues at ${at}`;
  return `at ${at} the file has ${JSON.stringify(fileText.slice(i, i + 12))} where old_text has ${JSON.stringify(quotedText.slice(i, i + 12))}`;
}

export function notFoundError(path: string, text: string, oldText: string, strict: boolean): EditwardenError {
  const near = findNearMatch(text, oldText);
  // The safety design's sentences, verbatim, first (errors.ts); our detail follows.
  let message = notFoundSentences(oldText);
  message += ` old_text ${quote(oldText, 60)} is not in ${path}`;
  message += strict ? ' (strict mode: exact matches only).' : ', not even allowing for whitespace, indentation or typographic quotes.';
  if (near) message += ` ${describeNearMatch(near)}`;
  const escaped = escapedTwice(oldText);
  if (escaped) message += ` ${escaped}`;
  return new EditwardenError({
    code: ErrorCode.NOT_FOUND,
    message,
    hint:
      (escaped ? 'Send old_text and new_text with real line breaks: escape a newline once ("\\n" in JSON), not twice ("\\\\n"). ' : '') +
      (near?.gap === 'missing' ? `Include line ${near.diffLine} of the file in old_text, or quote only the lines after it. ` : '') +
      'Read the file again (it may have changed) and copy old_text exactly from it, with enough lines to be unique.',
    path,
    ...defined({ line: near ? near.diffLine : undefined }),
  });
}

/** The near-match advice: a missing or extra line named as such, otherwise the first line that differs and how. */
export function describeNearMatch(near: NearMatch): string {
  if (near.gap === 'missing') {
    return `The closest text starts at line ${near.line}; line ${near.diffLine} of the file is not in old_text (file: ${quote(near.fileText, 100)}).`;
  }
  if (near.gap === 'extra') {
    return `The closest text starts at line ${near.line}; line ${near.quotedLine} of old_text (${quote(near.quotedText, 100)}) is not in the file, which has ${quote(near.fileText, 100)} at line ${near.diffLine}.`;
  }
  return `The closest text starts at line ${near.line}; line ${near.diffLine} differs: ${describeDifference(near.fileText, near.quotedText)} (file: ${quote(near.fileText, 100)}).`;
}

/** Names double escaping: "\\n" as two characters and no real line break in a quote of several lines. */
function escapedTwice(oldText: string): string | undefined {
  if (oldText.includes('\n') || !oldText.includes('\\n')) return undefined;
  return 'old_text contains "\\n" as two characters (a backslash and an n) and no real line break: its newlines look escaped twice, and unescaped it does not match exactly one place either.';
}
