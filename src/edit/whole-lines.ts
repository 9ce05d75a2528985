/**
 * Quotes that are whole lines (SEARCH/REPLACE: `ReplaceRequest.wholeLines`):
 * what a character match must not do with them. Pure.
 */
import { findMatches } from './match.js';

export const LEADING_BLANK_NOTE = 'SEARCH began with a blank line the file does not have there: it was matched without it';

/**
 * A whole-line quote (SEARCH) that starts with blank lines the file lacks where the rest of it is: no place the
 * matcher finds for it starts at a line start (an exact match of "\nX" begins at the newline that ends the line
 * above; replaced, that line would be joined with new_text's first). The quote and new_text lose those leading
 * blank lines instead (new_text only the ones it repeats), and the usual matching — exactly one place — decides
 * the rest. Where the file has the blank line, some match starts at a line start and nothing is changed.
 */
export function leadingBlankLacked(text: string, oldText: string, newText: string): { oldText: string; newText: string } | undefined {
  let quote = oldText;
  let next = newText;
  let changed = false;
  while (/^[ \t]*\n/.test(quote) && quote.trim() !== '') {
    const found = findMatches(text, quote, false);
    if (found?.matches.some((m) => m.start === 0 || text[m.start - 1] === '\n')) break;
    quote = quote.slice(quote.indexOf('\n') + 1);
    if (/^[ \t]*\n/.test(next)) next = next.slice(next.indexOf('\n') + 1);
    changed = true;
  }
  return changed ? { oldText: quote, newText: next } : undefined;
}
