/**
 * Never apply part of a diff: a hunk whose body runs past its header's counts
 * is read whole (tolerant, with a note) or refused naming the line (strict);
 * a hunk no file header introduces is refused, never skipped as prose.
 */
import fs from 'node:fs';
import { openWorkspace } from '../../src/workspace/open.js';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { applyHunks } from '../../src/edit/hunks.js';
import type { PatchRequest } from '../../src/edit/types.js';
import { parseUnifiedDiff } from '../../src/formats/index.js';

const FILE = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n';
/** The minimal case: the first hunk's body has one line more than "-1,3 +1,3" says. */
const MISCOUNTED = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '+EXTRA', '@@ -8,3 +8,4 @@', ' h', '+NEW', ' i', ' j', ''].join('\n');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function only(text: string): PatchRequest {
  const parsed = parseUnifiedDiff(text);
  expect(parsed.errors).toEqual([]);
  const r = parsed.requests[0];
  if (parsed.requests.length !== 1 || r?.action !== 'patch') throw new Error('expected one patch');
  return r;
}

describe('a hunk body longer than its header', () => {
  it('tolerant: every line is applied, both hunks, and the result says it recounted', () => {
    const request = only(MISCOUNTED);
    expect(request.hunks).toHaveLength(2);
    const result = applyHunks(FILE, request, { strict: false });
    expect(result.text).toBe('a\nB\nc\nEXTRA\nd\ne\nf\ng\nh\nNEW\ni\nj\n');
    expect(result.notes.join('\n')).toMatch(/hunk 1 \(patch line 3\): its header promises 3 old and 3 new line\(s\), but its body has 3 and 4 .*recounted/);
  });

  it('strict: refused with E_PARSE naming the first line past the count', () => {
    expect(() => applyHunks(FILE, only(MISCOUNTED), { strict: true })).toThrow(expect.objectContaining({ code: 'E_PARSE', line: 8 }));
  });

  it('strict through applyReply: nothing written, the result names the line', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-miscount-'));
    dirs.push(root);
    fs.writeFileSync(path.join(root, 'f.txt'), FILE);
    const outcome = await applyReply(openWorkspace(root).ws, MISCOUNTED, { format: 'udiff', edit: { strict: true } });
    expect(outcome.ok).toBe(false);
    expect(outcome.results[0]?.error).toMatchObject({ code: 'E_PARSE', line: 8 });
    expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).toBe(FILE);
    const tolerant = await applyReply(openWorkspace(root).ws, MISCOUNTED, { format: 'udiff' });
    expect(tolerant.ok).toBe(true);
    expect(tolerant.results[0]?.notes?.join(' ')).toMatch(/recounted/);
    expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).toBe('a\nB\nc\nEXTRA\nd\ne\nf\ng\nh\nNEW\ni\nj\n');
  });

  it('extra lines after a blank line are ambiguous: refused in every mode, naming the line', () => {
    const text = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '', '+EXTRA', ' d', ''].join('\n');
    const parsed = parseUnifiedDiff(text);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors[0]?.error).toMatchObject({ code: 'E_PARSE', line: 9 });
  });

  it('blank lines after a complete hunk, then prose, are separators', () => {
    const text = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '', 'That is all.', ''].join('\n');
    const request = only(text);
    expect(request.hunks[0]?.recount).toBeUndefined();
    expect(applyHunks(FILE, request, { strict: true }).text).toBe(FILE.replace('b\n', 'B\n'));
  });

  it('blank lines between two hunks of one file separate them: both apply', () => {
    const text = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '', '@@ -8,3 +8,3 @@', ' h', '-i', '+I', ' j', ''].join('\n');
    expect(applyHunks(FILE, only(text), { strict: true }).text).toBe(FILE.replace('b\n', 'B\n').replace('i\n', 'I\n'));
  });
});

describe('a hunk that belongs to no file', () => {
  it('is an item error, never prose', () => {
    const text = ['Here is the change:', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', ''].join('\n');
    const parsed = parseUnifiedDiff(text);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors[0]?.error).toMatchObject({ code: 'E_PARSE', line: 2 });
    expect(parsed.errors[0]?.error.message).toMatch(/belongs to no file/);
  });
  it('after a file patch that prose ended, it is refused and the file patch before it stays', () => {
    const text = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', 'and then', '@@ -8,3 +8,3 @@', ' h', '-i', '+I', ' j', ''].join('\n');
    const parsed = parseUnifiedDiff(text);
    expect(parsed.requests).toHaveLength(1);
    expect(parsed.errors.map((e) => e.line)).toEqual([9]);
  });
  // Found by every-line-accounted's random seed (CI, 2026-11-27): a bare "@@" after prose was read as prose and
  // its "-i"/"+I" silently dropped, while the file patch before it applied.
  it.each([['@@'], ['@@ '], ['@@ def f():'], ['@@@ -8 +8 @@@']])('in any header shape (%j), bare or numbered, it is refused', (header) => {
    const text = ['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '*** End Patch', header, ' h', '-i', '+I', ' j', ''].join('\n');
    const parsed = parseUnifiedDiff(text);
    expect(parsed.requests).toHaveLength(1);
    expect(parsed.errors.map((e) => [e.line, e.fromLine])).toEqual([[9, 8]]);
    expect(parsed.errors[0]?.error.message).toMatch(/belongs to no file/);
  });
});
