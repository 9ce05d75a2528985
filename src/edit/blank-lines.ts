/**
 * The `blank-lines` strategy of match.ts: a quote with blank lines added or
 * missing, matched on its non-blank lines in order, and new_text written so
 * that the file keeps its own spacing wherever the model changed nothing.
 * Pure: strings in, offsets and a re-spaced new_text out.
 */
import { diffArrays } from 'diff';
import { quoteLines, splitLines } from './lines.js';
import type { TextMatch } from './match.js';
import { isBlankLine } from './reindent.js';
import { appendAll } from '../arrays.js';

/**
 * Blank lines added or missing in the quote: compare the non-blank lines in
 * order (trailing whitespace ignored, indentation exact) and let any number of
 * blank lines sit between them.
 */
export function blankLineTolerant(text: string, oldText: string): TextMatch[] {
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
      else appendAll(addedBefore[q] as string[], change.value);
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
    else appendAll(out, replacing.get(k) ?? []);
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
      if (show) appendAll(out, region.slice((fileAt.get(prev) as number) + 1, fileAt.get(b) as number));
    } else {
      for (let j = prev + 1; j <= b; j++) {
        appendAll(out, addedBefore[j] as string[]);
        if (j < b && kept[j]) out.push(core[j] as string);
      }
    }
    emit(b);
    prev = b;
  }
  appendAll(out, addedBefore[core.length] as string[]);
  return finish(out);
}
