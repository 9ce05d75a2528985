import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { structuredPatch } from 'diff';
import { countChangedLines } from '../../src/guard/line-count.js';

const bytes = (text: string) => ({ kind: 'bytes' as const, bytes: Buffer.from(text, 'latin1') });

/** Lines a real line diff removes and adds. */
function diffCounts(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of structuredPatch('a', 'b', before, after, '', '', { context: 0 }).hunks) {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

describe('lines changed are counted by streaming, for files of any size', () => {
  it('counts a new file of 200,000 lines (beyond any patch size cap)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-lc-'));
    try {
      const file = path.join(dir, 'a.txt');
      fs.writeFileSync(file, Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join(''));
      expect(countChangedLines(null, { kind: 'file', path: file })).toEqual({ added: 200_000, removed: 0 });
      expect(countChangedLines({ kind: 'file', path: file }, null)).toEqual({ added: 0, removed: 200_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts one changed line in the middle of a large file as one line each way', () => {
    const lines = Array.from({ length: 300_000 }, (_, i) => `line ${i}`);
    const before = lines.join('\n') + '\n';
    lines[150_000] = 'changed';
    expect(countChangedLines(bytes(before), bytes(lines.join('\n') + '\n'))).toEqual({ added: 1, removed: 1 });
  });

  it('charges a binary change (NUL bytes, no newline in the region) at least one line', () => {
    const before = Buffer.alloc(4096, 0);
    const after = Buffer.from(before);
    after[100] = 7;
    expect(countChangedLines({ kind: 'bytes', bytes: before }, { kind: 'bytes', bytes: after })).toEqual({ added: 1, removed: 1 });
  });

  it('equals a line diff for one changed region, and never counts less than it for any change', () => {
    const line = fc.constantFrom('a', 'b', 'c', '', 'a b', '\0');
    const text = fc.array(line, { maxLength: 12 }).chain((ls) => fc.boolean().map((eol) => (ls.length === 0 ? '' : ls.join('\n') + (eol ? '\n' : ''))));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const got = countChangedLines(before === '' ? null : bytes(before), after === '' ? null : bytes(after));
        const want = diffCounts(before, after);
        expect(got.added).toBeGreaterThanOrEqual(want.added);
        expect(got.removed).toBeGreaterThanOrEqual(want.removed);
        if (before === after) expect(got).toEqual({ added: 0, removed: 0 });
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(line, { maxLength: 4 }), fc.array(line, { maxLength: 4 }), fc.array(line, { maxLength: 8 }), (head, out, inn, tail) => {
        const before = [...head, ...out, ...tail].map((l) => `${l}\n`).join('');
        const after = [...head, ...inn, ...tail].map((l) => `${l}\n`).join('');
        const got = countChangedLines(bytes(before), bytes(after));
        expect(got.added + got.removed).toBeLessThanOrEqual(Math.max(1, out.length) + Math.max(1, inn.length));
        if (before !== after) expect(got.added + got.removed).toBeGreaterThanOrEqual(Object.values(diffCounts(before, after)).reduce((x, y) => x + y, 0));
      }),
      { numRuns: 2000 },
    );
  });
});
