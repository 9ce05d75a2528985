/**
 * Fuzzing every parser (and the hunk applier) with fast-check: arbitrary
 * input — random strings and random soups of each format's own markers —
 * never throws. Problems come back as typed item errors: E_PARSE (plus
 * E_BINARY for binary diffs and E_MISSING_OLD_TEXT for a blank SEARCH), each
 * with a 1-based line inside the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyHunks } from '../../src/edit/hunks.js';
import { EditwardenError } from '../../src/errors.js';
import { ActiveEditStreamParser, detectFormat, FORMAT_NAMES, parseActiveEdit, parseEdits, parseFormat, type FormatName, type ParseResult } from '../../src/formats/index.js';

const MARKERS: Record<FormatName, string[]> = {
  json: ['{', '}', '[', ']', '"path": "a.txt"', '"mode": "edit"', '"old_text": "x"', '"new_text": 1', ',', ':', '"content": null', '"filename": "b"', 'true'],
  'active-edit': ['---BEGIN---', '---START---', '---END---', 'Edit: a.txt', 'Edit:', 'action: replace', 'action: remove', 'action: jump', 'ast-path: A-B', 'code line', '', 'prose', '\\ No newline at end of file'],
  'search-replace': ['<<<<<<< SEARCH', '=======', '>>>>>>> REPLACE', '------- SEARCH', '+++++++ REPLACE', 'a.txt', '```', '```python', 'x = 1', '', '\\ No newline at end of file', '# src/b.py'],
  'apply-patch': [
    '*** Begin Patch',
    '*** End Patch',
    '*** Add File: a.txt',
    '*** Delete File: b.txt',
    '*** Update File: c.txt',
    '*** Move to: d.txt',
    '@@',
    '@@ def f():',
    '*** End of File',
    '+added',
    '-removed',
    ' context',
    '',
    'junk',
    '\\ No newline at end of file',
    "<<'EOF'",
    'EOF',
  ],
  udiff: [
    'diff --git a/x b/x',
    '--- a/x',
    '+++ b/x',
    '--- /dev/null',
    '+++ /dev/null',
    '@@ -1,2 +1,2 @@',
    '@@ -0,0 +1 @@',
    '@@ -99999999999999999999,1 +1 @@',
    '@@ @@',
    ' ctx',
    '-old',
    '+new',
    '',
    '\\ No newline at end of file',
    'new file mode 100644',
    'deleted file mode 100644',
    'old mode 100644',
    'new mode 100755',
    'rename from x',
    'rename to y',
    'GIT binary patch',
    'Binary files a/x and b/x differ',
    'Index: x',
    '====================',
    '*** x',
    '***************',
    'copy from x',
  ],
};

const ALLOWED: Record<FormatName, string[]> = {
  json: ['E_PARSE'],
  'active-edit': ['E_PARSE'],
  'search-replace': ['E_PARSE', 'E_MISSING_OLD_TEXT'],
  'apply-patch': ['E_PARSE'],
  udiff: ['E_PARSE', 'E_BINARY'],
};

function soup(format: FormatName): fc.Arbitrary<string> {
  const piece = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MARKERS[format]) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
  return fc.tuple(fc.array(piece, { maxLength: 40 }), fc.constantFrom('\n', '\r\n')).map(([pieces, nl]) => pieces.join(nl));
}

function checkResult(format: FormatName, input: string, result: ParseResult): void {
  const lines = input.split('\n').length;
  for (const item of result.errors) {
    expect(item.error).toBeInstanceOf(EditwardenError);
    expect(ALLOWED[format]).toContain(item.error.code);
    expect(item.line).toBeGreaterThanOrEqual(1);
    expect(item.line).toBeLessThanOrEqual(lines);
  }
  // Items are numbered densely in reply order: requests and errors share one index sequence.
  const indices = [...result.requests.map((r) => r.source?.index), ...result.errors.map((e) => e.index)].sort((a, b) => (a ?? 0) - (b ?? 0));
  expect(indices).toEqual(indices.map((_, i) => i));
}

describe('found by the soups', () => {
  it('a remove directive that names no file, then a stray END: one error item per directive, numbered densely', () => {
    const input = '---BEGIN---\naction: remove\n---END---\n---END---';
    checkResult('active-edit', input, parseFormat(input, 'active-edit', { fileExists: () => false }));
  });
});

describe('every parser survives arbitrary input with typed errors only', () => {
  for (const format of FORMAT_NAMES) {
    it(`${format}: random unicode text`, () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (input) => {
          checkResult(format, input, parseFormat(input, format, { fileExists: () => true }));
        }),
        { numRuns: 300 },
      );
    });
    it(`${format}: random soups of its own markers`, () => {
      fc.assert(
        fc.property(soup(format), fc.boolean(), (input, exists) => {
          checkResult(format, input, parseFormat(input, format, { fileExists: () => exists }));
        }),
        { numRuns: 600 },
      );
    });
  }
  it('auto detection never throws and always names a format or reports one E_PARSE', () => {
    const anySoup = fc.oneof(...FORMAT_NAMES.map(soup), fc.string({ maxLength: 200 }));
    fc.assert(
      fc.property(anySoup, (input) => {
        const parsed = parseEdits(input, 'auto');
        expect(parsed.format).toBe(detectFormat(input));
        if (parsed.format === undefined) expect(parsed.errors.map((e) => e.error.code)).toEqual(['E_PARSE']);
      }),
      { numRuns: 400 },
    );
  });
});

describe('the streaming active-edit parser agrees with the batch parser however the text is cut', () => {
  it('any chunking gives the same requests and errors', () => {
    fc.assert(
      fc.property(soup('active-edit'), fc.array(fc.nat(), { maxLength: 10 }), (input, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        const parser = new ActiveEditStreamParser({ fileExists: () => true });
        const events = [];
        let last = 0;
        for (const p of [...points, input.length]) {
          events.push(...parser.push(input.slice(last, p)));
          last = p;
        }
        events.push(...parser.end());
        const batch = parseActiveEdit(input, { fileExists: () => true });
        expect(events.filter((e) => e.kind === 'request').map((e) => (e.kind === 'request' ? e.request : null))).toEqual(batch.requests);
        expect(events.filter((e) => e.kind === 'error').map((e) => (e.kind === 'error' ? e.error.error.message : null))).toEqual(batch.errors.map((e) => e.error.message));
      }),
      { numRuns: 400 },
    );
  });
});

describe('the hunk applier survives any parsed patch against any text', () => {
  it('returns a text or throws a typed refusal (E_NOT_FOUND / E_AMBIGUOUS), in both modes', () => {
    const fileText = fc.array(fc.constantFrom('a', 'b', 'ctx', 'old', 'new', '', ' a'), { maxLength: 12 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(soup('udiff'), soup('apply-patch'), fileText, fc.boolean(), (diff, envelope, text, strict) => {
        const requests = [...parseFormat(diff, 'udiff').requests, ...parseFormat(envelope, 'apply-patch').requests];
        for (const request of requests) {
          if (request.action !== 'patch') continue;
          try {
            const out = applyHunks(text, request, { strict });
            expect(typeof out.text).toBe('string');
            expect(out.line).toBeGreaterThanOrEqual(1);
          } catch (error) {
            expect(error).toBeInstanceOf(EditwardenError);
            expect(['E_NOT_FOUND', 'E_AMBIGUOUS']).toContain((error as EditwardenError).code);
          }
        }
      }),
      { numRuns: 600 },
    );
  });
});
