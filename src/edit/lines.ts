/**
 * A text as lines with the offset where each starts, and a quote as lines
 * with its final newline remembered: what the line-based strategies of
 * match.ts and blank-lines.ts compare. Pure.
 */

interface Lines {
  lines: string[];
  /** Offset where each line starts. */
  starts: number[];
}

export function splitLines(text: string): Lines {
  const lines = text.split('\n');
  const starts: number[] = new Array(lines.length);
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = offset;
    offset += (lines[i] as string).length + 1;
  }
  return { lines, starts };
}

/** Splits old_text into lines; a final newline is remembered, not a line. */
export function quoteLines(oldText: string): { lines: string[]; trailingNewline: boolean } {
  const trailingNewline = oldText.endsWith('\n');
  const lines = (trailingNewline ? oldText.slice(0, -1) : oldText).split('\n');
  return { lines, trailingNewline };
}
