/**
 * SEARCH/REPLACE as models really write it: every fence Aider and Cline
 * accept, Cline's markers, Aider's second divider, recovery at the next
 * block's own header, and no-op blocks that never abort the reply. The
 * fence table itself is data: test/fixtures/formats (format-cases.test.ts).
 */
import fs from 'node:fs';
import { openWorkspace } from '../../src/workspace/open.js';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { parseSearchReplace } from '../../src/formats/index.js';
import { isFenceOrMarker } from '../../src/formats/search-replace.js';

const block = (search: string, replace: string): string => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function project(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-sr-'));
  dirs.push(root);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return root;
}

describe('fences: every fence Aider and Cline accept, never a path', () => {
  it('an empty-SEARCH block under <source> with no path line creates no file named "<source>"', async () => {
    const text = `<source>\n${block('', 'hello\n')}</source>\n`;
    const parsed = parseSearchReplace(text);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors[0]?.error.message).toMatch(/names no file/);
    const root = project({});
    const outcome = await applyReply(openWorkspace(root).ws, text, { format: 'search-replace', partial: true });
    expect(outcome.ok).toBe(false);
    expect(fs.readdirSync(root).filter((f) => f !== '.editwarden')).toEqual([]);
  });

  it('property: no request ever names a fence or marker line as its file', () => {
    const decoration = fc.constantFrom('```', '```python', '<source>', '<source>python', '</source>', '~~~', '=======', '>>>>>>> REPLACE', '<code>', '####', '**', '`', '');
    fc.assert(
      fc.property(fc.array(decoration, { minLength: 1, maxLength: 4 }), fc.boolean(), (above, emptySearch) => {
        const parsed = parseSearchReplace(`${above.join('\n')}\n${block(emptySearch ? '' : 'a\n', 'b\n')}`);
        for (const r of parsed.requests) expect(isFenceOrMarker(r.path)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Cline's markers", () => {
  it('------- SEARCH / ======= / +++++++ REPLACE', () => {
    const parsed = parseSearchReplace('f.ts\n------- SEARCH\nlet a = 1;\n=======\nlet a = 2;\n+++++++ REPLACE\n');
    expect(parsed.requests).toEqual([expect.objectContaining({ path: 'f.ts', oldText: 'let a = 1;\n', newText: 'let a = 2;\n' })]);
  });
  it('markers with a trailing ">" and three characters', () => {
    const parsed = parseSearchReplace('f.ts\n<<< SEARCH>\nlet a = 1;\n=======\nlet a = 2;\n>>> REPLACE>\n');
    expect(parsed.requests).toEqual([expect.objectContaining({ path: 'f.ts', oldText: 'let a = 1;\n', newText: 'let a = 2;\n' })]);
  });
});

describe('a second ======= right before >>>>>>> REPLACE ends the replacement', () => {
  it('is not a line of the new text', () => {
    const parsed = parseSearchReplace('m.py\n<<<<<<< SEARCH\n    def gone(self):\n        pass\n=======\n=======\n>>>>>>> REPLACE\n');
    expect(parsed.requests).toEqual([expect.objectContaining({ path: 'm.py', oldText: '    def gone(self):\n        pass\n', newText: '' })]);
  });
});

describe('recovery after a malformed block', () => {
  it('the next well-formed block keeps its own file name', () => {
    const text = 'a.py\n```python\n<<<<<<< SEARCH\nbroken\n```\n\nb.py\n```python\n' + block('x\n', 'y\n') + '```\n';
    const parsed = parseSearchReplace(text);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatchObject({ path: 'a.py', line: 3 });
    expect(parsed.requests).toEqual([expect.objectContaining({ path: 'b.py', oldText: 'x\n', newText: 'y\n' })]);
  });
});

describe('a block whose SEARCH equals its REPLACE', () => {
  it('is a harmless no-op reported as such, and the other edits of the reply apply', async () => {
    const root = project({ 'a.py': 'one\ntwo\n', 'b.py': 'three\n' });
    const text = `a.py\n${block('one\n', 'one\n')}\nb.py\n${block('three\n', 'THREE\n')}`;
    const outcome = await applyReply(openWorkspace(root).ws, text, { format: 'search-replace' });
    expect(outcome.ok).toBe(true);
    expect(outcome.results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(outcome.results[0]?.notes?.[0]).toMatch(/^no-op/);
    expect(fs.readFileSync(path.join(root, 'b.py'), 'utf8')).toBe('THREE\n');
    expect(fs.readFileSync(path.join(root, 'a.py'), 'utf8')).toBe('one\ntwo\n');
  });
  it('the same rule through a unified diff and apply_patch (a hunk that changes nothing)', async () => {
    const root = project({ 'a.py': 'one\ntwo\n', 'b.py': 'three\n' });
    const diff = '--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n one\n two\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-three\n+THREE\n';
    expect((await applyReply(openWorkspace(root).ws, diff, { format: 'udiff' })).ok).toBe(true);
    const patch = '*** Begin Patch\n*** Update File: a.py\n@@\n one\n-two\n+two\n*** Update File: b.py\n@@\n-THREE\n+3\n*** End Patch\n';
    expect((await applyReply(openWorkspace(root).ws, patch, { format: 'apply-patch' })).ok).toBe(true);
    expect(fs.readFileSync(path.join(root, 'b.py'), 'utf8')).toBe('3\n');
  });
});

describe('a block whose own path line is mangled', () => {
  it("is refused, never applied to the previous block's file", () => {
    const text = `a.py\n${block('x\n', 'y\n')}\n**b.py** (new helper)\n${block('p\n', 'q\n')}`;
    const parsed = parseSearchReplace(text);
    expect(parsed.requests.map((r) => r.path)).toEqual(['a.py']);
    expect(parsed.errors[0]?.error.message).toMatch(/names no file/);
  });
});

describe("Roo Code's dialect: hints are metadata, escapes are content", () => {
  const roo = (body: string[]): string => ['<apply_diff>', '<path>a.md</path>', '<diff>', ...body, '</diff>', '</apply_diff>', ''].join('\n');

  it('a hint after content in SEARCH is refused, with where to move it', () => {
    const parsed = parseSearchReplace(roo(['<<<<<<< SEARCH', 'one', ':start_line:3', '=======', 'two', '>>>>>>> REPLACE']));
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors[0]?.error).toMatchObject({ code: 'E_PARSE', line: 6 });
    expect(parsed.errors[0]?.error.hint).toMatch(/Move ":start_line:3" up to the line right after "<<<<<<< SEARCH"/);
  });

  it('an escaped hint in REPLACE is content, written without its backslash', () => {
    const parsed = parseSearchReplace(roo(['<<<<<<< SEARCH', ':start_line:1', '-------', 'one', '=======', '\\:start_line:1', '>>>>>>> REPLACE']));
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests[0]).toMatchObject({ oldText: 'one\n', newText: ':start_line:1\n', lineHint: { start: 1 } });
  });

  it('outside the dialect only a line that is exactly a backslash and a whole marker line loses its backslash', () => {
    const aider = parseSearchReplace(['a.md', '```', '<<<<<<< SEARCH', '\\=======', '=======', '\\======= kept', '\\>>>>>>> REPLACE', '\\<<<<<<< HEAD', '\\<<< x', '>>>>>>> REPLACE', '```', ''].join('\n'));
    expect(aider.requests[0]).toMatchObject({ oldText: '=======\n', newText: '\\======= kept\n>>>>>>> REPLACE\n<<<<<<< HEAD\n\\<<< x\n' });
    expect(aider.requests[0]?.readAs?.[0]).toContain('escaped marker lines');
    expect(aider.requests[0]).not.toHaveProperty('lineHint');
    const spoken = parseSearchReplace(roo(['<<<<<<< SEARCH', '-------', '\\=======', '=======', '\\======= kept', '>>>>>>> REPLACE']));
    expect(spoken.requests[0]).toMatchObject({ oldText: '=======\n', newText: '======= kept\n' });
  });

  it('the separator alone (no hints) opens a Roo block, and a "-------" later in SEARCH is content', () => {
    const parsed = parseSearchReplace(roo(['<<<<<<< SEARCH', '-------', 'Title', '-------', '=======', 'Title', '=======', '>>>>>>> REPLACE']));
    expect(parsed.errors).toEqual([]);
    // Aider's rule: a second divider right before REPLACE ends the replacement.
    expect(parsed.requests[0]).toMatchObject({ oldText: 'Title\n-------\n', newText: 'Title\n' });
  });
});
