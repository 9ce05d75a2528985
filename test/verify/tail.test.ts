import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { LineTail } from '../../src/verify/tail.js';

/** What the tail must equal: the last maxLines lines of the whole output, each cut at maxLineBytes. */
function expected(all: Buffer, maxLines: number, maxLineBytes: number): string[] {
  const text = all.toString('latin1');
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.slice(-maxLines).map((p) => {
    const bytes = Buffer.from(p, 'latin1');
    const kept = bytes.subarray(0, maxLineBytes);
    let s = new TextDecoder('utf-8', { fatal: false }).decode(kept);
    if (s.endsWith('\r')) s = s.slice(0, -1);
    return bytes.length > maxLineBytes ? `${s}… [${bytes.length - maxLineBytes} bytes cut]` : s;
  });
}

describe('LineTail keeps exactly the last lines, however the output is chunked', () => {
  test('property: equals the last N lines of the concatenated chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a.map((b) => (b % 7 === 0 ? 10 : b % 5 === 0 ? 0x61 : b)))),
          { maxLength: 30 },
        ),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        (chunks, maxLines, maxLineBytes) => {
          const tail = new LineTail({ maxLines, maxLineBytes });
          for (const c of chunks) tail.push(c);
          expect(tail.lines()).toEqual(expected(Buffer.concat(chunks), maxLines, maxLineBytes));
          expect(tail.bytes).toBe(chunks.reduce((n, c) => n + c.length, 0));
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a chunk with more lines than the tail holds replaces the older lines', () => {
    const tail = new LineTail({ maxLines: 3 });
    tail.push(Buffer.from('old1\nold2\npartial-'));
    tail.push(Buffer.from('done\na\nb\nc\nd\n'));
    expect(tail.lines()).toEqual(['b', 'c', 'd']);
  });

  test('lastLine shows what a progress bar redrew last', () => {
    const tail = new LineTail();
    tail.push(Buffer.from('compiling\n[ 10%]\r[ 50%]\r[ 90%]\r'));
    expect(tail.lastLine()).toBe('[ 90%]');
  });
});
