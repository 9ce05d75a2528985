/**
 * The one table of typographic look-alikes models write for ASCII (smart
 * quotes, dashes, no-break and other odd spaces, the ellipsis, zero-width
 * characters). Every tolerant matcher — edit_file's strategies
 * (normalize.ts) and the hunk matcher of apply_patch / unified diffs
 * (hunks.ts) — reads it from here, so a quote behaves the same through every
 * format. Must never map a letter, digit or "_" (that would let a different
 * token match).
 */

/** Look-alike character → the ASCII a model meant ('' for zero-width characters, dropped). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u00B4': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u00AB': '"',
  '\u00BB': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u00A0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2004': ' ',
  '\u2005': ' ',
  '\u2006': ' ',
  '\u2007': ' ',
  '\u2008': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u205F': ' ',
  '\u3000': ' ',
  '\u200B': '',
  '\u200C': '',
  '\u200D': '',
  '\u2060': '',
  '\uFEFF': '',
};

export const LOOKALIKE_MAP: ReadonlyMap<string, string> = new Map<string, string>(Object.entries(LOOKALIKES));

/** Every look-alike is at or above U+00A0: one comparison spares the map for ASCII. */
export const FIRST_LOOKALIKE = 0xa0;

/** What a look-alike character stands for; undefined for any other character. */
export function mapLookalike(ch: string): string | undefined {
  return LOOKALIKE_MAP.get(ch);
}

/** `text` with every look-alike replaced by its ASCII meaning. */
export function replaceLookalikes(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < FIRST_LOOKALIKE) continue;
    const mapped = LOOKALIKE_MAP.get(text[i] as string);
    if (mapped === undefined) continue;
    out += text.slice(from, i) + mapped;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
