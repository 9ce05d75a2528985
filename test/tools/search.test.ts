import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { searchFiles, type SearchQuery } from '../../src/tools/search.js';

let root: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-search-')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const query = (pattern: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  pattern, regex: false, caseSensitive: true, start: '', globs: [], maxResults: 100_000, maxFileBytes: 10 * 1024 * 1024, ...over,
});

/** The obvious per-line search, as grep -n does it. */
function reference(text: string, needle: string): Array<{ line: number; text: string }> {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.flatMap((l, i) => (l.includes(needle) ? [{ line: i + 1, text: l }] : []));
}

describe('literal search finds exactly the lines grep would (property)', () => {
  it('over random texts and needles, including ones made of common bytes', () => {
    const alphabet = fc.constantFrom('a', 'b', 'e', ' ', '\n', '_', '7', 'é', 'x');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 400 }), fc.array(alphabet.filter((c) => c !== '\n'), { minLength: 1, maxLength: 4 }), (chars, needleChars) => {
        const text = chars.join('');
        const needle = needleChars.join('');
        fs.writeFileSync(path.join(root, 'f.txt'), text);
        const got = searchFiles(root, query(needle)).matches.map((m) => ({ line: m.line, text: m.text }));
        expect(got).toEqual(reference(text, needle));
      }),
      { numRuns: 300 },
    );
  });
});

describe('search limits', () => {
  it('stops at maxResults and says so', () => {
    fs.writeFileSync(path.join(root, 'f.txt'), 'hit\n'.repeat(50));
    const out = searchFiles(root, query('hit', { maxResults: 10 }));
    expect(out.matches).toHaveLength(10);
    expect(out.truncated).toBe(true);
  });

  it('skips files over the size limit and counts them', () => {
    fs.writeFileSync(path.join(root, 'f.txt'), `${'x'.repeat(2000)}hit\n`);
    const out = searchFiles(root, query('hit', { maxFileBytes: 1000 }));
    expect(out.matches).toHaveLength(0);
    expect(out.skippedLarge).toBe(1);
  });

  it('finds matches in files larger than the read buffer', () => {
    fs.writeFileSync(path.join(root, 'f.txt'), `${'a\n'.repeat(200_000)}needle here\n`);
    const out = searchFiles(root, query('needle'));
    expect(out.matches).toEqual([{ path: 'f.txt', line: 200_001, text: 'needle here' }]);
  });

  it('cuts very long lines in the result', () => {
    fs.writeFileSync(path.join(root, 'f.txt'), `${'y'.repeat(5000)}hit\n`);
    const out = searchFiles(root, query('hit'));
    expect(out.matches[0]?.text.length).toBeLessThanOrEqual(301);
  });
});

describe('the threaded search (compiled build) returns exactly what the one-thread search does', () => {
  it('on a 5,000-file tree, in walk order, and stops at maxResults the same way', async () => {
    const dist = path.resolve(__dirname, '../../dist/tools/search.js');
    if (!fs.existsSync(dist)) throw new Error('run `npm run build` first: the worker threads load compiled code');
    const mod = (await import(dist)) as typeof import('../../src/tools/search.js');
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-search-par-'));
    try {
      for (let i = 0; i < 5000; i++) {
        const dir = path.join(tree, `d${i % 37}`);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, `f${i}.txt`), i % 9 === 0 ? `x\nhit ${i}\nhit again\n` : 'nothing\n');
      }
      const one = mod.searchFiles(tree, query('hit'));
      const par = await mod.searchFilesParallel(tree, query('hit'), 2);
      expect(par.matches).toEqual(one.matches);
      expect(par.filesSearched).toBe(5000);
      const cut = await mod.searchFilesParallel(tree, query('hit', { maxResults: 7 }), 2);
      expect(cut.matches).toEqual(one.matches.slice(0, 7));
      expect(cut.truncated).toBe(true);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});
