import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendAll, greatestOf, leastOf, prependAll } from '../src/arrays.js';
import { mdFence } from '../src/report/markdown.js';

/** More items than V8 lets a spread pass as the arguments of one call (~120,000 here). */
const MANY = 300_000;

describe('src/arrays.ts: lists of any length', () => {
  it('equals the spread form wherever the spread form works (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.array(fc.integer()), (target, items) => {
        const spread = [...target];
        spread.push(...items);
        const joined = [...target];
        expect(appendAll(joined, items)).toBe(joined);
        expect(joined).toEqual(spread);
        const front = [...target];
        front.unshift(...items);
        const prepended = [...target];
        expect(prependAll(prepended, items)).toBe(prepended);
        expect(prepended).toEqual(front);
        expect(leastOf(items)).toBe(Math.min(...items));
        expect(greatestOf(items)).toBe(Math.max(...items));
      }),
    );
    expect(leastOf([1, Number.NaN])).toBeNaN();
    expect(greatestOf([])).toBe(Number.NEGATIVE_INFINITY);
  });

  it(`takes ${MANY.toLocaleString('en')} items, where the spread form throws RangeError`, () => {
    const items = Array.from({ length: MANY }, (_, i) => i);
    expect(() => [].push(...(items as never[]))).toThrow(RangeError);
    expect(appendAll([-1], items)).toHaveLength(MANY + 1);
    expect(prependAll([MANY], items).at(-1)).toBe(MANY);
    expect(leastOf(items)).toBe(0);
    expect(greatestOf(items)).toBe(MANY - 1);
  });

  it('a report fence over a text with that many backtick runs is made (it threw before: Math.max over every run)', () => {
    const text = '`x'.repeat(MANY);
    const fence = mdFence(text);
    const opener = /^(`{3,}|~{3,})/.exec(fence)?.[1] ?? '';
    expect(opener.length).toBeGreaterThanOrEqual(3);
    expect(text.includes(opener)).toBe(false);
    expect(fence).toContain(text);
  });
});
