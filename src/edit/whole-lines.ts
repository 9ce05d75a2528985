/**
 * Quotes that are whole lines (SEARCH/REPLACE: `ReplaceRequest.wholeLines`):
 * what a character match must not do with them. Pure.
 */

export const LEADING_BLANK_NOTE = 'SEARCH began with a blank line the file does not have there: it was matched without it';

/**
 * A whole-line quote (SEARCH) that starts with blank lines the file lacks where the rest of it is: no exact
 * occurrence starts at a line start. Matched from the newline that ends the line above, it would join that line
 * with new_text's first; the quote and new_text lose those leading blank lines instead (new_text only the ones it
 * repeats), and the usual matching — exactly one place — decides the rest.
 */
export function leadingBlankLacked(text: string, oldText: string, newText: string): { oldText: string; newText: string } | undefined {
  let quote = oldText;
  let next = newText;
  let changed = false;
  while (/^[ \t]*\n/.test(quote) && quote.trim() !== '') {
    let atLineStart = false;
    for (let at = text.indexOf(quote); at !== -1 && !atLineStart; at = text.indexOf(quote, at + 1)) atLineStart = at === 0 || text[at - 1] === '\n';
    if (atLineStart) break;
    quote = quote.slice(quote.indexOf('\n') + 1);
    if (/^[ \t]*\n/.test(next)) next = next.slice(next.indexOf('\n') + 1);
    changed = true;
  }
  return changed ? { oldText: quote, newText: next } : undefined;
}
