import { describe, expect, it } from 'vitest';
import { applyHunks, checkDeletion, OFFSET_WINDOW } from '../../src/edit/hunks.js';
import type { Hunk, PatchRequest } from '../../src/edit/types.js';
import { parseApplyPatch, parseUnifiedDiff } from '../../src/formats/index.js';

const file = (n: number, f: (i: number) => string = (i) => `line ${i}`): string => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';
const patch = (hunks: Hunk[]): PatchRequest => ({ action: 'patch', path: 'f.txt', hunks });
const udiff = (text: string): PatchRequest => {
  const r = parseUnifiedDiff(text).requests[0];
  if (r?.action !== 'patch') throw new Error('not a patch');
  return r;
};

describe('tolerant mode: line numbers that are off', () => {
  const text = file(50);
  const hunk = (oldStart: number): PatchRequest => udiff(`--- a/f\n+++ b/f\n@@ -${oldStart},3 +${oldStart},3 @@\n line 20\n-line 21\n+LINE 21\n line 22\n`);
  it('applies at the claimed line when it matches (strategy exact)', () => {
    const r = applyHunks(text, hunk(20), { strict: false });
    expect(r).toMatchObject({ strategy: 'exact', line: 20, notes: [] });
    expect(r.text).toBe(text.replace('line 21\n', 'LINE 21\n'));
  });
  it('searches outward and reports the offset used (strategy offset)', () => {
    const r = applyHunks(text, hunk(27), { strict: false });
    expect(r.strategy).toBe('offset');
    expect(r.notes.join(' ')).toMatch(/applied at line 20 \(offset -7 lines\)/);
    expect(r.text).toBe(text.replace('line 21\n', 'LINE 21\n'));
  });
  it('searches the whole file when the context is further away than the window, and reports the offset', () => {
    const long = file(OFFSET_WINDOW + 100);
    const r = applyHunks(long, hunk(OFFSET_WINDOW + 60), { strict: false });
    expect(r.text).toBe(long.replace('line 21\n', 'LINE 21\n'));
    expect(r.notes.join(' ')).toMatch(/applied at line 20 \(offset -10\d\d lines\)/);
  });
  it('a refusal names the closest place in the whole file', () => {
    const long = file(3000);
    const p = udiff('--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n line 2500\n-line 2501 changed\n+LINE\n line 2502\n');
    expect(() => applyHunks(long, p, { strict: false })).toThrow(/closest text starts at line 2500; line 2501 differs/);
  });
  it('never picks between two equally possible places (E_AMBIGUOUS)', () => {
    const repeated = file(40, (i) => (i % 10 === 5 ? 'x' : i % 10 === 6 ? 'y' : `l${i}`));
    const p = udiff('--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n x\n-y\n+Y\n');
    expect(() => applyHunks(repeated, p, { strict: false })).toThrow(expect.objectContaining({ code: 'E_AMBIGUOUS' }));
  });
  it('says which line differs when nothing matches', () => {
    const p = udiff('--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n line 3\n-line four\n+x\n');
    expect(() => applyHunks(file(10), p, { strict: false })).toThrow(/At line 4 the file has "line 4" where the hunk expects "line four"/);
  });
});

describe('tolerant mode: whitespace drift in context lines', () => {
  const text = 'function f() {\n    const a = 1;   \n    return a;\n}\n';
  it("matches after ignoring trailing whitespace and keeps the file's own context lines", () => {
    const p = udiff('--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n     const a = 1;\n-    return a;\n+    return a + 1;\n');
    const r = applyHunks(text, p, { strict: false });
    expect(r.strategy).toBe('trailing-whitespace');
    expect(r.text).toBe('function f() {\n    const a = 1;   \n    return a + 1;\n}\n');
  });
  it('matches after ignoring indentation, then typographic punctuation', () => {
    const p = udiff('--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n const a = 1;\n-return a;\n+    return 2;\n');
    expect(applyHunks(text, p, { strict: false }).strategy).toBe('surrounding-whitespace');
    const quoted = 'say("it’s — fine")\n';
    const q = udiff('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-say("it\'s - fine")\n+say("ok")\n');
    expect(applyHunks(quoted, q, { strict: false })).toMatchObject({ strategy: 'unicode', text: 'say("ok")\n' });
  });
  it('strict mode refuses the same drift', () => {
    const p = udiff('--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n     const a = 1;\n-    return a;\n+    return a + 1;\n');
    expect(() => applyHunks(text, p, { strict: true })).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND' }));
  });
});

describe('strict mode follows git apply', () => {
  it('finds a hunk whose numbers are off by searching the whole file, exact lines only', () => {
    const text = file(300);
    const p = udiff('--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n line 200\n-line 201\n+X\n line 202\n');
    expect(applyHunks(text, p, { strict: true }).line).toBe(200);
  });
  it('a hunk without trailing context must end the file; one starting at line 1 must start it', () => {
    const end = udiff('--- a/f\n+++ b/f\n@@ -3,2 +3,1 @@\n line 3\n-line 4\n');
    expect(() => applyHunks(file(6), end, { strict: true })).toThrow(/must match at the end/);
    expect(applyHunks(file(4), end, { strict: true }).text).toBe(file(3));
  });
  it('the no-newline state of the last line must agree', () => {
    const p = udiff('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+x\n');
    expect(() => applyHunks('line 1\nline 2', p, { strict: true })).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND' }));
    // Tolerant mode forgives it and ends the file as the patch's new side says.
    const r = applyHunks('line 1\nline 2', p, { strict: false });
    expect(r.text).toBe('line 1\nx\n');
    expect(r.notes.join(' ')).toMatch(/newline at the end of the file/);
  });
});

describe('apply_patch hunks (no line numbers)', () => {
  const request = (text: string): PatchRequest => {
    const r = parseApplyPatch(text).requests[0];
    if (r?.action !== 'patch') throw new Error('not a patch');
    return r;
  };
  const source = 'class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n';
  it('uses @@ anchors to choose between repeated blocks', () => {
    const r = applyHunks(source, request('*** Begin Patch\n*** Update File: s.py\n@@ class B:\n     def f(self):\n-        return 1\n+        return 2\n*** End Patch'), { strict: false });
    expect(r.text).toBe(source.replace(/return 1\n$/, 'return 2\n'));
    expect(r.line).toBe(6);
  });
  it('refuses a chunk that matches twice without an anchor', () => {
    expect(() => applyHunks(source, request('*** Begin Patch\n*** Update File: s.py\n@@\n     def f(self):\n-        return 1\n+        return 2\n*** End Patch'), { strict: false })).toThrow(
      expect.objectContaining({ code: 'E_AMBIGUOUS' }),
    );
  });
  it('End of File pins the chunk to the end; additions alone go after the anchor', () => {
    const eof = request('*** Begin Patch\n*** Update File: s.py\n@@\n-        return 1\n+        return 3\n*** End of File\n*** End Patch');
    expect(applyHunks(source, eof, { strict: false }).text.endsWith('return 3\n')).toBe(true);
    const add = request('*** Begin Patch\n*** Update File: s.py\n@@ class B:\n+    x = 1\n*** End Patch');
    expect(applyHunks(source, add, { strict: false }).text).toContain('class B:\n    x = 1\n    def f');
  });
});

describe('deletions are checked against the file', () => {
  const hunks: Hunk[] = [
    {
      oldStart: 1,
      lines: [
        { kind: '-', text: 'a' },
        { kind: '-', text: 'b' },
      ],
    },
  ];
  it('accepts hunks that remove every line, refuses hunks that leave lines behind', () => {
    expect(() => checkDeletion('a\nb\n', 'f', hunks, { strict: true })).not.toThrow();
    expect(() => checkDeletion('a\nb\nc\n', 'f', hunks, { strict: false })).toThrow(/do not cover the whole file/);
  });
  it('a pure rename (no hunks) keeps the text', () => {
    expect(applyHunks('x\n', patch([]), { strict: true }).text).toBe('x\n');
  });
});
