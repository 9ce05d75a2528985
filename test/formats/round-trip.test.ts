/**
 * Round trip, for every format: a random (before, after) pair is written in
 * the format (formats/render.ts), parsed back, and applied to `before` by the
 * pure engine (planFile) — the result must be exactly `after`. Lines come
 * from a small alphabet so files repeat themselves, which is what makes
 * locating hunks and SEARCH texts hard.
 *
 * What a format cannot say is refused by the renderer, never approximated,
 * and the property only discards those cases: deleting or renaming a file
 * (JSON, active edit, SEARCH/REPLACE), a blank whole file (active edit), a
 * SEARCH text made only of blank lines (SEARCH/REPLACE), and a line that
 * reads as one of the format's own markers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { newDoc } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest } from '../../src/edit/types.js';
import { FORMAT_NAMES, parseFormat, renderChange, type FileChange, type FormatName } from '../../src/formats/index.js';
import { InexpressibleChange } from '../../src/formats/render.js';

const OPTIONS = { ...DEFAULT_EDIT_OPTIONS, dramaticMinLines: Number.POSITIVE_INFINITY };

const line = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c', '', '}', '  return x;', 'x = 1', '\tif (y) {', 'end ', ' a') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).filter((s) => !s.includes('\n') && !s.includes('\r')) },
);
const text = fc.tuple(fc.array(line, { maxLength: 25 }), fc.boolean()).map(([lines, eol]) => (lines.length === 0 ? '' : lines.join('\n') + (eol ? '\n' : '')));

/** `after` is mostly a mutation of `before` (what commits look like), sometimes unrelated. */
const pair = fc.oneof(
  fc.tuple(text, text),
  text.chain((before) => {
    const lines = before === '' ? [] : before.replace(/\n$/, '').split('\n');
    return fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), line), { minLength: 1, maxLength: 4 }).chain((ops) =>
      fc.boolean().map((eol) => {
        const out = [...lines];
        for (const [at, op, l] of ops) {
          const i = out.length === 0 ? 0 : at % (out.length + (op === 'insert' ? 1 : 0));
          if (op === 'insert') out.splice(i, 0, l);
          else if (out.length > 0 && op === 'delete') out.splice(i, 1);
          else if (out.length > 0) out[i] = l;
        }
        const flip = before.endsWith('\n') !== eol && fc.sample(fc.boolean(), 1)[0] === true;
        const eolFinal = flip ? eol : before.endsWith('\n') || before === '';
        return [before, out.length === 0 ? '' : out.join('\n') + (eolFinal ? '\n' : '')] as [string, string];
      }),
    );
  }),
);

/** Applies parsed requests to the files of `changes` with the pure engine; returns path → text (null: absent). */
function applyAll(changes: FileChange[], requests: EditRequest[]): Map<string, string | null> {
  const files = new Map<string, string | null>();
  for (const c of changes) files.set(c.path, c.before);
  const byPath = new Map<string, EditRequest[]>();
  for (const r of requests) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const [path, list] of byPath) {
    const before = files.get(path) ?? null;
    const plan = planFile(path, before === null ? null : newDoc(before), list, OPTIONS);
    if (!plan.ok) throw plan.steps.find((s) => !s.ok)?.error ?? new Error('plan failed');
    if (plan.moveTo !== undefined) {
      files.set(path, null);
      files.set(plan.moveTo, plan.after?.text ?? null);
    } else files.set(path, plan.after?.text ?? null);
  }
  return files;
}

function roundTrip(format: FormatName, changes: FileChange[]): void {
  let rendered: string;
  try {
    rendered = renderChange(format, changes);
  } catch (error) {
    if (error instanceof InexpressibleChange) {
      fc.pre(false);
      return;
    }
    throw error;
  }
  const existing = new Set(changes.filter((c) => c.before !== null).map((c) => c.path));
  const parsed = parseFormat(rendered, format, { fileExists: (p) => existing.has(p) });
  expect(parsed.errors.map((e) => e.error.message)).toEqual([]);
  const files = applyAll(changes, parsed.requests);
  for (const c of changes) {
    if (c.moveTo !== undefined && c.moveTo !== c.path) {
      expect(files.get(c.path)).toBeNull();
      expect(files.get(c.moveTo)).toBe(c.after);
    } else expect(files.get(c.path) ?? null).toBe(c.after);
  }
}

describe('round trip: render → parse → apply gives exactly `after`', () => {
  for (const format of FORMAT_NAMES) {
    it(`${format}: one modified file`, () => {
      fc.assert(
        fc.property(pair, ([before, after]) => {
          fc.pre(before !== after);
          roundTrip(format, [{ path: 'src/file.txt', before, after }]);
        }),
        { numRuns: 300 },
      );
    });
    it(`${format}: several files created, modified, deleted and renamed in one reply`, () => {
      const change = fc.tuple(pair, fc.constantFrom('modify', 'create', 'delete', 'rename'));
      const toChange = ([[before, after], kind]: [[string, string], string], i: number): FileChange => {
        switch (kind) {
          case 'create':
            return { path: `new${i}.txt`, before: null, after };
          case 'delete':
            return { path: `gone${i}.txt`, before, after: null };
          case 'rename':
            return { path: `old${i}.txt`, before, after, moveTo: `moved/${i}.txt` };
          default:
            return { path: `file${i}.txt`, before, after };
        }
      };
      fc.assert(
        fc.property(fc.array(change, { minLength: 1, maxLength: 4 }), (raw) => {
          const changes = raw.map(toChange);
          fc.pre(changes.every((c) => c.before !== c.after || (c.moveTo !== undefined && c.before !== null)));
          roundTrip(format, changes);
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe('what a format cannot say is refused by the renderer', () => {
  it('SEARCH/REPLACE, JSON and active edit refuse a deletion; active edit refuses a blank file', () => {
    for (const format of ['search-replace', 'json', 'active-edit'] as const) {
      expect(() => renderChange(format, [{ path: 'a', before: 'x\n', after: null }])).toThrow(InexpressibleChange);
    }
    expect(() => renderChange('active-edit', [{ path: 'a', before: 'x\n', after: '\n' }])).toThrow(/not blank/);
  });
  it('a line that reads as a marker is refused rather than written', () => {
    expect(() => renderChange('search-replace', [{ path: 'a', before: 'x\n', after: '=======\n' }])).toThrow(/marker/);
    expect(() => renderChange('active-edit', [{ path: 'a', before: 'x\n', after: '---END---\n' }])).toThrow(/marker/);
  });
});
