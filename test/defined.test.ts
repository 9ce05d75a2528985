import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defined } from '../src/defined.js';

describe('defined (optional fields under exactOptionalPropertyTypes)', () => {
  it('leaves out exactly the keys whose value is undefined, and keeps every defined value (falsy ones too)', () => {
    expect(defined({ a: undefined, b: '', c: 0, d: false, e: null, f: 'x' })).toEqual({ b: '', c: 0, d: false, e: null, f: 'x' });
    expect(Object.keys(defined({ a: undefined }))).toEqual([]);
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.option(fc.anything(), { nil: undefined })), (fields) => {
        const out = defined(fields) as Record<string, unknown>;
        expect(Object.keys(out).sort()).toEqual(
          Object.keys(fields)
            .filter((k) => fields[k] !== undefined)
            .sort(),
        );
        for (const k of Object.keys(out)) expect(out[k]).toBe(fields[k]);
      }),
    );
  });
});
