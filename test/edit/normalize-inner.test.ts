/**
 * The inner-whitespace normalisation (normalize.ts, `punctuation`), the last tolerant strategy of edit_file: what it
 * makes of a text, line by line, against a plain statement of its rule — indentation kept, trailing blanks dropped, a
 * run of blanks inside a line dropped next to a bracket, "," or ";" or between an operator and a word, else one space.
 * The normaliser decides each run by the last character it wrote; it keeps that character itself instead of reading
 * it back from the text it is building (which copied the whole text per blank: ~2 s of CPU for one E_NOT_FOUND on a
 * 6,000-line file, now ~50 ms), so any character it writes and forgets to keep shows here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizedString, normalizeText, type NormalizeOptions } from '../../src/edit/normalize.js';

const INNER: NormalizeOptions = { trailing: true, runs: true, unicode: false, punctuation: true };

const BRACKETISH = '()[]{},;';
const OPERATOR = '+-*/%=<>!&|^~?:.';

/** The rule for one line, stated plainly: each inner run of blanks decided by what was written before it and what follows. */
function innerLine(line: string): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
  const body = line.slice(indent.length).replace(/[ \t]+$/, '');
  if (body === '') return '';
  let out = '';
  for (const m of body.matchAll(/[^ \t]+|[ \t]+/g)) {
    if (!/^[ \t]/.test(m[0])) {
      out += m[0];
      continue;
    }
    const before = out[out.length - 1] as string;
    const after = body[(m.index as number) + m[0].length] as string;
    const layout = BRACKETISH.includes(before) || BRACKETISH.includes(after) || OPERATOR.includes(before) !== OPERATOR.includes(after);
    if (!layout) out += ' ';
  }
  return indent + out;
}

const text = fc.array(fc.constantFrom('a', 'bc', '1', '_', ' ', '  ', '\t', '\n', '(', ')', '[', '{', '}', ',', ';', '=', '=>', '+', '++', '-', '.', ':', '?', '!', '"', "'"), { maxLength: 60 }).map((parts) => parts.join(''));

describe('inner-whitespace normalisation', () => {
  it('is the rule, line by line, on any text (and the offset map agrees with the string)', () => {
    fc.assert(
      fc.property(text, (raw) => {
        const expected = raw.split('\n').map(innerLine).join('\n');
        expect(normalizedString(raw, INNER)).toBe(expected);
        expect(normalizeText(raw, INNER).text).toBe(expected);
      }),
      { numRuns: 3000, examples: [['f( a, b ) => x'], ['  x = y\t+ z  \n\t a ;b'], ['a = > b'], ['a + ++ b']] },
    );
  });

  it('a large file: every line as the rule says', () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `    const value${i} = compute( ${i}, "x" ) ;  `);
    const raw = `${lines.join('\n')}\n`;
    expect(normalizedString(raw, INNER)).toBe(raw.split('\n').map(innerLine).join('\n'));
  });
});
