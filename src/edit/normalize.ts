/**
 * Character-level normalisation for tolerant matching, with a map back to the
 * original offsets. Each option forgives one class of difference models make
 * when they quote code; nothing here forgives a different token.
 */

export interface NormalizeOptions {
  /** Drop spaces and tabs at the end of every line. */
  trailing: boolean;
  /** Collapse runs of spaces/tabs after the indentation into one space. Indentation is kept verbatim. */
  runs: boolean;
  /** Map typographic look-alikes (smart quotes, dashes, NBSP, ellipsis) to ASCII; drop zero-width characters. */
  unicode: boolean;
}

export interface NormalizedText {
  text: string;
  /** For each normalised char, the raw offset where its source starts. */
  starts: Int32Array;
  /** For each normalised char, the raw offset just after its source. */
  ends: Int32Array;
}

/** Look-alike characters models emit for ASCII punctuation. */
const LOOKALIKES: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'", '\u00B4': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"', '\u00AB': '"', '\u00BB': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u2026': '...',
  '\u00A0': ' ', '\u2002': ' ', '\u2003': ' ', '\u2004': ' ', '\u2005': ' ', '\u2006': ' ', '\u2007': ' ',
  '\u2008': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u205F': ' ', '\u3000': ' ',
  '\u200B': '', '\u200C': '', '\u200D': '', '\u2060': '', '\uFEFF': '',
};

export function mapLookalike(ch: string): string | undefined {
  return LOOKALIKES[ch];
}

const isBlank = (ch: string | undefined): boolean => ch === ' ' || ch === '\t';

export function normalizeText(raw: string, options: NormalizeOptions): NormalizedText {
  let out = '';
  const starts: number[] = [];
  const ends: number[] = [];
  const push = (s: string, from: number, to: number): void => {
    for (const ch of s) {
      out += ch;
      starts.push(from);
      ends.push(to);
    }
  };
  let atLineStart = true;
  let i = 0;
  while (i < raw.length) {
    let ch = raw[i] as string;
    if (ch === '\n') {
      push('\n', i, i + 1);
      atLineStart = true;
      i++;
      continue;
    }
    if (options.unicode) {
      const mapped = mapLookalike(ch);
      if (mapped !== undefined) {
        if (mapped === ' ') {
          // A look-alike space is a space: in a run, or in the indentation at line start.
          ch = ' ';
        } else {
          if (mapped !== '') {
            push(mapped, i, i + 1);
            atLineStart = false;
          }
          i++;
          continue;
        }
      }
    }
    if (isBlank(ch) || (options.unicode && mapLookalike(ch) === ' ')) {
      let j = i;
      while (j < raw.length && (isBlank(raw[j]) || (options.unicode && mapLookalike(raw[j] as string) === ' '))) j++;
      const atLineEnd = j >= raw.length || raw[j] === '\n';
      if (options.trailing && atLineEnd && !atLineStart) {
        i = j;
        continue;
      }
      if (options.trailing && atLineEnd && atLineStart) {
        // A blank line made of spaces: it is an empty line.
        i = j;
        continue;
      }
      if (atLineStart) {
        // Indentation is kept char for char (its width matters), look-alike spaces as plain spaces.
        for (let k = i; k < j; k++) push(isBlank(raw[k]) ? (raw[k] as string) : ' ', k, k + 1);
      } else if (options.runs) {
        push(' ', i, j);
      } else {
        for (let k = i; k < j; k++) push(raw[k] === '\t' || raw[k] === ' ' ? (raw[k] as string) : ' ', k, k + 1);
      }
      i = j;
      continue;
    }
    push(ch, i, i + 1);
    atLineStart = false;
    i++;
  }
  return { text: out, starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
}

/** Every start offset of `needle` in `hay`, overlapping matches included. */
export function allIndexes(hay: string, needle: string, limit = Number.POSITIVE_INFINITY): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let i = hay.indexOf(needle); i !== -1 && found.length < limit; i = hay.indexOf(needle, i + 1)) found.push(i);
  return found;
}
