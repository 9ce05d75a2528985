import { beforeAll, describe, expect, it } from 'vitest';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';
import { syntaxError, textEdit } from '../../src/ast/syntax.js';
import { EditwardenError } from '../../src/errors.js';
import { fixture } from './helpers.js';

/** Languages with the syntax guard only: a valid text and a broken variant of it. */
const guardOnly: { file: string; valid: string; broken: string }[] = [
  { file: 'a.html', valid: '<div><p>hi</p></div>\n', broken: '<div><p>hi</p></div>\n</' },
  { file: 'a.vue', valid: '<template>\n  <div>{{ a }}</div>\n</template>\n', broken: '<template>\n  <div>{{ a }}</div>\n</templ' },
  { file: 'a.erb', valid: '<% if x %>a<% end %>\n', broken: '<% if x %>a<% end\n' },
  { file: 'a.m', valid: 'int main(void) { return 0; }\n', broken: 'int main(void) { return 0;\n' },
  { file: 'a.ml', valid: 'let x = 1\n', broken: 'let x = (1\n' },
  { file: 'a.res', valid: 'let x = 1\n', broken: 'let x = (1\n' },
  { file: 'a.sol', valid: 'contract A { function f() public {} }\n', broken: 'contract A { function f() public {}\n' },
  { file: 'a.tla', valid: '---- MODULE M ----\nx == 1\n====\n', broken: '---- MODULE M ----\nx == (1\n====\n' },
  { file: 'a.zig', valid: 'const x = 1;\n', broken: 'const x = (1;\n' },
  { file: 'a.el', valid: '(defun f () 1)\n', broken: '(defun f () 1\n' },
  { file: 'a.rdl', valid: 'addrmap top {\n  reg { field {} f; } r;\n};\n', broken: 'addrmap top {\n  reg { field {} f; } r;\n' },
];

let service: AstService;

beforeAll(async () => {
  service = await prepareAstHooks(['a.ts', 'a.py', 'a.go', 'a.rs', 'a.java', ...guardOnly.map((g) => g.file)], 'refuse');
});

describe('newSyntaxErrors reports only errors the edit introduced', () => {
  const ts = fixture('sample.ts');

  it('an edit that breaks a file yields the first new error with its line and snippet', () => {
    const broken = ts.replace('return `hi ${who}`;', 'return `hi ${who}`;\n    if (x {');
    const issues = service.newSyntaxErrors('a.ts', ts, broken);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.line).toBe(18);
    expect(issues[0]?.snippet).toContain('if (x {');
  });

  it('reports a MISSING token with what was expected', () => {
    const issues = service.newSyntaxErrors('a.go', null, 'package main\n\nfunc f() {\n\tx := []int{1, 2\n}\n');
    expect(issues.length).toBeGreaterThan(0);
  });

  it('an edit that leaves a clean file clean yields nothing', () => {
    expect(service.newSyntaxErrors('a.ts', ts, ts.replace('hi ', 'hello '))).toEqual([]);
  });

  it('a fix to an already broken file is allowed', () => {
    const broken = ts.replace('return a;', 'return (a;');
    expect(service.newSyntaxErrors('a.ts', null, broken).length).toBeGreaterThan(0);
    expect(service.newSyntaxErrors('a.ts', broken, ts)).toEqual([]);
  });

  it('an edit elsewhere in an already broken file is judged only on new errors', () => {
    const broken = ts.replace('return a;', 'return (a;');
    const edited = broken.replace('const inner = 1;', 'const inner = 2;');
    expect(service.newSyntaxErrors('a.ts', broken, edited)).toEqual([]);
    const worse = edited.replace('export default function main() {}', 'export default function main() {');
    expect(service.newSyntaxErrors('a.ts', broken, worse).length).toBeGreaterThan(0);
  });

  it('a new file is judged on all its errors', () => {
    expect(service.newSyntaxErrors('a.py', null, 'def f(:\n    pass\n').length).toBeGreaterThan(0);
    expect(service.newSyntaxErrors('a.py', null, 'def f():\n    pass\n')).toEqual([]);
  });

  it('files in languages without a grammar are never judged', () => {
    expect(service.newSyntaxErrors('notes.txt', 'a', '{{{')).toEqual([]);
    expect(service.newSyntaxErrors('x.nim', 'proc a() = discard', 'proc a( = discard')).toEqual([]);
  });

  it('the incremental path (tree kept from an AST request) agrees with a fresh parse', async () => {
    const java = fixture('Sample.java');
    const out = service.applyAst('Sample.java', java, { action: 'ast', path: 'Sample.java', astPath: 'Greeter-greet', astAction: 'replace', content: 'public String greet(String who) {\n    return who +;\n}' });
    const incremental = service.newSyntaxErrors('Sample.java', java, out.text);
    const fresh = (await prepareAstHooks(['Sample.java'])).newSyntaxErrors('Sample.java', java, out.text);
    expect(incremental.length).toBeGreaterThan(0);
    expect(incremental).toEqual(fresh);
  });

  it('policy off never reports', async () => {
    const off = await prepareAstHooks(['a.ts'], 'off');
    expect(off.syntaxPolicy).toBe('off');
    expect(off.newSyntaxErrors('a.ts', ts, `${ts}\n}}}`)).toEqual([]);
  });

  it('a chain of edits to one file keeps working (each edit re-parses from the last tree)', () => {
    let text = fixture('sample.rs');
    for (let i = 0; i < 5; i++) {
      const next = text.replace('format!("hi {}", who)', `format!("hi {} ${i}", who)`).replace(`hi {} ${i - 1}`, 'hi {}');
      expect(service.newSyntaxErrors('a.rs', text, next)).toEqual([]);
      text = next;
    }
    expect(service.newSyntaxErrors('a.rs', text, text.replace('pub trait Shape {', 'pub trait Shape {{')).length).toBeGreaterThan(0);
  });
});

describe.each(guardOnly)('the syntax guard covers $file', ({ file, valid, broken }) => {
  it('a valid text has no errors and breaking it is reported', () => {
    expect(service.newSyntaxErrors(file, null, valid)).toEqual([]);
    expect(service.newSyntaxErrors(file, valid, broken).length).toBeGreaterThan(0);
  });
});

describe('syntaxError builds the E_SYNTAX refusal', () => {
  it('names the path, the line and quotes the snippet', () => {
    const error = syntaxError('src/a.ts', { line: 7, column: 3, snippet: 'if (x {', kind: 'error' }, 2);
    expect(error).toBeInstanceOf(EditwardenError);
    expect(error.code).toBe('E_SYNTAX');
    expect(error.line).toBe(7);
    expect(error.path).toBe('src/a.ts');
    expect(error.message).toContain('line 7');
    expect(error.message).toContain('"if (x {"');
    expect(error.message).toContain('2 more');
    expect(error.hint).toContain('Nothing was written');
  });

  it('says which token is missing', () => {
    expect(syntaxError('a.go', { line: 1, column: 1, snippet: 'x', kind: 'missing', expected: '}' } as never).message).toContain('missing "}"');
  });
});

describe('textEdit', () => {
  it('describes the changed span with rows and columns', () => {
    const edit = textEdit('ab\ncd\nef', 'ab\ncXd\nef');
    expect(edit).toMatchObject({ startIndex: 4, oldEndIndex: 4, newEndIndex: 5, startPosition: { row: 1, column: 1 }, newEndPosition: { row: 1, column: 2 } });
  });
});
