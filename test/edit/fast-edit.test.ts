import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tryFastExactEdit } from '../../src/edit/fast-edit.js';
import { planFile } from '../../src/edit/engine.js';
import { decodeText } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS, type EditRequest } from '../../src/edit/types.js';

function concat(bytes: Uint8Array | readonly Uint8Array[] | undefined): Buffer {
  if (bytes === undefined) return Buffer.alloc(0);
  return Array.isArray(bytes) ? Buffer.concat(bytes as Uint8Array[]) : Buffer.from(bytes as Uint8Array);
}

const options = { ...DEFAULT_EDIT_OPTIONS, mode: 0o100644 };

/** The byte fast path must give exactly what the general engine gives, or step aside. */
function agree(fileBytes: Buffer, request: EditRequest): 'fast' | 'general' {
  const fast = tryFastExactEdit('f.txt', fileBytes, [request], options, {});
  if (fast === null) return 'general';
  const general = planFile('f.txt', decodeText(fileBytes), [request], options, {});
  expect(general.ok).toBe(true);
  expect(concat(fast.afterBytes).equals(concat(general.afterBytes))).toBe(true);
  expect(fast.diff).toBe(general.diff);
  expect(fast.added).toBe(general.added);
  expect(fast.removed).toBe(general.removed);
  expect(fast.steps[0]?.applied).toEqual(general.steps[0]?.applied);
  return 'fast';
}

const line = fc.stringMatching(/^[a-z {}();=é]{0,12}$/);

describe('the byte fast path agrees with the general engine', () => {
  it('on random LF files and unique anchors (property)', () => {
    let fastCount = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), fc.boolean(), fc.boolean(), fc.nat(), fc.nat(), fc.string({ maxLength: 20 }), (lines, finalNewline, bom, a, len, replacement) => {
        const text = lines.join('\n') + (finalNewline ? '\n' : '');
        const body = Buffer.from(text, 'utf8');
        const bytes = bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
        if (text.length === 0) return;
        const start = a % text.length;
        const oldText = text.slice(start, start + 1 + (len % 30));
        if (oldText.length === 0) return;
        const request: EditRequest = { path: 'f.txt', action: 'edit', oldText, newText: replacement.replace(/\r/g, '') };
        if (agree(bytes, request) === 'fast') fastCount++;
      }),
      { numRuns: 600 },
    );
    // The property must have exercised the fast path, not only stepped aside.
    expect(fastCount).toBeGreaterThan(50);
  });

  it('steps aside for CRLF files, several matches, missing text and the large-deletion guard', () => {
    const req = (oldText: string, newText: string, force = false): EditRequest => ({ path: 'f.txt', action: 'edit', oldText, newText, ...(force ? { force } : {}) });
    expect(tryFastExactEdit('f.txt', Buffer.from('a\r\nb\r\n'), [req('a', 'x')], options, {})).toBeNull();
    expect(tryFastExactEdit('f.txt', Buffer.from('a\na\n'), [req('a', 'x')], options, {})).toBeNull();
    expect(tryFastExactEdit('f.txt', Buffer.from('a\nb\n'), [req('zz', 'x')], options, {})).toBeNull();
    const big = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n') + '\n';
    const all = big.split('\n').slice(2, 29).join('\n');
    expect(tryFastExactEdit('f.txt', Buffer.from(big), [req(all, '')], options, {})).toBeNull();
    expect(tryFastExactEdit('f.txt', Buffer.from(big), [req(all, '', true)], options, {})).not.toBeNull();
    expect(tryFastExactEdit('f.txt', Buffer.from('a\n'), [req('a', 'b')], options, { newSyntaxErrors: () => [], syntaxPolicy: 'refuse' })).toBeNull();
  });

  it('writes pieces that join to the edited file', () => {
    const plan = tryFastExactEdit('f.txt', Buffer.from('one\ntwo\nthree\n'), [{ path: 'f.txt', action: 'edit', oldText: 'two', newText: '2' }], options, {});
    expect(concat(plan?.afterBytes).toString()).toBe('one\n2\nthree\n');
    expect(plan?.after?.text).toBe('one\n2\nthree\n');
  });
});
