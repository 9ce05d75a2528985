/**
 * Never apply part of a change: every line of a reply, in every format, is
 * either part of a request that will be applied whole or part of a refusal.
 * A property over generated replies and mutated ones (lines deleted,
 * duplicated or inserted; hunk header counts changed): each payload line
 * carries a unique token, and the token must be in a request or the line
 * must lie in a refused item's range.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormat, type FormatName, type ParseResult } from '../../src/formats/index.js';

let next = 0;
const token = (): string => `Q${next++}Q`;

/** A payload line: code-like text with a unique token. */
const code = (): string => `v_${token()} = 1`;

/** A line of a reply and the item it belongs to (null: prose between items). */
type Tagged = [string, number | null];
type Generator = (items: number[][]) => Tagged[];
const tag = (item: number | null, lines: string[]): Tagged[] => lines.map((l) => [l, item]);

/** Items are described by shapes: for each item, a list of small numbers the generator reads as sizes. */
const GENERATORS: Record<FormatName, Generator> = {
  udiff: (items) =>
    items.flatMap((shape, f): Tagged[] => {
      const out = [`--- a/f${f}.txt`, `+++ b/f${f}.txt`];
      let at = 1;
      for (const size of shape) {
        const ctx = 1 + (size % 2);
        const removed = size % 3;
        const added = 1 + (size % 2);
        const body = [...Array.from({ length: ctx }, () => ` ${code()}`), ...Array.from({ length: removed }, () => `-${code()}`), ...Array.from({ length: added }, () => `+${code()}`), ` ${code()}`];
        const oldCount = ctx + removed + 1;
        const newCount = ctx + added + 1;
        out.push(`@@ -${at},${oldCount} +${at},${newCount} @@`, ...body);
        at += oldCount + 3;
      }
      return tag(f, out);
    }),
  'apply-patch': (items) => [
    ...tag(null, ['Here is the patch:']),
    ...tag(0, ['*** Begin Patch']),
    ...items.flatMap((shape, f) =>
      tag(f, [
        `*** Update File: f${f}.txt`,
        ...shape.flatMap((size) => ['@@', ` ${code()}`, ...Array.from({ length: size % 3 }, () => `-${code()}`), `+${code()}`, ` ${code()}`]),
      ]),
    ),
    ...tag(items.length - 1, ['*** End Patch']),
  ],
  'search-replace': (items) =>
    // Each block is its own item (its path line and fence belong to the first); text between two blocks is prose.
    items.flatMap((shape, f) => [
      ...tag(null, ['']),
      ...tag(10 * f, [`f${f}.py`, '```python']),
      ...shape.flatMap((size, b) =>
        tag(10 * f + (b === 0 ? 0 : b), ['<<<<<<< SEARCH', ...Array.from({ length: 1 + (size % 3) }, code), '=======', ...Array.from({ length: 1 + (size % 2) }, code), '>>>>>>> REPLACE']),
      ),
      ...tag(null, ['```']),
    ]),
  'active-edit': (items) =>
    items.flatMap((shape, f) => [...tag(null, ['Some prose.']), ...tag(f, ['---BEGIN---', `Edit: f${f}.py`, 'action: replace', '---START---', ...Array.from({ length: 1 + ((shape[0] ?? 0) % 4) }, code), '---END---'])]),
  json: (items) => {
    const body = items.map((_, f) => `  {"path": "f${f}.py", "old_text": "${code()}\\n${code()}\\n", "new_text": "${code()}\\n"}`);
    return tag(0, ['[', body.join(',\n'), ']'].join('\n').split('\n'));
  },
};

const NOISE = ['', 'prose words here', '=======', '>>>>>>> REPLACE', '<<<<<<< SEARCH', '@@ -1,2 +1,2 @@', '@@', '```', '---END---', '---START---', '*** End Patch', '*** End of File', '--- a/x.txt', '+++ b/x.txt'];
const TOKEN_NOISE = (): string[] => [`+${code()}`, `-${code()}`, ` ${code()}`, code()];

type Mutation = { kind: 'delete' | 'duplicate'; at: number } | { kind: 'insert'; at: number; noise: number; withToken: boolean } | { kind: 'recount'; at: number; a: number; b: number };

/**
 * In a unified diff a line that cannot be part of a hunk ends the file patch (as in git): the item's lines
 * after it, up to the next hunk or file header, are prose by the grammar — a later hunk header is then an
 * orphan, refused with every line since the file patch.
 */
const endsDiffItem = (line: string): boolean => line !== '' && !/^[ +\-\\@]/.test(line);

function mutate(lines: Tagged[], mutations: Mutation[], format: FormatName): Tagged[] {
  const out = [...lines];
  for (const m of mutations) {
    if (out.length === 0) break;
    const at = m.at % out.length;
    switch (m.kind) {
      case 'delete':
        if (!DELETES_MARKERS.has(format) && isMarker((out[at] as Tagged)[0])) break;
        out.splice(at, 1);
        break;
      case 'duplicate':
        out.splice(at, 0, out[at] as Tagged);
        break;
      case 'insert': {
        const pool = m.withToken ? TOKEN_NOISE() : NOISE;
        // A line inserted between two lines of one item is part of that item; elsewhere it is prose.
        const before = out[at - 1]?.[1] ?? null;
        const inside = before !== null && before === (out[at]?.[1] ?? null) ? before : null;
        const text = pool[m.noise % pool.length] as string;
        const ends = format === 'udiff' && endsDiffItem(text);
        out.splice(at, 0, [text, ends ? null : inside]);
        if (ends && inside !== null) {
          for (let k = at + 1; k < out.length && (out[k] as Tagged)[1] === inside && !/^(?:@@|--- |\+\+\+ )/.test((out[k] as Tagged)[0]); k++) out[k] = [(out[k] as Tagged)[0], null];
        }
        break;
      }
      case 'recount': {
        const k = out.findIndex(([l], i) => i >= at && l.startsWith('@@ -'));
        if (k >= 0) out[k] = [`@@ -${1 + m.a},${m.a} +${1 + m.b},${m.b} @@`, (out[k] as Tagged)[1]];
        break;
      }
    }
  }
  return out;
}

/** Lines whose token is neither in a request nor inside a refused item's range. */
function unaccounted(tagged: Tagged[], parsed: ParseResult): string[] {
  const lines = tagged.map(([l]) => l);
  const applied = JSON.stringify(parsed.requests);
  const starts = [...parsed.requests.map((r) => r.source?.line ?? 1), ...parsed.errors.map((e) => e.fromLine ?? e.line)].sort((a, b) => a - b);
  const refused = parsed.errors.map((e) => {
    const from = e.fromLine ?? e.line;
    const to = starts.find((s) => s > from) ?? lines.length + 1;
    return [from, to] as const;
  });
  const missing: string[] = [];
  lines.forEach((line, i) => {
    if ((tagged[i] as Tagged)[1] === null) return; // prose between items is nobody's
    const tokens = line.match(/Q\d+Q/g) ?? [];
    for (const t of tokens) {
      if (applied.includes(t)) continue;
      if (refused.some(([from, to]) => i + 1 >= from && i + 1 < to)) continue;
      missing.push(`line ${i + 1}: ${line}`);
    }
  });
  return missing;
}

/**
 * Deleting marker lines is fully covered for udiff and JSON; for the other three formats a deleted BEGIN/START,
 * SEARCH or Update marker can still turn an item into prose (a known gap, see docs/formats.md), so there the
 * property deletes payload lines only.
 */
const DELETES_MARKERS: ReadonlySet<FormatName> = new Set(['udiff', 'json']);
const isMarker = (line: string): boolean => /^(?:---BEGIN---|---START---|---END---|<<<<<<< SEARCH|=======|>>>>>>> REPLACE|\*\*\* |@@|```|f\d+\.py)/.test(line.trim()) || /^(?:Edit|action):/.test(line);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), at: fc.nat(400) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(400), noise: fc.nat(50), withToken: fc.boolean() }),
  fc.record({ kind: fc.constant('recount' as const), at: fc.nat(400), a: fc.integer({ min: 0, max: 6 }), b: fc.integer({ min: 0, max: 6 }) }),
);
const shapes = fc.array(fc.array(fc.nat(11), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });

describe('every line of a reply is applied or refused, in every format', () => {
  for (const format of Object.keys(GENERATORS) as FormatName[]) {
    it(`${format}: generated replies parse whole`, () => {
      fc.assert(
        fc.property(shapes, (items) => {
          const lines = GENERATORS[format](items);
          const parsed = parseFormat(lines.map(([l]) => l).join('\n') + '\n', format);
          expect(parsed.errors).toEqual([]);
          expect(unaccounted(lines, parsed)).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
    it(`${format}: mutated replies leave no line silently ignored`, () => {
      fc.assert(
        fc.property(shapes, fc.array(mutation, { minLength: 1, maxLength: 4 }), (items, mutations) => {
          const lines = mutate(GENERATORS[format](items), mutations, format);
          const parsed = parseFormat(lines.map(([l]) => l).join('\n') + '\n', format);
          expect(unaccounted(lines, parsed), lines.map(([l, item], i) => `${i + 1} ${item ?? '-'} ${l}`).join('\n')).toEqual([]);
        }),
        // Seeded so CI is deterministic; run with another seed (or none) when changing a parser.
        { numRuns: 400, seed: 20261123 },
      );
    });
  }
});
