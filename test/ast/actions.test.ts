import { beforeAll, describe, expect, it } from 'vitest';
import { dedent, reindent } from '../../src/ast/actions.js';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';
import type { AstRequest } from '../../src/edit/types.js';
import { catchError } from './helpers.js';

let service: AstService;
beforeAll(async () => {
  service = await prepareAstHooks(['a.py', 'a.ts', 'a.json', 'a.css'], 'refuse');
});

const apply = (file: string, text: string, astPath: string, astAction: AstRequest['astAction'], content = ''): string => service.applyAst(file, text, { action: 'ast', path: file, astPath, astAction, content }).text;

describe('re-indentation', () => {
  it('dedent removes the common indentation and surrounding blank lines, keeping relative indentation', () => {
    expect(dedent('\n\n      def f():\n          return 1\n\n')).toEqual(['def f():', '    return 1']);
  });

  it('reindent puts every non-empty line at the target indentation', () => {
    expect(reindent('  a\n\n    b', '\t')).toBe('\ta\n\n\t  b');
  });

  it('code with tabs is moved to a space-indented class body', () => {
    const py = 'class A:\n    def f(self):\n        return 1\n';
    expect(apply('a.py', py, 'A-f', 'replace', '\tdef f(self):\n\t    return 2')).toBe('class A:\n    def f(self):\n        return 2\n');
  });
});

describe('remove keeps the spacing of the file', () => {
  const py = 'import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n';

  it('between two declarations: one blank run stays', () => {
    expect(apply('a.py', py, 'b', 'remove')).toBe('import os\n\n\ndef a():\n    pass\n\n\ndef c():\n    pass\n');
  });

  it('the last declaration: the blank run before it goes, no trailing blank lines', () => {
    expect(apply('a.py', py, 'c', 'remove')).toBe('import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n');
  });

  it('the first member of a block: the blank line after it goes', () => {
    const ts = 'class A {\n  x = 1;\n\n  y = 2;\n}\n';
    expect(apply('a.ts', ts, 'A-x', 'remove')).toBe('class A {\n  y = 2;\n}\n');
  });

  it('the last member of a block: the blank line before it goes', () => {
    const ts = 'class A {\n  x = 1;\n\n  y = 2;\n}\n';
    expect(apply('a.ts', ts, 'A-y', 'remove')).toBe('class A {\n  x = 1;\n}\n');
  });

  it('a declaration sharing its line with others is cut out of the line', () => {
    const ts = 'class A { x = 1; y = 2; }\n';
    expect(apply('a.ts', ts, 'A-x', 'remove')).toBe('class A {  y = 2; }\n');
  });

  it('a JSON pair takes its comma along (and the last pair the comma before it)', () => {
    const json = '{\n  "a": 1,\n  "b": 2\n}\n';
    expect(apply('a.json', json, 'a', 'remove')).toBe('{\n  "b": 2\n}\n');
    expect(apply('a.json', json, 'b', 'remove')).toBe('{\n  "a": 1\n}\n');
  });
});

describe('append and prepend follow the local spacing', () => {
  it('declarations separated by two blank lines get two', () => {
    const py = 'def a():\n    pass\n\n\ndef b():\n    pass\n';
    expect(apply('a.py', py, 'a', 'append', 'def n():\n    pass')).toBe('def a():\n    pass\n\n\ndef n():\n    pass\n\n\ndef b():\n    pass\n');
    expect(apply('a.py', py, 'b', 'prepend', 'def n():\n    pass')).toBe('def a():\n    pass\n\n\ndef n():\n    pass\n\n\ndef b():\n    pass\n');
  });

  it('adjacent one-line members get none', () => {
    const ts = 'class A {\n  x = 1;\n  y = 2;\n}\n';
    expect(apply('a.ts', ts, 'A-x', 'append', 'z = 3;')).toBe('class A {\n  x = 1;\n  z = 3;\n  y = 2;\n}\n');
  });

  it('appending after the last JSON pair adds the comma it now needs', () => {
    expect(apply('a.json', '{\n  "a": 1\n}\n', 'a', 'append', '"b": 2')).toBe('{\n  "a": 1,\n  "b": 2\n}\n');
  });

  it('empty content inserts nothing; empty replacement removes', () => {
    const ts = 'const a = 1;\nconst b = 2;\n';
    expect(apply('a.ts', ts, 'a', 'append', '  ')).toBe(ts);
    expect(apply('a.ts', ts, 'a', 'replace', '')).toBe('const b = 2;\n');
  });
});

describe('resolution details', () => {
  it('names may contain "-" (CSS selectors, JSON keys)', () => {
    const css = '.btn-primary {\n  color: red;\n}\n';
    expect(apply('a.css', css, '.btn-primary', 'replace', '.btn-primary { color: blue; }')).toBe('.btn-primary { color: blue; }\n');
    const json = '{\n  "scripts": {\n    "build-all": "tsc"\n  }\n}\n';
    expect(service.resolve('a.json', json, 'scripts-build-all').kind).toBe('key');
  });

  it('#N may pick an enclosing declaration', () => {
    const ts = 'namespace N {\n  export function f() {}\n}\nnamespace N {\n  export function f() {}\n  export function g() {}\n}\n';
    expect(service.resolve('a.ts', ts, 'N#2-f').nodeLine).toBe(5);
    expect(service.resolve('a.ts', ts, 'N-g').nodeLine).toBe(6);
    expect(catchError(() => service.resolve('a.ts', ts, 'N-f')).code).toBe('E_AST_AMBIGUOUS');
    expect(catchError(() => service.resolve('a.ts', ts, 'N#3-f')).message).toContain('only 2 declarations');
  });

  it('not found suggests paths ending with the asked name and close spellings', () => {
    const ts = 'class Greeter {\n  greet() {}\n  greeting = 1;\n}\n';
    const error = catchError(() => service.resolve('a.ts', ts, 'greet'));
    expect(error.message).toContain('Nearest: Greeter-greet (method, line 2)');
    expect(catchError(() => service.resolve('a.ts', ts, 'Greter-greet')).message).toContain('Greeter-greet');
  });

  it('an empty or malformed path is E_AST_NOT_FOUND', () => {
    for (const bad of ['', '   ', '-', 'Greeter-', '-greet']) expect(catchError(() => service.resolve('a.ts', 'class Greeter {}\n', bad)).code).toBe('E_AST_NOT_FOUND');
  });

  it('a file with nothing addressable says so', () => {
    expect(catchError(() => service.resolve('a.ts', 'console.log(1);\n', 'x')).message).toContain('no addressable declarations');
  });
});
