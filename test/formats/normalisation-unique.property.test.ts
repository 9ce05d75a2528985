/**
 * A normalisation is used only when the match is unique (issue 42), for every
 * variant editwarden forgives beyond an exact quote: Roo's escaped marker
 * lines, a quote copied from an indented line's first character (new_text
 * re-indented as a whole block), a quote a level shallower with new_text at
 * the file's indentation, a leading blank line in SEARCH the file lacks, a
 * divider of ten or more "=", Roo's "N | " prefixes, a file name in its own
 * fence, a bare file name, blanks inside a line, and a Codex hunk that only
 * adds lines before a removal hunk.
 *
 * One generated project per run: a file of distinct blocks, one of them the
 * target. The reply quotes the target the variant's way. Once: the edit
 * lands there, exactly, and the result names the normalisation (its
 * strategy or a note). Twice (the target's text also stands elsewhere, or
 * the name names two files): refused — E_AMBIGUOUS (E_NO_FILE for a name) —
 * never a pick of one of them. Pure: parser, then the engine's planFile.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText, renderRaw } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';
import { parseEdits } from '../../src/formats/index.js';

type Variant = 'escaped-marker' | 'reindent-whole' | 'dedent-braces' | 'leading-blank' | 'long-divider' | 'line-numbers' | 'fenced-name' | 'bare-name' | 'inner-whitespace' | 'pure-addition';
const VARIANTS: Variant[] = ['escaped-marker', 'reindent-whole', 'dedent-braces', 'leading-blank', 'long-divider', 'line-numbers', 'fenced-name', 'bare-name', 'inner-whitespace', 'pure-addition'];

/** The text each variant's result must carry, in its strategy or one of its notes. */
const NAMED: Record<Variant, string> = {
  'escaped-marker': 'escaped marker lines',
  'reindent-whole': 'trailing-whitespace',
  'dedent-braces': 'indentation',
  'leading-blank': 'blank line the file does not have',
  'long-divider': 'was read as "======="',
  'line-numbers': 'line-number prefixes',
  'fenced-name': 'its own fenced line',
  'bare-name': 'is the one file of the project with that name',
  'inner-whitespace': 'inner-whitespace',
  'pure-addition': 'only adds lines, with no context',
};

/** A block of the file: a function whose body is one call, tab-indented inside a class. */
const block = (k: number, body: string): string[] => [`\tfunction f${k}() {`, `\t\tif (x${k}) {`, `\t\t\t${body}`, '\t\t}', '\t}'];
const body = (k: number): string => `call${k}(a, b);`;
const edited = (k: number): string => `call${k}(a, b, c);`;
const numbered = (lines: string[], from: number): string[] => lines.map((l, i) => `${from + i} | ${l}`);
const sr = (path: string, search: string[], replace: string[], divider = '======='): string => [path, '```', '<<<<<<< SEARCH', ...search, divider, ...replace, '>>>>>>> REPLACE', '```', ''].join('\n');

interface Built {
  file: string;
  reply: string;
  /** Where the reply's request must land: the file's path. */
  path: string;
  expected: string;
  /** The files the project holds with the bare name (bare-name only). */
  named?: string[];
}

/** The project and the reply of one variant: `blocks` distinct blocks, the target `t`, and `twice`: a second place that matches after the normalisation. */
function build(variant: Variant, blocks: number, t: number, twice: boolean): Built {
  const ks = Array.from({ length: blocks }, (_, k) => k);
  const path = variant === 'bare-name' ? 'pkg/mod.ts' : 'src/mod.ts';
  const target = block(t, body(t));
  const marker = variant === 'escaped-marker';
  const withMarker = (lines: string[]): string[] => (marker ? [...lines.slice(0, 3), '=======', ...lines.slice(3)] : lines);
  const fileBlocks = ks.map((k) => withMarker(block(k, body(k))));
  // The second place: the target's block again, at the end (for inner-whitespace: spelled without the blanks the file has).
  const twin = withMarker(variant === 'inner-whitespace' ? block(t, body(t).replace(', ', ',')) : target);
  const lines = ['class A {', ...fileBlocks.flat(), ...(twice && variant !== 'bare-name' ? twin : []), '}'];
  const file = `${lines.join('\n')}\n`;
  const startLine = 2 + t * (marker ? 6 : 5);
  const expectedLines = [...lines];
  expectedLines[startLine - 1 + 2] = `\t\t\t${edited(t)}`;
  const expected = `${expectedLines.join('\n')}\n`;
  const whole = withMarker(target);
  const changed = withMarker(block(t, edited(t)));
  const json = (oldText: string, newText: string): string => JSON.stringify({ path, old_text: oldText, new_text: newText });
  switch (variant) {
    case 'escaped-marker': {
      const esc = (ls: string[]): string[] => ls.map((l) => (l === '=======' ? '\\=======' : l));
      return { file, path, expected, reply: sr(path, esc(whole), esc(changed)) };
    }
    case 'reindent-whole': {
      // From the first line's first character, retyped with a trailing blank; new_text from column 0 in its frame.
      const old = [`${(whole[0] as string).trimStart()} `, ...whole.slice(1)].join('\n');
      return { file, path, expected, reply: json(`${old}\n`, `${changed.map((l) => l.slice(1)).join('\n')}\n`) };
    }
    case 'dedent-braces':
      return { file, path, expected, reply: json(`${whole.map((l) => l.slice(1)).join('\n')}\n`, `${changed.join('\n')}\n`) };
    case 'leading-blank':
      return { file, path, expected, reply: sr(path, ['', ...whole], changed) };
    case 'long-divider':
      return { file, path, expected, reply: sr(path, whole, changed, '='.repeat(10)) };
    case 'line-numbers':
      return { file, path, expected, reply: sr(path, numbered(whole, startLine), numbered(changed, startLine)) };
    case 'fenced-name':
      return { file, path, expected, reply: ['```', path, '```', ...sr('', whole, changed).split('\n').slice(1)].join('\n') };
    case 'bare-name':
      return { file, path, expected, reply: sr('mod.ts', whole, changed), named: twice ? [path, 'lib/mod.ts'] : [path] };
    case 'inner-whitespace': {
      const spaced = (ls: string[]): string[] => ls.map((l) => l.replace('(a, b)', '( a, b )').replace('(a, b, c)', '( a, b, c )'));
      return { file, path, expected, reply: json(`${spaced(whole).join('\n')}\n`, `${changed.join('\n')}\n`) };
    }
    case 'pure-addition': {
      const added = `${expected}// added\n`;
      const patch = ['*** Begin Patch', `*** Update File: ${path}`, '@@', '+// added', '@@', ...whole.slice(0, 2).map((l) => ` ${l}`), `-${whole[2]}`, `+${changed[2]}`, ...whole.slice(3).map((l) => ` ${l}`), '*** End Patch', ''].join('\n');
      return { file, path, expected: added, reply: patch };
    }
  }
}

describe('a normalisation is used only when the match is unique', () => {
  it.each(VARIANTS)('%s: applied exactly once and named; refused when a second place matches after normalising', (variant) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.nat(), fc.boolean(), (blocks, pick, twice) => {
        const t = pick % blocks;
        const b = build(variant, blocks, t, twice);
        const parsed = parseEdits(b.reply, 'auto', { fileExists: (p) => p === b.path, filesNamed: () => b.named ?? [] });
        if (variant === 'bare-name' && twice) {
          expect(parsed.requests).toEqual([]);
          expect(parsed.errors.map((e) => e.error.code)).toEqual(['E_NO_FILE']);
          return;
        }
        expect(parsed.errors).toEqual([]);
        expect(parsed.requests.map((r) => r.path)).toEqual([b.path]);
        const plan = planFile(b.path, fromRawText(b.file), parsed.requests, DEFAULT_EDIT_OPTIONS);
        const step = plan.steps[0];
        if (twice) {
          expect(step?.error?.code).toBe('E_AMBIGUOUS');
          expect(plan.ok).toBe(false);
          return;
        }
        expect(step?.error).toBeUndefined();
        expect(plan.after === null ? null : renderRaw(plan.after)).toBe(b.expected);
        expect([step?.applied?.strategy, ...(step?.applied?.notes ?? [])].join('\n')).toContain(NAMED[variant]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('a parser-side normalisation is used only where it can mean one thing', () => {
  it('a divider of ten or more "=" only as the block\'s one divider-like line; "N | " prefixes only when every line has one, counting up by one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 30 }), fc.integer({ min: 10, max: 30 }), fc.integer({ min: 1, max: 900 }), fc.integer({ min: 2, max: 5 }), fc.nat(), (a, b, from, n, gapAt) => {
        // Two long "=" lines: which one divides cannot be told — the block is refused, nothing is read from it.
        const two = parseEdits(sr('a.md', ['Title', '='.repeat(a), 'text'], ['Title', 'more'], '='.repeat(b)), 'search-replace');
        expect(two.requests).toEqual([]);
        expect(two.errors.map((e) => e.error.code)).toEqual(['E_PARSE']);
        // Numbers with a gap are content, kept as written.
        const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
        const gap = numbered(lines, from).map((l, i) => (i === 1 + (gapAt % (n - 1)) ? l.replace(/^\d+/, String(from + i + 1)) : l));
        const kept = parseEdits(sr('a.txt', gap, ['x']), 'search-replace');
        expect(kept.requests[0]).toMatchObject({ oldText: `${gap.join('\n')}\n` });
        expect(kept.requests[0]?.readAs).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});
