/**
 * Re-indentation for the `indentation` strategies: how a quoted block's
 * indentation maps onto the file's (indentShift), and which indentation
 * new_text is written in (indentFrame), decided from evidence. Pure; must
 * never guess when the evidence is contradictory — the caller refuses then.
 */
import { diffArrays } from 'diff';
import { EditwardenError, ErrorCode } from '../errors.js';
import { leastOf } from '../arrays.js';

export const isBlankLine = (line: string): boolean => line.trim().length === 0;

export type IndentFrame = { kind: 'quote' } | { kind: 'file' } | { kind: 'ambiguous'; why: string };

/**
 * Which indentation new_text is written in, decided from evidence: lines it
 * shares with old_text (same content) sit either at the quote's indentation
 * (then new_text moves with the quote) or at the file's (then it is already
 * where it belongs and must not be shifted a second time). Without shared
 * lines, new_text's base indentation is compared with the quote's and the
 * file's. Evidence that points both ways, or nowhere, is ambiguous: refused
 * rather than guessed.
 */
export function indentFrame(oldLines: string[], fileLines: string[], newText: string, leading: (line: string) => string): IndentFrame {
  const differs = oldLines.some((l, k) => !isBlankLine(l) && leading(l) !== leading(fileLines[k] as string));
  if (!differs) return { kind: 'quote' };
  const newLines = (newText.endsWith('\n') ? newText.slice(0, -1) : newText).split('\n').filter((l) => !isBlankLine(l));
  if (newLines.length === 0) return { kind: 'quote' };
  const quoted = oldLines.flatMap((l, k) => (isBlankLine(l) ? [] : [k]));
  // Lines new_text shares with old_text vote for a frame (sharedLines pairs them by a line diff).
  // A line that occurs more than once ("}") may be paired with the wrong counterpart by the diff: it votes only
  // when nothing else does.
  const counts = new Map<string, number>();
  for (const k of quoted) counts.set((oldLines[k] as string).trim(), (counts.get((oldLines[k] as string).trim()) ?? 0) + 1);
  const votes = { quote: 0, file: 0, repeatedQuote: 0, repeatedFile: 0 };
  for (const [q, n] of sharedLines(
    quoted.map((k) => oldLines[k] as string),
    newLines,
  )) {
    const k = quoted[q] as number;
    const lead = leading(newLines[n] as string);
    const inQuote = leading(oldLines[k] as string);
    const inFile = leading(fileLines[k] as string);
    if (inQuote === inFile) continue; // this line cannot tell the two frames apart
    const repeated = (counts.get((oldLines[k] as string).trim()) ?? 0) > 1;
    if (lead === inQuote) votes[repeated ? 'repeatedQuote' : 'quote']++;
    else if (lead === inFile) votes[repeated ? 'repeatedFile' : 'file']++;
  }
  const unique = votes.quote + votes.file > 0;
  const quoteVotes = unique ? votes.quote : votes.repeatedQuote;
  const fileVotes = unique ? votes.file : votes.repeatedFile;
  if (quoteVotes > 0 && fileVotes === 0) return { kind: 'quote' };
  if (fileVotes > 0 && quoteVotes === 0) return { kind: 'file' };
  const base = (lines: string[]): string =>
    lines
      .filter((l) => !isBlankLine(l))
      .map(leading)
      .reduce((a, b) => (b.length < a.length ? b : a));
  const quoteBase = base(oldLines);
  const fileBase = base(fileLines);
  const newBase = base(newLines);
  if (quoteVotes > 0 && fileVotes > 0) {
    return { kind: 'ambiguous', why: `some lines new_text shares with old_text keep old_text's indentation and others have the file's` };
  }
  if (newBase === quoteBase) return { kind: 'quote' };
  if (newBase === fileBase) return { kind: 'file' };
  return {
    kind: 'ambiguous',
    why: `old_text is indented by ${JSON.stringify(quoteBase)} but the file's block by ${JSON.stringify(fileBase)}, and new_text by ${JSON.stringify(newBase)} — neither`,
  };
}

export function ambiguousIndent(why: string, line: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.AMBIGUOUS,
    message: `old_text matched at line ${line} only at a different indentation, and it is unclear how far to indent new_text: ${why}.`,
    hint: "Copy old_text with the file's exact indentation and write new_text at the indentation it should have in the file.",
    line,
  });
}

/**
 * The indentation of `fileLines` must be `oldLines`' indentation shifted as a
 * whole: same relative structure (scaled by one factor, so 2-space vs 4-space
 * or tabs vs spaces still line up). Returns the re-indenter for one line of new_text.
 */
export function indentShift(oldLines: string[], fileLines: string[], leading: (line: string) => string): ((line: string) => string) | null {
  const pairs: Array<[string, string]> = [];
  for (let k = 0; k < oldLines.length; k++) {
    const a = oldLines[k] as string;
    const b = fileLines[k] as string;
    if (!isBlankLine(a)) pairs.push([leading(a), leading(b)]);
  }
  const oldMin = leastOf(pairs.map(([a]) => a.length));
  const fileMin = leastOf(pairs.map(([, b]) => b.length));
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
  const oldUnit = pairs.map(([a]) => a.slice(oldMin, oldMin + 1)).find((c) => c !== '') ?? oldBase.slice(-1);
  const unit = fileUnit || (fileBase.endsWith('\t') ? '\t' : fileBase.length > 0 ? ' ' : oldUnit === '\t' ? '\t' : ' ');
  // Without nested lines the factor is unknown: a tab is taken as four spaces.
  const scale = ratio ?? (oldUnit === unit || oldUnit === '' ? 1 : oldUnit === '\t' ? 4 : 1 / 4);
  const verbatim = scale === 1 && (oldUnit === '' || oldUnit === unit);
  return (line: string) => {
    if (isBlankLine(line)) return line.trim() === '' && line.length > 0 ? '' : line;
    const lead = leading(line);
    const rest = line.slice(lead.length);
    if (lead.length < oldBase.length) {
      // Less indented than the quote's base (a dedent): take as much off the file's base.
      const cut = Math.min(fileBase.length, Math.round((oldBase.length - lead.length) * scale));
      return fileBase.slice(0, fileBase.length - cut) + rest;
    }
    if (verbatim && lead.startsWith(oldBase)) return fileBase + lead.slice(oldBase.length) + rest;
    return fileBase + unit.repeat(Math.round((lead.length - oldBase.length) * scale)) + rest;
  };
}

/**
 * A quote that starts at the first non-blank character of an indented line (the model copied from there, not
 * from column 0): new_text's first line lands after the line's indentation `lineIndent`. Which frame its further
 * lines are written in is decided from evidence, as in indentFrame — the quote's own further lines sit at the
 * file's indentation (a tolerant match keeps indentation as it is), so:
 *   - lines new_text shares with them (paired in order) either keep that indentation (new_text is in the file's
 *     frame: its lines stay) or lack exactly `lineIndent` (new_text is in the frame of its first line, written
 *     from column 0: every further line moves by `lineIndent`, as the first one did);
 *   - without shared lines, new_text's first further line is compared with the quote's, then new_text's base:
 *     lines written less indented than the line itself (from column 0) move; lines at or beyond it stay.
 * Evidence both ways is ambiguous: refused, never guessed.
 */
export function continuationFrame(lineIndent: string, oldText: string, newText: string): IndentFrame {
  const lead = (l: string): string => /^[ \t]*/.exec(l)?.[0] ?? '';
  const further = (t: string): string[] =>
    t
      .replace(/\n$/, '')
      .split('\n')
      .slice(1)
      .filter((l) => !isBlankLine(l));
  const quoted = further(oldText);
  const wanted = further(newText);
  if (lineIndent === '' || wanted.length === 0) return { kind: 'file' };
  let keep = 0;
  let shift = 0;
  for (const [q, n] of sharedLines(quoted, wanted)) {
    const inFile = lead(quoted[q] as string);
    const written = lead(wanted[n] as string);
    if (written === inFile) keep++;
    else if (lineIndent + written === inFile) shift++;
  }
  if (keep > 0 && shift > 0) return { kind: 'ambiguous', why: "some lines new_text shares with old_text keep the file's indentation and others lack the indentation of old_text's first line" };
  if (shift > 0) return { kind: 'quote' };
  if (keep > 0) return { kind: 'file' };
  const first = { quoted: lead(quoted[0] ?? ''), wanted: lead(wanted[0] as string) };
  if (quoted.length > 0 && first.wanted === first.quoted) return { kind: 'file' };
  if (quoted.length > 0 && lineIndent + first.wanted === first.quoted) return { kind: 'quote' };
  const base = wanted.map(lead).reduce((a, b) => (b.length < a.length ? b : a));
  return base.length < lineIndent.length ? { kind: 'quote' } : { kind: 'file' };
}

/**
 * The lines `b` shares with `a`, paired in order by a line diff of their trimmed contents (not by content alone: a
 * "}" that occurs twice is paired with its own counterpart), as [index in a, index in b].
 */
function* sharedLines(a: readonly string[], b: readonly string[]): Generator<[number, number]> {
  const changes = diffArrays(
    a.map((l) => l.trim()),
    b.map((l) => l.trim()),
    { maxEditLength: 4000 },
  );
  let i = 0;
  let j = 0;
  for (const change of changes ?? []) {
    if (change.added) j += change.value.length;
    else if (change.removed) i += change.value.length;
    else for (let c = 0; c < change.value.length; c++, i++, j++) yield [i, j];
  }
}
