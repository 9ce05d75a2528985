import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, HEAD_BYTES, sniffRequestId } from '../../src/mcp/stdio-framing.js';

/** Feeds `bytes` in the given chunk sizes. */
function feed(reader: FrameReader, bytes: Buffer, cuts: number[]): ReturnType<FrameReader['push']> {
  const out: ReturnType<FrameReader['push']> = [];
  let at = 0;
  for (const cut of cuts) {
    if (at >= bytes.length) break;
    out.push(...reader.push(bytes.subarray(at, at + cut)));
    at += cut;
  }
  if (at < bytes.length) out.push(...reader.push(bytes.subarray(at)));
  return out;
}

describe('FrameReader', () => {
  it('property: any chunking of lines under the cap gives exactly the lines', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/\n/g, ' ')),
          { maxLength: 12 },
        ),
        fc.array(fc.integer({ min: 1, max: 17 }), { maxLength: 60 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
          const frames = feed(new FrameReader(1000), bytes, cuts);
          expect(frames).toEqual(lines.map((l) => ({ kind: 'line', text: l.endsWith('\r') ? l.slice(0, -1) : l })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a frame over the cap becomes one oversize frame with its head; the frames around it are intact', () => {
    fc.assert(
      fc.property(fc.integer({ min: 11, max: 5000 }), fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 40 }), (length, cuts) => {
        const big = `{"id":${length},"x":"${'y'.repeat(length)}"}`;
        const bytes = Buffer.from(`before\n${big}\nafter\n`, 'utf8');
        const frames = feed(new FrameReader(10), bytes, cuts);
        expect(frames).toHaveLength(3);
        expect(frames[0]).toEqual({ kind: 'line', text: 'before' });
        expect(frames[1]).toEqual({ kind: 'oversize', bytes: big.length, head: big.slice(0, HEAD_BYTES) });
        expect(frames[2]).toEqual({ kind: 'line', text: 'after' });
      }),
      { numRuns: 200 },
    );
  });
});

describe('sniffRequestId', () => {
  const id = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 12 }));
  const other = fc.dictionary(
    fc.string({ maxLength: 6 }).filter((k) => k !== 'id'),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  );

  it('property: finds the top-level id wherever it stands, never an id nested in another member', () => {
    fc.assert(
      fc.property(id, other, other, (value, before, after) => {
        const text = `{${[...Object.entries(before).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify({ id: 'nested', v })}`), `"id":${JSON.stringify(value)}`, ...Object.entries(after).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)].join(',')}}`;
        expect(sniffRequestId(text)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('property: on a text cut anywhere it returns the right id or null, never a wrong one', () => {
    fc.assert(
      fc.property(id, other, fc.nat(), (value, before, cut) => {
        const text = JSON.stringify({ ...before, id: value, params: { id: 'nested' } });
        const got = sniffRequestId(text.slice(0, cut % (text.length + 1)));
        expect(got === null || got === value).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
