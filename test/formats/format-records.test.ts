/**
 * A format is one record (formats/format.ts, `defineFormat`), and the list of
 * records (formats/list.ts) is the one place that says which formats exist:
 * the names, `--format auto`'s order of trust, the refusal of a reply no
 * format recognises, and the each-on-its-own default are all read from it.
 */
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVIDENCE } from '../../src/formats/format.js';
import { detectFormat, FALLBACK_FORMAT, FORMAT_NAMES, parseEdits, type FormatName } from '../../src/formats/index.js';
import { FORMATS } from '../../src/formats/list.js';
import type { RequestSource } from '../../src/edit/types.js';

describe('the list of records is where the formats come from', () => {
  it('names each format once, in the order --format lists them', () => {
    expect(FORMAT_NAMES).toEqual(FORMATS.map((f) => f.name));
    expect(new Set(FORMAT_NAMES).size).toBe(FORMATS.length);
    expect(FORMAT_NAMES).toEqual(['json', 'active-edit', 'search-replace', 'apply-patch', 'udiff']);
  });

  it('the union of names is derived from the list, and a request source may carry any of them', () => {
    expectTypeOf<FormatName>().toEqualTypeOf<(typeof FORMATS)[number]['name']>();
    expectTypeOf<FormatName>().toMatchTypeOf<RequestSource['format']>();
    expectTypeOf<'cli' | 'tool' | 'mcp'>().toMatchTypeOf<RequestSource['format']>();
  });

  it('every record says how it is recognised, with evidence of a known strength', () => {
    for (const f of FORMATS) {
      expect(f.detect.length, f.name).toBeGreaterThan(0);
      for (const clue of f.detect) expect(EVIDENCE, f.name).toContain(clue.evidence);
    }
  });

  it('an unrecognised reply is filed under the first format of the list', () => {
    expect(FALLBACK_FORMAT).toBe(FORMATS[0].name);
  });
});

describe('the refusal of a reply no format recognises is built from the clues, in the order they are trusted', () => {
  it('says what each format shows and how to name one (the text of every earlier release)', () => {
    const [item] = parseEdits('just some prose\n').errors;
    expect(item?.error.code).toBe('E_PARSE');
    expect(item?.error.message).toBe('Could not tell the edit format: the text has no JSON request, "*** Begin Patch", "---BEGIN---", "<<<<<<< SEARCH" or unified diff ("--- a/…" / "+++ b/…").');
    expect(item?.error.hint).toBe('Name the format with --format json|active-edit|search-replace|apply-patch|udiff, or send the edits in one of these formats.');
  });
});

/** One reply of each format, each quoting the marker of the formats below it where its grammar lets it. */
const QUOTING: Array<{ format: FormatName; text: string; quotes: string }> = [
  { format: 'apply-patch', quotes: 'an active edit marker in a context line', text: '*** Begin Patch\n*** Update File: a.md\n@@\n ---BEGIN---\n-x\n+y\n*** End Patch\n' },
  { format: 'active-edit', quotes: 'a SEARCH/REPLACE block in its code', text: '---BEGIN---\nEdit: a.md\naction: replace\n---START---\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n---END---\n' },
  { format: 'search-replace', quotes: 'a diff in its text', text: 'a.diff\n```\n<<<<<<< SEARCH\n--- a/x\n+++ b/x\n=======\n@@ -1 +1 @@\n>>>>>>> REPLACE\n```\n' },
  { format: 'udiff', quotes: 'a line that opens like JSON', text: '--- a/x.json\n+++ b/x.json\n@@ -1 +1 @@\n-{\n+[\n' },
];

describe('--format auto trusts the strongest clue: a quoted marker never wins over the text that quotes it', () => {
  for (const { format, quotes, text } of QUOTING) {
    it(`${format} quoting ${quotes} is read as ${format}`, () => {
      expect(detectFormat(text)).toBe(format);
    });
  }

  it('a whole JSON value is JSON whatever its strings hold; text that only opens like JSON is JSON when nothing else matches', () => {
    expect(detectFormat(JSON.stringify({ path: 'a', old_text: '*** Begin Patch\n', new_text: '---BEGIN---\n' }))).toBe('json');
    expect(detectFormat('{"path": "a", "old_text": \n')).toBe('json');
    expect(detectFormat('{ not json\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n')).toBe('udiff');
  });

  it('the order does not depend on which formats a reply mixes (any two quoting replies, either order)', () => {
    const rank = (f: FormatName): number => QUOTING.findIndex((q) => q.format === f);
    fc.assert(
      fc.property(fc.constantFrom(...QUOTING), fc.constantFrom(...QUOTING), fc.boolean(), (a, b, swap) => {
        const text = swap ? `${b.text}\nand\n${a.text}` : `${a.text}\nand\n${b.text}`;
        expect(detectFormat(text)).toBe(rank(a.format) <= rank(b.format) ? a.format : b.format);
      }),
    );
  });
});

describe('the each-on-its-own default is a property of the record', () => {
  it('only active edit applies its requests each on its own unless asked otherwise', () => {
    expect(FORMATS.filter((f) => f.eachOnItsOwn === true).map((f) => f.name)).toEqual(['active-edit']);
  });
});
