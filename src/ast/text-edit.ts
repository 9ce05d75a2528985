/**
 * The tree-sitter InputEdit that turns one text into another: the span
 * between their common prefix and common suffix, as offsets and row/column
 * points (UTF-16 code units, which is what web-tree-sitter counts in).
 *
 * Built for 100k-line files: the common prefix and suffix are found with
 * native comparisons of slices (a memcmp inside V8) in chunks, narrowed by
 * halving, instead of a JavaScript loop over every character; rows are
 * counted with indexOf('\n') up to the change only.
 *
 * Must never: allocate a copy of either text, or loop per character over more
 * than a few characters.
 */
import type { Edit, Point } from 'web-tree-sitter';

/** Characters compared per step while the texts agree; halved down to SMALL once they differ. */
const CHUNK = 4096;
/** Below this, a plain charCode loop is cheaper than slicing. */
const SMALL = 16;

/** Length of the common prefix of `a` and `b`. */
export function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  // The first difference is now within CHUNK characters of i: binary lifting.
  for (let step = CHUNK >> 1; step >= SMALL; step >>= 1) {
    if (i + step <= max && a.slice(i, i + step) === b.slice(i, i + step)) i += step;
  }
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common suffix of `a` and `b` that does not reach into their first `floor` characters. */
export function commonSuffix(a: string, b: string, floor = 0): number {
  const max = Math.min(a.length, b.length) - floor;
  const ea = a.length;
  const eb = b.length;
  let n = 0;
  while (n + CHUNK <= max && a.slice(ea - n - CHUNK, ea - n) === b.slice(eb - n - CHUNK, eb - n)) n += CHUNK;
  for (let step = CHUNK >> 1; step >= SMALL; step >>= 1) {
    if (n + step <= max && a.slice(ea - n - step, ea - n) === b.slice(eb - n - step, eb - n)) n += step;
  }
  while (n < max && a.charCodeAt(ea - 1 - n) === b.charCodeAt(eb - 1 - n)) n++;
  return n;
}

/** Newlines in text[from, to). */
function newlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** Column of `index`: its distance from the last newline before it. */
function column(text: string, index: number): number {
  // lastIndexOf with a negative start would still look at index 0.
  return index === 0 ? 0 : index - (text.lastIndexOf('\n', index - 1) + 1);
}

/** The single edit that turns `before` into `after`: common prefix and suffix kept. */
export function textEdit(before: string, after: string): Edit {
  const prefix = commonPrefix(before, after);
  const suffix = commonSuffix(before, after, prefix);
  const oldEnd = before.length - suffix;
  const newEnd = after.length - suffix;
  const startPosition: Point = { row: newlines(before, 0, prefix), column: column(before, prefix) };
  return {
    startIndex: prefix,
    oldEndIndex: oldEnd,
    newEndIndex: newEnd,
    startPosition,
    oldEndPosition: { row: startPosition.row + newlines(before, prefix, oldEnd), column: column(before, oldEnd) },
    newEndPosition: { row: startPosition.row + newlines(after, prefix, newEnd), column: column(after, newEnd) },
  };
}
