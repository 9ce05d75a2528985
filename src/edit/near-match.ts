/**
 * When old_text is not in the file, find the place the model most likely
 * meant and say what differs there, so its next request can be right. Only
 * advice: a near match is never applied.
 */
import { EditwardenError, ErrorCode, quote } from '../errors.js';

export interface NearMatch {
  /** 1-based line in the file where the likely intended block starts. */
  line: number;
  /** 1-based line of the first line that differs. */
  diffLine: number;
  fileText: string;
  quotedText: string;
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
    for (let k = 0; k < quoted.length; k++) {
      const fileLine = fileLines[bestStart + k];
      const q = quoted[k] as string;
      if (fileLine === undefined) return { line: bestStart + 1, diffLine: bestStart + k + 1, fileText: '(end of file)', quotedText: q };
      if (fileLine !== q) return { line: bestStart + 1, diffLine: bestStart + k + 1, fileText: fileLine, quotedText: q };
    }
  }
  // One line (or nothing voted): the most similar single line by character bigrams.
  const target = quoted.find((l) => l.trim().length > 0) ?? '';
  if (target.trim().length < 3) return null;
  const targetGrams = bigrams(target.trim());
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < fileLines.length; i++) {
    const line = (fileLines[i] as string).trim();
    if (line.length === 0 || Math.abs(line.length - target.trim().length) > target.length) continue;
    const score = dice(targetGrams, bigrams(line));
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  if (best < 0 || bestScore < 0.6) return null;
  return { line: best + 1, diffLine: best + 1, fileText: fileLines[best] as string, quotedText: target };
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let inter = 0;
  let total = 0;
  for (const n of a.values()) total += n;
  for (const n of b.values()) total += n;
  for (const [g, n] of a) inter += Math.min(n, b.get(g) ?? 0);
  return total === 0 ? 0 : (2 * inter) / total;
}

/** Describes how two lines differ in words a model can act on. */
export function describeDifference(fileText: string, quotedText: string): string {
  if (fileText.trim() === quotedText.trim()) {
    return 'only the indentation differs';
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
  let message = `old_text ${quote(oldText)} was not found in ${path}`;
  message += strict ? ' (strict mode: exact matches only).' : ', not even allowing for whitespace, indentation or typographic quotes.';
  if (near) {
    message +=
      ` The closest text starts at line ${near.line}; line ${near.diffLine} differs: ` +
      `${describeDifference(near.fileText, near.quotedText)} (file: ${quote(near.fileText, 100)}).`;
  }
  return new EditwardenError({
    code: ErrorCode.NOT_FOUND,
    message,
    hint: 'Read the file again (it may have changed) and copy old_text exactly from it, with enough lines to be unique.',
    path,
    ...(near ? { line: near.diffLine } : {}),
  });
}
