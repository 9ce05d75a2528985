/**
 * Edits with many matches cost one scan of the text, not one per match. Every match of a replace_all (or a single
 * edit) goes into the text in one pass (text.ts spliceDocAll): the document
 * it gives is the one splicing each match in turn from the last to the first gives (spliceDoc, what the engine did
 * before), text and per-line endings alike, on documents with LF, CRLF, CR and mixed endings; and the engine's
 * replace_all keeps a mixed file's endings line by line (a line it adds takes the file's usual ending). The lines of
 * many offsets (an ambiguous old_text names the lines of all its matches) are found in one scan (linesOf): lineOf's
 * answer for each, whatever their order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText, lineOf, linesOf, renderRaw, spliceDoc, spliceDocAll, type TextDoc } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';

const raw = fc.array(fc.constantFrom('a', 'bc', ' ', 'x y', '\n', '\r\n', '\r'), { maxLength: 30 }).map((parts) => parts.join(''));
const insert = fc.array(fc.constantFrom('', 'n', 'new', '\n', 'p\nq'), { maxLength: 4 }).map((parts) => parts.join(''));

/** Non-overlapping edits of `text`, sorted by start: cut points chosen in the text, paired up, each with an insert. */
function editsOf(text: string, cuts: number[], inserts: string[]): Array<{ start: number; end: number; insert: string }> {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const edits: Array<{ start: number; end: number; insert: string }> = [];
  for (let i = 0; i + 1 < points.length; i += 2) edits.push({ start: points[i] as number, end: points[i + 1] as number, insert: inserts[i / 2] ?? 'z' });
  return edits;
}

function oneByOne(doc: TextDoc, edits: ReadonlyArray<{ start: number; end: number; insert: string }>): TextDoc {
  let out = doc;
  for (const e of [...edits].reverse()) out = spliceDoc(out, e.start, e.end, e.insert);
  return out;
}

describe('spliceDocAll', () => {
  it('gives the document splicing each edit from the last to the first gives (text and line endings)', () => {
    fc.assert(
      fc.property(raw, fc.array(fc.nat(), { maxLength: 12 }), fc.array(insert, { maxLength: 6 }), (text, cuts, inserts) => {
        const doc = fromRawText(text);
        const edits = editsOf(doc.text, cuts, inserts);
        const all = spliceDocAll(doc, edits);
        const expected = oneByOne(doc, edits);
        expect(all.text).toBe(expected.text);
        expect(all.eols).toEqual(expected.eols);
        expect(renderRaw(all)).toBe(renderRaw(expected));
      }),
      { numRuns: 3000 },
    );
  });

  it('replace_all of 200,000 matches on one line: every one replaced (no call takes them all as its arguments)', () => {
    const p = planFile('a.js', fromRawText(`${'x;'.repeat(200_000)}\n`), [{ action: 'edit', path: 'a.js', oldText: 'x', newText: 'yy', replaceAll: true }], { ...DEFAULT_EDIT_OPTIONS });
    expect(p.ok).toBe(true);
    expect(p.steps[0]?.applied?.count).toBe(200_000);
    expect(renderRaw(p.after as TextDoc)).toBe(`${'yy;'.repeat(200_000)}\n`);
  });

  it("replace_all through the engine: every occurrence replaced, each line keeping its own ending, the new lines the file's usual one", () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${i % 10 === 0 ? 'call' : 'other'}(${i})${i % 3 === 0 ? '\r\n' : '\n'}`);
    const p = planFile('a.txt', fromRawText(lines.join('')), [{ action: 'edit', path: 'a.txt', oldText: 'call(', newText: 'invoke(\n  ', replaceAll: true }], { ...DEFAULT_EDIT_OPTIONS });
    expect(p.ok).toBe(true);
    const expected = lines.map((l) => l.replace('call(', 'invoke(\n  ')).join('');
    expect(renderRaw(p.after as TextDoc)).toBe(expected);
  });
});

describe('linesOf', () => {
  it("gives lineOf's line for every offset, in any order, repeated or past the end", () => {
    fc.assert(
      fc.property(raw, fc.array(fc.integer({ min: -2, max: 40 }), { maxLength: 12 }), (text, offsets) => {
        expect(linesOf(text, offsets)).toEqual(offsets.map((o) => lineOf(text, o)));
      }),
      { numRuns: 3000 },
    );
  });

  it('names the lines of every match of an ambiguous old_text', () => {
    const text = `${Array.from({ length: 30 }, (_, i) => `foo(${i});`).join('\n')}\n`;
    const p = planFile('a.js', fromRawText(text), [{ action: 'edit', path: 'a.js', oldText: 'foo(1', newText: 'x' }], { ...DEFAULT_EDIT_OPTIONS });
    expect(p.steps[0]?.error?.code).toBe('E_AMBIGUOUS');
    expect(p.steps[0]?.error?.message).toContain('at lines 2, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20');
  });
});
