/**
 * Properties of the pure edit core, hammered with fast-check: an edit and its
 * inverse give the file back byte for byte; bytes survive decode → encode;
 * our unified diffs apply with jsdiff; and planFile refuses only with
 * EditwardenError, whatever it is fed.
 */
import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditwardenError } from '../../src/errors.js';
import { unifiedDiff } from '../../src/edit/diff.js';
import { planFile, type PlanOptions } from '../../src/edit/engine.js';
import { normalizedString, normalizeText } from '../../src/edit/normalize.js';
import { decodeText, encodeText, type Encoding } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest, type Hunk } from '../../src/edit/types.js';

const RUNS = { numRuns: 300 };

// Line content: code-ish characters, blanks, look-alikes, astral characters; never a line break or NUL.
const lineChar = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'x', '1', '=', '(', ')', '{', '}', ';', '.', '"', "'", '$', '&') },
  { weight: 3, arbitrary: fc.constantFrom(' ', '  ', '\t') },
  { weight: 1, arbitrary: fc.constantFrom('é', '“', '”', '—', '…', '\u00A0', '\uFEFF', '😀', '中') },
);
const lineText = fc.array(lineChar, { maxLength: 12 }).map((cs) => cs.join(''));
const eolArb = fc.constantFrom('\n', '\r\n');

interface GeneratedFile {
  lines: string[];
  eols: string[];
  finalNewline: boolean;
  bom: boolean;
}

const fileArb: fc.Arbitrary<GeneratedFile> = fc.record({
  lines: fc.array(lineText, { minLength: 1, maxLength: 25 }),
  eols: fc.oneof(
    fc.constant<string[]>(['\n']),
    fc.constant<string[]>(['\r\n']),
    fc.array(eolArb, { minLength: 1, maxLength: 25 }), // mixed
  ),
  finalNewline: fc.boolean(),
  bom: fc.boolean(),
});

/** The file as on disk: each line with its ending (cycling through `eols`), last one without when finalNewline is false. */
function rawOf(f: GeneratedFile): string {
  let out = '';
  f.lines.forEach((line, i) => {
    const last = i === f.lines.length - 1;
    out += line;
    if (!last || f.finalNewline) out += f.eols[i % f.eols.length] as string;
  });
  return out;
}

function bytesOf(raw: string, encoding: Encoding, bom: boolean): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(raw, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(raw, 'utf16le')]);
    case 'utf16be': {
      const body = Buffer.from(raw, 'utf16le');
      body.swap16();
      return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
    }
  }
}

const forced: PlanOptions = { ...DEFAULT_EDIT_OPTIONS };

describe('an edit followed by its inverse restores the file byte for byte', () => {
  it('holds for LF, CRLF and mixed files, with or without BOM and final newline', () => {
    fc.assert(
      fc.property(fileArb, fc.nat(), fc.nat(), fc.string({ maxLength: 30 }), fc.array(lineText, { maxLength: 4 }), (f, a, b, newSeed, newLines) => {
        const original = bytesOf(rawOf(f), 'utf8', f.bom);
        const doc = decodeText(original);
        const text = doc.text;
        fc.pre(text.length > 0);
        const start = a % text.length;
        const end = start + 1 + (b % Math.min(40, text.length - start));
        const oldText = text.slice(start, end);
        fc.pre(text.indexOf(oldText) === start && text.lastIndexOf(oldText) === start);
        const newText = `${newLines.join('\n')}${newSeed.replace(/[\r\0]/g, '')}`;
        // Per-line endings of a mixed file can only come back if the edit does not merge lines away.
        const newlines = (s: string): number => s.split('\n').length - 1;
        fc.pre(doc.eols === undefined || newlines(newText) >= newlines(oldText));
        fc.pre(newText.length > 0 && newText !== oldText);

        const forward = planFile('f.txt', doc, [{ action: 'edit', path: 'f.txt', oldText, newText, force: true }], forced);
        expect(forward.ok).toBe(true);
        const changed = forward.after;
        if (!changed) throw new Error('no result');
        fc.pre(changed.text.indexOf(newText) === changed.text.lastIndexOf(newText));
        const back = planFile('f.txt', changed, [{ action: 'edit', path: 'f.txt', oldText: newText, newText: oldText, force: true }], forced);
        expect(back.ok).toBe(true);
        expect(back.steps[0]?.applied?.strategy).toBe('exact');
        expect(Buffer.from(back.afterBytes as Uint8Array).equals(original)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('CRLF, BOM and no-final-newline files round-trip decode → encode exactly', () => {
  it('generated files in UTF-8 (with and without BOM)', () => {
    fc.assert(
      fc.property(fileArb, (f) => {
        const bytes = bytesOf(rawOf(f), 'utf8', f.bom);
        expect(Buffer.from(encodeText(decodeText(bytes))).equals(bytes)).toBe(true);
      }),
      RUNS,
    );
  });

  it('arbitrary text with any mix of \\n, \\r\\n and lone \\r, in every encoding', () => {
    const raw = fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\n\r')), { maxLength: 30 }).map((parts) => parts.join('').replace(/\0/g, ''));
    fc.assert(
      fc.property(raw, fc.constantFrom<Encoding>('utf8', 'utf16le', 'utf16be'), fc.boolean(), (text, encoding, bom) => {
        const bytes = bytesOf(text, encoding, bom);
        const doc = decodeText(bytes);
        expect(doc.encoding).toBe(encoding);
        expect(Buffer.from(encodeText(doc)).equals(bytes)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('unifiedDiff output applies with jsdiff', () => {
  const textArb = fc
    .record({ lines: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', '', ' x', 'f()'), { maxLength: 30 }), finalNewline: fc.boolean() })
    .map(({ lines, finalNewline }) => (lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : '')));

  it('applyPatch(before, diff) gives after, and the counts match the diff', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
        const d = unifiedDiff({ oldPath: 'f.txt', newPath: 'f.txt', before, after, context });
        expect(applyPatch(before, d.diff)).toBe(after);
        const body = d.diff.split('\n').filter((l) => !l.startsWith('---') && !l.startsWith('+++'));
        expect(body.filter((l) => l.startsWith('+')).length).toBe(d.added);
        expect(body.filter((l) => l.startsWith('-')).length).toBe(d.removed);
      }),
      { numRuns: 500 },
    );
  });

  it('also for a small edit in a long file (the prefix/suffix cut)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('p', 'q', 'r', '}', ''), { minLength: 50, maxLength: 120 }), fc.nat(), fc.array(fc.constantFrom('p', 'Z', ''), { maxLength: 5 }), fc.nat({ max: 5 }), (lines, at, insert, drop) => {
        const i = at % lines.length;
        const next = [...lines.slice(0, i), ...insert, ...lines.slice(i + drop)];
        const before = `${lines.join('\n')}\n`;
        const after = `${next.join('\n')}\n`;
        expect(applyPatch(before, unifiedDiff({ oldPath: 'f', newPath: 'f', before, after }).diff)).toBe(after);
      }),
      RUNS,
    );
  });
});

describe('planFile never throws anything but EditwardenError', () => {
  const s = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '\r\n', '“', '…', '$&', '\u00A0', '😀', 'x = 1', '    '), maxLength: 40 });
  const common = { path: fc.constant('f.txt'), force: fc.option(fc.boolean(), { nil: undefined }) };
  const hunk: fc.Arbitrary<Hunk> = fc.record({
    oldStart: fc.option(fc.integer({ min: -2, max: 50 }), { nil: undefined }),
    lines: fc.array(fc.record({ kind: fc.constantFrom(' ', '-', '+') as fc.Arbitrary<' ' | '-' | '+'>, text: s }), { maxLength: 6 }),
  });
  const request: fc.Arbitrary<EditRequest> = fc.oneof(
    fc.record({ ...common, action: fc.constant('edit' as const), oldText: s, newText: s, replaceAll: fc.option(fc.boolean(), { nil: undefined }) }),
    fc.record({ ...common, action: fc.constantFrom('create' as const, 'overwrite' as const), content: s }),
    fc.record({ ...common, action: fc.constantFrom('append' as const, 'prepend' as const), content: s }),
    fc.record({ ...common, action: fc.constant('delete' as const) }),
    fc.record({ ...common, action: fc.constant('insert' as const), line: fc.oneof(fc.integer({ min: -3, max: 30 }), fc.constant(Number.NaN), fc.constant(1.5)), content: s }),
    fc.record({ ...common, action: fc.constant('patch' as const), hunks: fc.array(hunk, { maxLength: 3 }) }),
    fc.record({ ...common, action: fc.constant('ast' as const), astPath: s, astAction: fc.constantFrom('replace' as const, 'remove' as const, 'append' as const, 'prepend' as const), content: s }),
  );
  const optionsArb: fc.Arbitrary<PlanOptions> = fc.record({
    strict: fc.boolean(),
    maxFileBytes: fc.oneof(fc.constant(10 * 1024 * 1024), fc.integer({ min: 0, max: 200 })),
    dramaticMinLines: fc.integer({ min: 0, max: 30 }),
    dramaticRatio: fc.double({ min: 0, max: 1, noNaN: true }),
    continueOnError: fc.option(fc.boolean(), { nil: undefined }),
  });

  it('plans or refuses, never crashes', () => {
    fc.assert(
      fc.property(fc.option(fileArb, { nil: null }), fc.array(request, { minLength: 1, maxLength: 4 }), optionsArb, (f, requests, options) => {
        const before = f === null ? null : decodeText(bytesOf(rawOf(f), 'utf8', f.bom));
        let p;
        try {
          p = planFile('f.txt', before, requests, options);
        } catch (error) {
          expect(error).toBeInstanceOf(EditwardenError);
          return;
        }
        expect(p.steps).toHaveLength(requests.length);
        for (const step of p.steps) {
          if (!step.ok) expect(step.error).toBeInstanceOf(EditwardenError);
        }
        if (p.ok && p.after !== null) {
          expect(p.afterBytes).toBeDefined();
          expect((p.afterBytes as Uint8Array).length).toBeLessThanOrEqual(options.maxFileBytes);
        }
        if (!p.ok && !options.continueOnError) expect(p.after).toBe(before);
      }),
      { numRuns: 1000 },
    );
  });

  it('tolerant matching alone (findMatches through planFile) on arbitrary quotes never crashes', () => {
    fc.assert(
      fc.property(fileArb, s, s, fc.boolean(), (f, oldText, newText, replaceAll) => {
        const before = decodeText(bytesOf(rawOf(f), 'utf8', false));
        const p = planFile('f.txt', before, [{ action: 'edit', path: 'f.txt', oldText, newText, replaceAll, force: true }], DEFAULT_EDIT_OPTIONS);
        const step = p.steps[0];
        if (step && !step.ok) expect(step.error).toBeInstanceOf(EditwardenError);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('a quote disturbed only in forgiven ways edits exactly the intended line', () => {
  // A file of unique lines (so any match is the intended one), 4-space indentation, some blank lines.
  const fileLines = fc
    .array(fc.record({ depth: fc.integer({ min: 0, max: 3 }), blank: fc.integer({ min: 0, max: 9 }).map((n) => n < 2) }), { minLength: 3, maxLength: 30 })
    .map((rows) => rows.map((r, i) => (r.blank && i > 0 ? '' : `${'    '.repeat(r.depth)}call${i}(a, "s${i}")`)));
  type Indent = 'none' | 'shift' | 'dedent' | 'tabs' | 'two' | 'nbsp';
  type Content = 'none' | 'trailing' | 'runs' | 'unicode';
  type Blank = 'none' | 'remove' | 'add';

  const lead = (l: string): string => /^ */.exec(l)?.[0] ?? '';
  function indentOf(kind: Indent, shift: number, minLead: number): (l: string) => string {
    return (l) => {
      if (l === '') return l;
      const n = lead(l).length;
      const rest = l.slice(n);
      switch (kind) {
        case 'none':
          return l;
        case 'shift':
          return ' '.repeat(n + shift) + rest;
        case 'dedent':
          return ' '.repeat(n - minLead) + rest;
        case 'tabs':
          return '\t'.repeat(n / 4) + rest;
        case 'two':
          return '  '.repeat(n / 4) + rest;
        case 'nbsp':
          return '\u00A0'.repeat(n) + rest;
      }
    };
  }
  function contentOf(kind: Content): (l: string) => string {
    return (l) => {
      if (l === '') return l;
      switch (kind) {
        case 'none':
          return l;
        case 'trailing':
          return `${l} \t`;
        case 'runs':
          return l.replace(', ', ',   ');
        case 'unicode':
          return l.replace(/"([^"]*)"/, '“$1”');
      }
    };
  }

  it('applies with the expected file when the combination is forgiven, and is never wrong otherwise', () => {
    fc.assert(
      fc.property(
        fileLines,
        fc.nat(),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(),
        fc.constantFrom<Indent>('none', 'shift', 'dedent', 'tabs', 'two', 'nbsp'),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<Content>('none', 'trailing', 'runs', 'unicode'),
        fc.constantFrom<Blank>('none', 'remove', 'add'),
        fc.boolean(),
        (lines, at, size, pick, indent, shift, content, blank, finalNewline) => {
          const start = at % lines.length;
          const end = Math.min(lines.length, start + size);
          const block = lines.slice(start, end);
          fc.pre(block[0] !== '' && block[block.length - 1] !== '');
          if (blank === 'add') fc.pre(block.length >= 2);
          if (blank === 'remove') fc.pre(block.includes(''));
          const codeRows = block.flatMap((l, k) => (l === '' ? [] : [k]));
          const j = codeRows[pick % codeRows.length] as number;
          const changedLine = (block[j] as string).replace(/call(\d+)/, 'changed$1');
          const file = `${lines.join('\n')}\n`;
          const expected = `${[...lines.slice(0, start + j), changedLine, ...lines.slice(start + j + 1)].join('\n')}\n`;

          const minLead = Math.min(...block.filter((l) => l !== '').map((l) => lead(l).length));
          const ind = indentOf(indent, shift, minLead);
          const con = contentOf(content);
          // The model's quote, and its new_text: the same lines in the same style, one of them changed.
          // Trailing blanks and doubled spaces are not carried into the line it rewrote; typography is.
          let quote = block.map((l) => con(ind(l)));
          let next = block.map((l, k) => (k === j ? (content === 'unicode' ? con(ind(changedLine)) : ind(changedLine)) : con(ind(l))));
          if (blank === 'remove') {
            quote = quote.filter((l) => l !== '');
            next = next.filter((l) => l !== '');
          } else if (blank === 'add') {
            quote = [quote[0] as string, '', ...quote.slice(1)];
            next = [next[0] as string, '', ...next.slice(1)];
          }
          const tail = finalNewline ? '\n' : '';
          const oldText = quote.join('\n') + tail;
          const newText = next.join('\n') + tail;

          const p = planFile('f.py', decodeText(Buffer.from(file)), [{ action: 'edit', path: 'f.py', oldText, newText }], DEFAULT_EDIT_OPTIONS);
          const step = p.steps[0];
          const forgiven = blank === 'none' || (indent === 'none' && (content === 'none' || content === 'trailing'));
          if (step?.ok && p.after) {
            expect(p.after.text).toBe(expected);
          } else {
            expect(forgiven, `refused a forgiven quote: ${step?.error?.message}`).toBe(false);
            expect(step?.error?.code).toBe('E_NOT_FOUND');
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('normalisation maps every normalised character back into the original', () => {
  const raw = fc.array(fc.constantFrom('a', 'b', ' ', '  ', '\t', '\n', '\u00A0', '\u2009', '\u2026', '“', '\u200B', '\uFEFF', 'é', '😀', '-'), { maxLength: 40 }).map((a) => a.join(''));
  it('offsets are in range and in order, the string-only variant agrees, and no options means no change', () => {
    fc.assert(
      fc.property(raw, fc.boolean(), fc.boolean(), fc.boolean(), (text, trailing, runs, unicode) => {
        const options = { trailing, runs, unicode };
        const n = normalizeText(text, options);
        expect(normalizedString(text, options)).toBe(n.text);
        expect(n.starts.length).toBe(n.text.length);
        for (let k = 0; k < n.text.length; k++) {
          // The same four facts at every offset, read first without expect(): its bookkeeping (~8 µs a call) was most of
          // this property's CPU at ~35,000 calls. At an offset that breaks one, the expects below fail with their messages.
          const [start, end] = [n.starts[k] as number, n.ends[k] as number];
          if (start < end && end <= text.length && (k === 0 || start >= (n.starts[k - 1] as number)) && (n.text[k] !== '\n' || text.slice(start, end) === '\n')) continue;
          expect(n.starts[k]).toBeLessThan(n.ends[k] as number);
          expect(n.ends[k]).toBeLessThanOrEqual(text.length);
          if (k > 0) expect(n.starts[k]).toBeGreaterThanOrEqual(n.starts[k - 1] as number);
          if (n.text[k] === '\n') expect(text.slice(n.starts[k], n.ends[k])).toBe('\n');
        }
        expect(normalizeText(text, { trailing: false, runs: false, unicode: false }).text).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});
