/**
 * Properties of the dialect paths of the parsers and of the engine rules they
 * lean on: decorated path lines, Roo Code's hint head, Cline's last block
 * closed by its fence, line hints that only choose between matches, empty
 * old_text, and an unchanged quote whose anchor is missing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest } from '../../src/edit/types.js';
import { parseFormat } from '../../src/formats/index.js';
import { cleanPathLine } from '../../src/formats/search-replace.js';

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
const filePath = fc.tuple(fc.array(name, { maxLength: 3 }), name, fc.constantFrom('.py', '.ts', '.md', '.rs')).map(([dirs, base, ext]) => [...dirs, base + ext].join('/'));
/** A code line that is no marker, hint or separator of any dialect. */
const codeLine = fc.stringMatching(/^[a-z_][a-z0-9_ =()+*.,]{0,20}$/);
const plan = (file: string | null, request: EditRequest) => planFile(request.path, file === null ? null : fromRawText(file), [request], DEFAULT_EDIT_OPTIONS);

describe('a decorated path line is read as the path', () => {
  it('whatever markdown wraps it, in whatever order', () => {
    fc.assert(
      fc.property(filePath, fc.constantFrom('', '# ', '### ', 'File: ', 'Filename: '), fc.constantFrom('', '**', '`', '*', '**`', '`**'), fc.constantFrom('', ':'), (path, prefix, wrap, colon) => {
        const closing = [...wrap].reverse().join('');
        expect(cleanPathLine(`${prefix}${wrap}${path}${closing}${colon}`)).toBe(path);
        expect(cleanPathLine(`<path>${path}</path>`)).toBe(path);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("Roo Code's hint head is metadata", () => {
  it('the hints become the request line hint, and SEARCH/REPLACE hold exactly the content lines', () => {
    fc.assert(
      fc.property(
        filePath,
        fc.integer({ min: 1, max: 5000 }),
        fc.option(fc.nat(40)),
        fc.boolean(),
        fc.array(codeLine, { minLength: 1, maxLength: 5 }),
        fc.array(codeLine, { maxLength: 5 }),
        (path, start, span, separator, search, replace) => {
          const head = [`:start_line:${start}`, ...(span === null ? [] : [`:end_line:${start + span}`]), ...(separator ? ['-------'] : [])];
          const reply = ['<apply_diff>', `<path>${path}</path>`, '<diff>', '<<<<<<< SEARCH', ...head, ...search, '=======', ...replace, '>>>>>>> REPLACE', '</diff>', '</apply_diff>', ''].join('\n');
          const parsed = parseFormat(reply, 'search-replace');
          expect(parsed.errors).toEqual([]);
          expect(parsed.requests).toEqual([
            expect.objectContaining({ action: 'edit', path, oldText: `${search.join('\n')}\n`, newText: replace.length ? `${replace.join('\n')}\n` : '', lineHint: span === null ? { start } : { start, end: start + span } }),
          ]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("Cline's last block closed by its fence", () => {
  it('is applied only when nothing but closers follows the fence; a lost marker before more text is refused whole', () => {
    fc.assert(
      fc.property(
        fc.array(codeLine, { minLength: 1, maxLength: 4 }),
        fc.array(codeLine, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('```', '</diff>'),
        fc.array(fc.constantFrom('', '</replace_in_file>', 'more prose', 'v = 1'), { maxLength: 3 }),
        (search, replace, closer, after) => {
          const open = closer === '```' ? ['a.py', '```python'] : ['<replace_in_file>', '<path>a.py</path>', '<diff>'];
          const reply = [...open, '------- SEARCH', ...search, '=======', ...replace, closer, ...after, ''].join('\n');
          const parsed = parseFormat(reply, 'search-replace');
          const onlyClosers = after.every((l) => l === '' || l.startsWith('</'));
          if (onlyClosers) {
            expect(parsed.errors).toEqual([]);
            expect(parsed.requests).toEqual([expect.objectContaining({ path: 'a.py', oldText: `${search.join('\n')}\n`, newText: `${replace.join('\n')}\n` })]);
          } else {
            expect(parsed.requests).toEqual([]);
            expect(parsed.errors.map((e) => e.error.code)).toContain('E_PARSE');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('a line hint only chooses between places old_text matches', () => {
  it('with several copies, the edit lands at the hinted copy or is refused as ambiguous; never elsewhere', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 40 }), (copies, gap, hint) => {
        const block = ['    x = load()', '    return x'];
        const lines: string[] = [];
        const starts: number[] = [];
        for (let c = 0; c < copies; c++) {
          lines.push(`def f${c}():`);
          starts.push(lines.length + 1);
          lines.push(...block, ...Array.from({ length: gap }, () => ''));
        }
        const file = `${lines.join('\n')}\n`;
        const p = plan(file, { action: 'edit', path: 'a.py', oldText: `${block.join('\n')}\n`, newText: '    x = load(fresh=True)\n    return x\n', lineHint: { start: hint } });
        const at = starts.indexOf(hint);
        if (at < 0) {
          expect(p.ok).toBe(false);
          expect(p.steps[0]?.error?.code).toBe('E_AMBIGUOUS');
        } else {
          expect(p.ok).toBe(true);
          const out = (p.after?.text ?? '').split('\n');
          expect(out[hint - 1]).toBe('    x = load(fresh=True)');
          expect(out.filter((l) => l.includes('fresh=True'))).toHaveLength(1);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('empty old_text and an unchanged quote', () => {
  it('empty old_text creates a missing file with new_text, and is refused on a file with content', () => {
    fc.assert(
      fc.property(fc.array(codeLine, { maxLength: 4 }), fc.array(codeLine, { minLength: 1, maxLength: 4 }), (content, existing) => {
        const newText = content.map((l) => `${l}\n`).join('');
        const created = plan(null, { action: 'edit', path: 'n.py', oldText: '', newText });
        expect(created.ok).toBe(true);
        expect(created.after?.text).toBe(newText);
        const refused = plan(`${existing.join('\n')}\n`, { action: 'edit', path: 'n.py', oldText: '', newText });
        expect(refused.ok).toBe(false);
        expect(refused.steps[0]?.error?.code).toBe('E_MISSING_OLD_TEXT');
      }),
      { numRuns: 300 },
    );
  });

  it('old_text equal to new_text is a no-op where the file has it and E_NOT_FOUND where it does not', () => {
    fc.assert(
      fc.property(fc.array(codeLine, { minLength: 1, maxLength: 6 }), fc.oneof(codeLine, fc.stringMatching(/^missing_[a-z]{3,8}$/)), (lines, quote) => {
        const file = `${lines.join('\n')}\n`;
        const p = plan(file, { action: 'edit', path: 'a.py', oldText: quote, newText: quote });
        // No place is changed either way; the only question is whether the anchor is there (exactly, or as the
        // tolerant strategies would find it: a trailing blank forgiven is still the same anchor).
        expect(p.changed).toBe(false);
        if (file.includes(quote)) expect(p.ok).toBe(true);
        const absentWord = (quote.match(/[A-Za-z0-9_]{3,}/g) ?? []).some((w) => !file.includes(w));
        if (absentWord) expect(p.steps[0]?.error?.code).toBe('E_NOT_FOUND');
        if (!p.ok) expect(p.steps[0]?.error?.code).toBe('E_NOT_FOUND');
      }),
      { numRuns: 500 },
    );
  });
});
