/**
 * The five reply formats' parsers on hand-written replies. The cases that are
 * a reply and what it parses to are data: test/fixtures/formats (run by
 * test/formats/format-cases.test.ts); here are the rest (streaming, JSON
 * element errors, directive details, the whole-request shapes).
 */
import { describe, expect, it } from 'vitest';
import { ActiveEditStreamParser, parseActiveEdit, parseApplyPatch, parseJson, parseSearchReplace, parseUnifiedDiff, unquoteGitPath } from '../../src/formats/index.js';

const codes = (r: { errors: { error: { code: string } }[] }): string[] => r.errors.map((e) => e.error.code);

describe('JSON tool arguments', () => {
  it('reads one request with the aliases filename and content', () => {
    const r = parseJson('{"filename": "a.ts", "mode": "create", "content": "x\\n"}');
    expect(r.errors).toEqual([]);
    expect(r.requests).toMatchObject([{ action: 'create', path: 'a.ts', content: 'x\n', source: { format: 'json', index: 0, line: 1 } }]);
  });
  it('defaults mode to edit and maps old_text/new_text', () => {
    expect(parseJson('{"file_path": "a", "old_text": "x", "new_text": "y"}').requests).toMatchObject([{ action: 'edit', path: 'a', oldText: 'x', newText: 'y' }]);
  });
  it('refuses an unknown field with E_PARSE naming it, and a wrong type naming the field', () => {
    const unknown = parseJson('{"path": "a", "old_txt": "x", "new_text": "y"}');
    expect(codes(unknown)).toEqual(['E_PARSE']);
    expect(unknown.errors[0]?.error.message).toContain('old_txt');
    const wrong = parseJson('{"path": "a", "old_text": 3, "new_text": "y"}');
    expect(wrong.errors[0]?.error.message).toContain('old_text');
  });
  it('reports a bad element of an array with its index and line, and keeps the others', () => {
    const text = '[\n  {"path": "a", "old_text": "x", "new_text": "y"},\n  {"path": 5},\n  {"path": "c", "mode": "append", "content": "z"}\n]';
    const r = parseJson(text);
    expect(r.requests.map((q) => [q.path, q.source?.index, q.source?.line])).toEqual([
      ['a', 0, 2],
      ['c', 2, 4],
    ]);
    expect(r.errors).toMatchObject([{ index: 1, line: 3 }]);
    expect(r.errors[0]?.error.line).toBe(3);
  });
  it('reports invalid JSON with the line where parsing stopped', () => {
    const r = parseJson('[\n{"path": "a",\n "old_text": }\n]');
    expect(codes(r)).toEqual(['E_PARSE']);
    expect(r.errors[0]?.line).toBe(3);
  });
});

describe('active edit directives', () => {
  const reply = [
    'I will change two files.',
    '---BEGIN---',
    'Edit: src/a.ts',
    'action: replace',
    '---START---',
    'export const a = 1;',
    '---END---',
    'Then the class:',
    '---BEGIN---',
    'Edit: src/b.ts',
    'ast-path: Shapes-Circle-area',
    'action: replace',
    '---START---',
    'area() { return 2; }',
    '---END---',
  ].join('\n');

  it('parses several directives mixed with prose; replace is a whole-file write, ast-path an ast request', () => {
    const r = parseActiveEdit(reply, { fileExists: () => true });
    expect(r.errors).toEqual([]);
    expect(r.requests).toEqual([
      { action: 'overwrite', path: 'src/a.ts', content: 'export const a = 1;\n', source: { format: 'active-edit', index: 0, line: 2 } },
      { action: 'ast', path: 'src/b.ts', astPath: 'Shapes-Circle-area', astAction: 'replace', content: 'area() { return 2; }\n', source: { format: 'active-edit', index: 1, line: 9 } },
    ]);
  });
  it('replace on a missing file creates it; append and prepend go to the end and the start', () => {
    const text = (action: string): string => `---BEGIN---\nEdit: n.txt\naction: ${action}\n---START---\nhi\n---END---\n`;
    expect(parseActiveEdit(text('replace')).requests[0]?.action).toBe('create');
    expect(parseActiveEdit(text('append')).requests[0]).toMatchObject({ action: 'append', content: 'hi\n' });
    expect(parseActiveEdit(text('prepend')).requests[0]).toMatchObject({ action: 'prepend', content: 'hi\n' });
  });
  it('refuses remove without an ast-path (it needs a target)', () => {
    const r = parseActiveEdit('---BEGIN---\nEdit: a\naction: remove\n---START---\n---END---\n');
    expect(codes(r)).toEqual(['E_PARSE']);
    expect(r.errors[0]?.error.message).toMatch(/remove needs a target/);
  });
  it('reports each malformed directive with its index and line while the others go ahead', () => {
    const text = [
      '---BEGIN---', // 1: no Edit
      'action: replace',
      '---START---',
      'x',
      '---END---',
      '---BEGIN---', // 6: unknown action
      'Edit: b',
      'action: explode',
      '---START---',
      'x',
      '---END---',
      '---BEGIN---', // 12: good
      'Edit: c',
      'action: append',
      '---START---',
      'ok',
      '---END---',
      '---BEGIN---', // 18: empty code
      'Edit: d',
      'action: replace',
      '---START---',
      '---END---',
      '---BEGIN---', // 23: no START before the next BEGIN
      'Edit: e',
      'action: replace',
      '---BEGIN---', // 26: no action, no END
      'Edit: f',
      '---START---',
      'x',
    ].join('\n');
    const r = parseActiveEdit(text);
    expect(r.requests.map((q) => [q.path, q.source?.index])).toEqual([['c', 2]]);
    expect(r.errors.map((e) => [e.index, e.line])).toEqual([
      [0, 1],
      [1, 6],
      [3, 18],
      [4, 23],
      [5, 26],
    ]);
    expect(r.errors.map((e) => e.error.message)).toEqual([
      expect.stringContaining('no "Edit: PATH"'),
      expect.stringContaining('unknown action "explode"'),
      expect.stringContaining('no code'),
      expect.stringContaining('no ---START---'),
      expect.stringContaining('no ---END---'),
    ]);
  });
  it('the streaming parser emits a directive as soon as its END line arrives', () => {
    const parser = new ActiveEditStreamParser();
    expect(parser.push('---BEGIN---\nEdit: a\naction: append\n---START---\nx\n---EN')).toEqual([]);
    const events = parser.push('D---\nmore prose');
    expect(events).toMatchObject([{ kind: 'request', request: { action: 'append', path: 'a', content: 'x\n' } }]);
    expect(parser.push('\n---BEGIN---\nEdit: b\n')).toEqual([]);
    expect(parser.end()).toMatchObject([{ kind: 'error', error: { index: 1, line: 8 } }]);
  });
  it('keeps a missing final newline when the code ends with the no-newline marker', () => {
    const r = parseActiveEdit('---BEGIN---\nEdit: a\naction: replace\n---START---\nx\n\\ No newline at end of file\n---END---');
    expect(r.requests[0]).toMatchObject({ content: 'x' });
  });
});

describe('SEARCH/REPLACE blocks', () => {
  it('reads the path above the fence and the whole lines of SEARCH and REPLACE', () => {
    const text = 'Change it:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\ndef f():\n    return 2\n>>>>>>> REPLACE\n```\n';
    const r = parseSearchReplace(text);
    expect(r.errors).toEqual([]);
    expect(r.requests).toEqual([{ action: 'edit', path: 'src/app.py', oldText: 'def f():\n    return 1\n', newText: 'def f():\n    return 2\n', wholeLines: true, source: { format: 'search-replace', index: 0, line: 5 } }]);
  });
});

describe('apply_patch envelopes', () => {
  it('parses add, delete and update with move, anchors and end of file', () => {
    const text = [
      "apply_patch <<'EOF'",
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+# New',
      '+',
      '*** Delete File: old.txt',
      '*** Update File: src/a.py',
      '*** Move to: src/b.py',
      '@@ class A',
      '@@ def f(self):',
      '-    return 1',
      '+    return 2',
      '@@',
      ' last',
      '+tail',
      '*** End of File',
      '*** End Patch',
      'EOF',
    ].join('\n');
    const r = parseApplyPatch(text);
    expect(r.errors).toEqual([]);
    expect(r.requests).toEqual([
      { action: 'create', path: 'docs/new.md', content: '# New\n\n', source: { format: 'apply-patch', index: 0, line: 3 } },
      { action: 'delete', path: 'old.txt', source: { format: 'apply-patch', index: 1, line: 6 } },
      {
        action: 'patch',
        path: 'src/a.py',
        moveTo: 'src/b.py',
        hunks: [
          {
            lines: [
              { kind: '-', text: '    return 1' },
              { kind: '+', text: '    return 2' },
            ],
            anchors: ['class A', 'def f(self):'],
            patchLine: 9,
          },
          {
            lines: [
              { kind: ' ', text: 'last' },
              { kind: '+', text: 'tail' },
            ],
            patchLine: 13,
            atEof: true,
          },
        ],
        source: { format: 'apply-patch', index: 2, line: 7 },
      },
    ]);
  });
});

describe('unified diffs', () => {
  it('reads new, deleted and renamed files from git headers', () => {
    const text = [
      'diff --git a/n.txt b/n.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/n.txt',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
      '\\ No newline at end of file',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/old name.txt b/new name.txt',
      'similarity index 90%',
      'rename from old name.txt',
      'rename to new name.txt',
      '--- a/old name.txt',
      '+++ b/new name.txt',
      '@@ -2,1 +2,1 @@',
      '-x',
      '+y',
    ].join('\n');
    const r = parseUnifiedDiff(text);
    expect(r.errors).toEqual([]);
    expect(r.requests).toMatchObject([
      { action: 'create', path: 'n.txt', content: 'one\ntwo' },
      { action: 'delete', path: 'gone.txt', hunks: [{ oldStart: 1, lines: [{ kind: '-', text: 'bye' }] }] },
      { action: 'patch', path: 'old name.txt', moveTo: 'new name.txt', hunks: [{ oldStart: 2, patchLine: 21 }] },
    ]);
  });
  it('sets the no-newline flags on the side the marker follows', () => {
    const r = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n');
    expect(r.requests[0]).toMatchObject({ hunks: [{ oldNoEol: true }] });
    expect((r.requests[0] as { hunks: { newNoEol?: boolean }[] }).hunks[0]?.newNoEol).toBeUndefined();
  });
  it('accepts hunks without numbers (@@ ... @@), which are located by context alone', () => {
    const r = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ ... @@\n ctx\n-a\n+b\n\nThat is all.\n');
    expect(r.requests).toMatchObject([{ action: 'patch', hunks: [{ lines: [{ kind: ' ' }, { kind: '-' }, { kind: '+' }] }] }]);
    expect((r.requests[0] as { hunks: { oldStart?: number }[] }).hunks[0]?.oldStart).toBeUndefined();
  });
  it('unquotes git C-style paths', () => {
    expect(unquoteGitPath('"a/t\\303\\251st\\tx.txt"')).toBe('a/tést\tx.txt');
  });
});
