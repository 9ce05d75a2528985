/**
 * Never apply part of a change: every line of a reply, in every format, is
 * either part of a request that will be applied whole or part of a refusal.
 * A property over generated replies and mutated ones (any line — payload or
 * marker — deleted, duplicated, swapped with its neighbour, or noise
 * inserted; hunk header counts changed): each payload line carries a unique
 * token, and the token must be in a request or the line must lie in a
 * refused item's range. Where a format allows prose, which lines are prose is
 * defined precisely below, per format, on the mutated reply (udiffProse,
 * patchProse, searchReplaceProse, activeEditProse); the parser must agree.
 * Each format runs with a fixed seed and with a random one.
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
    ...items.flatMap((shape, f) => tag(f, [`*** Update File: f${f}.txt`, ...shape.flatMap((size) => ['@@', ` ${code()}`, ...Array.from({ length: size % 3 }, () => `-${code()}`), `+${code()}`, ` ${code()}`])])),
    ...tag(items.length - 1, ['*** End Patch']),
  ],
  'search-replace': (items) =>
    // Each block is its own item (its path line and fence belong to the first); text between two blocks is prose.
    items.flatMap((shape, f) => [
      ...tag(null, ['']),
      ...tag(10 * f, [`f${f}.py`, '```python']),
      ...shape.flatMap((size, b) => tag(10 * f + (b === 0 ? 0 : b), ['<<<<<<< SEARCH', ...Array.from({ length: 1 + (size % 3) }, code), '=======', ...Array.from({ length: 1 + (size % 2) }, code), '>>>>>>> REPLACE'])),
      ...tag(null, ['```']),
    ]),
  'active-edit': (items) =>
    items.flatMap((shape, f) => [...tag(null, ['Some prose.']), ...tag(f, ['---BEGIN---', `Edit: f${f}.py`, 'action: replace', '---START---', ...Array.from({ length: 1 + ((shape[0] ?? 0) % 4) }, code), '---END---'])]),
  json: (items) => {
    const body = items.map((_, f) => `  {"path": "f${f}.py", "old_text": "${code()}\\n${code()}\\n", "new_text": "${code()}\\n"}`);
    return tag(0, ['[', body.join(',\n'), ']'].join('\n').split('\n'));
  },
};

/**
 * Roo Code's dialect of SEARCH/REPLACE: each block opens with line hints and the "-------" separator, and one
 * content line in three is an escaped marker line ("\\=======" + token), content once unescaped.
 */
const rooBlocks: Generator = (items) =>
  items.flatMap((shape, f) => [
    ...tag(null, ['']),
    ...tag(10 * f, [`f${f}.py`, '```python']),
    ...shape.flatMap((size, b) =>
      tag(10 * f + b, [
        '<<<<<<< SEARCH',
        `:start_line:${1 + size}`,
        ...(size % 2 === 0 ? [`:end_line:${2 + size}`] : []),
        '-------',
        ...Array.from({ length: 1 + (size % 3) }, (_, k) => (k === 1 ? `\\======= ${code()}` : code())),
        '=======',
        ...Array.from({ length: 1 + (size % 2) }, (_, k) => (k === 1 ? `\\>>>>>>> REPLACE ${code()}` : code())),
        '>>>>>>> REPLACE',
      ]),
    ),
    ...tag(null, ['```']),
  ]);

/** Noise only the Roo dialect gives a meaning to: hint lines, its separator, escaped markers. */
const ROO_NOISE = [':start_line:3', ':end_line:4', '-------', '\\=======', '\\<<<<<<< SEARCH', '\\:start_line:2'];

const NOISE = ['', 'prose words here', '=======', '>>>>>>> REPLACE', '<<<<<<< SEARCH', '@@ -1,2 +1,2 @@', '@@', '```', '---END---', '---START---', '*** End Patch', '*** End of File', '--- a/x.txt', '+++ b/x.txt'];
const TOKEN_NOISE = (): string[] => [`+${code()}`, `-${code()}`, ` ${code()}`, code()];

type Mutation = { kind: 'delete' | 'duplicate' | 'swap'; at: number } | { kind: 'insert'; at: number; noise: number; withToken: boolean } | { kind: 'recount'; at: number; a: number; b: number };

/**
 * In a unified diff a line that cannot be part of a hunk ends the file patch (as in git): the item's lines
 * after it, up to the next hunk or file header, are prose by the grammar — a later hunk header is then an
 * orphan, refused with every line since the file patch.
 */
const endsDiffItem = (line: string): boolean => line !== '' && !/^[ +\-\\@]/.test(line);

function mutate(lines: Tagged[], mutations: Mutation[], format: FormatName, noise: string[] = NOISE): Tagged[] {
  const out = [...lines];
  for (const m of mutations) {
    if (out.length === 0) break;
    const at = m.at % out.length;
    switch (m.kind) {
      case 'delete':
        out.splice(at, 1);
        break;
      case 'swap': {
        // Two neighbouring lines change places; each keeps the item it belonged to.
        if (at + 1 >= out.length) break;
        const a = out[at] as Tagged;
        out[at] = out[at + 1] as Tagged;
        out[at + 1] = a;
        break;
      }
      case 'duplicate':
        out.splice(at, 0, out[at] as Tagged);
        break;
      case 'insert': {
        const pool = m.withToken ? TOKEN_NOISE() : noise;
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
  if (format === 'apply-patch') return patchProse(out);
  if (format === 'search-replace') return searchReplaceProse(out);
  if (format === 'active-edit') return activeEditProse(out);
  if (format === 'udiff') return udiffProse(out);
  return out;
}

/**
 * SEARCH/REPLACE allows prose between blocks: a line is prose when it stands outside every SEARCH … REPLACE block
 * and outside every code fence that holds a SEARCH marker (a "```" line outside a block opens a fence, the next
 * closes it; a fence with no block in it, such as a shell command, is prose too).
 */
function searchReplaceProse(lines: Tagged[]): Tagged[] {
  const fence: number[] = [];
  let open = -1;
  let inBlock = false;
  lines.forEach(([l], i) => {
    const t = l.trim();
    if (!inBlock && t.startsWith('```')) open = open === -1 ? i : -1;
    if (t === '<<<<<<< SEARCH' && inBlock) {
      // The block before had no REPLACE: it ends here, and a fence in this block's header (blanks, a path, a
      // fence above the SEARCH) opens a fence afresh, as the parser reads on from that header.
      for (let k = i - 1; k >= 0 && !/\s/.test((lines[k] as Tagged)[0].trim()); k--) {
        if ((lines[k] as Tagged)[0].trim().startsWith('```')) {
          open = k;
          for (let n = k; n < i; n++) fence[n] = k;
          break;
        }
      }
    }
    if (t === '<<<<<<< SEARCH') inBlock = true;
    if (t === '>>>>>>> REPLACE') inBlock = false;
    fence.push(open);
  });
  const editFences = new Set(lines.flatMap(([l], i) => (l.trim() === '<<<<<<< SEARCH' && (fence[i] as number) !== -1 ? [fence[i] as number] : [])));
  inBlock = false;
  return lines.map(([l, item], i): Tagged => {
    const t = l.trim();
    if (t === '<<<<<<< SEARCH') inBlock = true;
    const prose = !inBlock && !editFences.has(fence[i] as number);
    if (t === '>>>>>>> REPLACE') inBlock = false;
    return [l, prose ? null : item];
  });
}

/** A line only an apply_patch chunk holds (the parser's isChangeShaped). */
const changeShaped = (line: string): boolean => /^[ +-]\S/.test(line) || line.startsWith('@@') || line.trim() === '*** End of File' || line.trim() === '\\ No newline at end of file';

/**
 * apply_patch allows prose around an envelope. After "*** End Patch" the lines up to the next "*** Begin Patch" are
 * prose when the first non-blank one is not change-shaped (then the parser knows the envelope really ended); when
 * it is, the end marker came early and the lines stay part of the operation it cut. Before a "*** Begin Patch", a
 * line is prose unless only blanks and patch lines ("*** " markers, change-shaped lines) stand between it and the
 * marker (then the parser refuses that run).
 */
function patchProse(lines: Tagged[]): Tagged[] {
  const out = [...lines];
  for (let i = 0; i < out.length; i++) {
    if ((out[i] as Tagged)[0].trim() !== '*** End Patch') continue;
    let k = i + 1;
    while (k < out.length && (out[k] as Tagged)[0].trim() === '') k++;
    if (k >= out.length || changeShaped((out[k] as Tagged)[0]) || (out[k] as Tagged)[0].trim() === '*** End Patch') continue;
    for (; k < out.length && (out[k] as Tagged)[0].trim() !== '*** Begin Patch'; k++) out[k] = [(out[k] as Tagged)[0], null];
  }
  for (let i = 0; i < out.length; i++) {
    if ((out[i] as Tagged)[0].trim() !== '*** Begin Patch') continue;
    let k = i - 1;
    while (k >= 0 && ((out[k] as Tagged)[0].trim() === '' || changeShaped((out[k] as Tagged)[0]) || (out[k] as Tagged)[0].trim().startsWith('*** '))) k--;
    for (; k >= 0 && (out[k] as Tagged)[0].trim() !== '*** End Patch'; k--) out[k] = [(out[k] as Tagged)[0], null];
  }
  return out;
}

/**
 * Active edits allow prose anywhere outside a directive, also right after "---END---" (the format's examples do
 * that): a line is prose when no directive is open, i.e. after an END (or at the start) and before the next
 * BEGIN or START. So an END moved up into the code turns the code lines after it into prose by the grammar; the
 * parser cannot tell them apart from prose, and the property says so rather than pretending otherwise.
 */
function activeEditProse(lines: Tagged[]): Tagged[] {
  let open = false;
  return lines.map(([l, item]): Tagged => {
    const t = l.trim();
    if (t === '---BEGIN---' || t === '---START---') open = true;
    const prose = !open;
    if (t === '---END---') open = false;
    return [l, prose ? null : item];
  });
}

/**
 * A unified diff is prose outside its file patches (as for git): a file patch begins at a "--- " line directly
 * followed by a "+++ " line, and a line that cannot be part of a hunk ends it. A hunk header reopens it (after
 * prose, or before any file header, it is an orphan the parser refuses with the lines after it).
 */
function udiffProse(lines: Tagged[]): Tagged[] {
  let inPatch = false;
  return lines.map(([l, item], i): Tagged => {
    if (l.startsWith('--- ') && (lines[i + 1]?.[0] ?? '').startsWith('+++ ')) inPatch = true;
    else if (l.startsWith('@@')) inPatch = true;
    else if (endsDiffItem(l)) inPatch = false;
    return [l, inPatch ? item : null];
  });
}

/**
 * The reply parsed. Each refusal is an EditwardenError, and an Error captures a stack trace when it is made: the
 * properties below make ~70,000 of them, whose stacks nobody reads (the refusal is data here, never thrown) and whose
 * capture cost a sixth of this file's CPU. So they are parsed with stack capture off, put back at once.
 */
function parseReply(lines: Tagged[], format: FormatName): ParseResult {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parseFormat(lines.map(([l]) => l).join('\n') + '\n', format);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A payload line's token; global, so `match` returns every one (it starts each search afresh). */
const TOKENS = /Q\d+Q/g;

/** Lines whose token is neither in a request nor inside a refused item's range. */
function unaccounted(tagged: Tagged[], parsed: ParseResult): string[] {
  // Every token the requests carry, in any of their strings (a token is found whole: "Q12Q" is not in "Q112Q").
  const applied = new Set<string>();
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const t of value.match(TOKENS) ?? []) applied.add(t);
    } else if (Array.isArray(value)) {
      for (const v of value) collect(v);
    } else if (value !== null && typeof value === 'object') {
      for (const v of Object.values(value)) collect(v);
    }
  };
  collect(parsed.requests);
  const starts = [...parsed.requests.map((r) => r.source?.line ?? 1), ...parsed.errors.map((e) => e.fromLine ?? e.line)].sort((a, b) => a - b);
  const refused = parsed.errors.map((e) => {
    const from = e.fromLine ?? e.line;
    const to = starts.find((s) => s > from) ?? tagged.length + 1;
    return [from, to] as const;
  });
  const missing: string[] = [];
  for (let i = 0; i < tagged.length; i++) {
    const [line, item] = tagged[i] as Tagged;
    if (item === null) continue; // prose between items is nobody's
    for (const t of line.match(TOKENS) ?? []) {
      if (applied.has(t)) continue;
      if (refused.some(([from, to]) => i + 1 >= from && i + 1 < to)) continue;
      missing.push(`line ${i + 1}: ${line}`);
    }
  }
  return missing;
}

/**
 * No line unaccounted, the reply (numbered, with each line's item) in the failure message. The message is built
 * only on a failure: the properties below check ~90,000 replies, and building it for each cost about a fifth of their CPU.
 */
function expectAllAccounted(lines: Tagged[], parsed: ParseResult): void {
  const missing = unaccounted(lines, parsed);
  if (missing.length === 0) return;
  expect(missing, lines.map(([l, item], i) => `${i + 1} ${item ?? '-'} ${l}`).join('\n')).toEqual([]);
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const, 'swap' as const), at: fc.nat(400) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(400), noise: fc.nat(50), withToken: fc.boolean() }),
  fc.record({ kind: fc.constant('recount' as const), at: fc.nat(400), a: fc.integer({ min: 0, max: 6 }), b: fc.integer({ min: 0, max: 6 }) }),
);
/**
 * Runs per seed and format; EVERY_LINE_RUNS raises it when hunting counterexamples after a parser change. 8000 is
 * what the bugs this property found need, not a round number: with either SEARCH/REPLACE fix it found by random seed
 * undone (a316ba8, 371d4fb), the property failed only after ~1,100 to ~50,000 replies (median ~5,000 and ~30,000 in
 * 8 and 6 random-seed runs, measured 2026-11-26), and the fixed seed catches the first at its 7,754th reply. Fewer
 * runs would let such a rare case through; the CPU is cut in the harness instead (parseReply, unaccounted).
 */
const RUNS = Number(process.env.EVERY_LINE_RUNS ?? 8000);
const shapes = fc.array(fc.array(fc.nat(11), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });

describe('every line of a reply is applied or refused, in every format', () => {
  for (const format of Object.keys(GENERATORS) as FormatName[]) {
    it(`${format}: generated replies parse whole`, () => {
      fc.assert(
        fc.property(shapes, (items) => {
          const lines = GENERATORS[format](items);
          const parsed = parseReply(lines, format);
          expect(parsed.errors).toEqual([]);
          expect(unaccounted(lines, parsed)).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
    // A fixed seed keeps CI's cases the same run to run; the random seed (fast-check's default, printed on a
    // failure so it can be replayed) explores new ones every run.
    for (const seed of [20261123, undefined]) {
      it(`${format}: mutated replies leave no line silently ignored (${seed === undefined ? 'random seed' : `seed ${seed}`})`, () => {
        fc.assert(
          fc.property(shapes, fc.array(mutation, { minLength: 1, maxLength: 4 }), (items, mutations) => {
            const lines = mutate(GENERATORS[format](items), mutations, format);
            const parsed = parseReply(lines, format);
            expectAllAccounted(lines, parsed);
          }),
          { numRuns: RUNS, ...(seed !== undefined ? { seed } : {}) },
        );
      });
    }
  }
});

describe('every line of a reply is applied or refused: the Roo Code dialect', () => {
  it('generated replies parse whole, hints kept out of the text and escapes undone', () => {
    fc.assert(
      fc.property(shapes, (items) => {
        const lines = rooBlocks(items);
        const parsed = parseReply(lines, 'search-replace');
        expect(parsed.errors).toEqual([]);
        expect(unaccounted(lines, parsed)).toEqual([]);
        const written = JSON.stringify(parsed.requests);
        expect(written).not.toMatch(/:start_line:|:end_line:|-------|\\\\=|\\\\>/);
        expect(parsed.requests.every((r) => r.action === 'edit' && r.lineHint !== undefined)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
  for (const seed of [20261126, undefined]) {
    it(`mutated replies leave no line silently ignored (${seed === undefined ? 'random seed' : `seed ${seed}`})`, () => {
      fc.assert(
        fc.property(shapes, fc.array(mutation, { minLength: 1, maxLength: 4 }), (items, mutations) => {
          const lines = mutate(rooBlocks(items), mutations, 'search-replace', [...NOISE, ...ROO_NOISE]);
          const parsed = parseReply(lines, 'search-replace');
          expectAllAccounted(lines, parsed);
          // A hint line is never written into a file: it is metadata or the block is refused. Only an escaped one
          // ("\\:start_line:2") is content, so hint-shaped lines in the requests are at most the escaped ones.
          const hintShaped = /^\s*:(?:start|end)_line:\s*\d*\s*$/;
          const escaped = lines.filter(([l]) => hintShaped.test(l.slice(1)) && l.startsWith('\\')).length;
          const carried = parsed.requests.flatMap((r) => (r.action === 'edit' ? `${r.oldText}\n${r.newText}`.split('\n') : [])).filter((l) => hintShaped.test(l)).length;
          expect(carried).toBeLessThanOrEqual(escaped);
        }),
        { numRuns: RUNS / 2, ...(seed !== undefined ? { seed } : {}) },
      );
    });
  }
});
