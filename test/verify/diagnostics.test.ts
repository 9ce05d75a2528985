import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import {
  PARSERS,
  formatDiagnostic,
  parseCargoTest,
  parseCmake,
  parseCtest,
  parseDiagnostics,
  parseGcc,
  parseGo,
  parseGoTest,
  parseJavac,
  parseJest,
  parseMsvc,
  parseNodeTest,
  parsePytest,
  parsePythonTracebacks,
  parseRustc,
  parseTsc,
  parseUnittest,
  parseVitest,
  type Diagnostic,
} from '../../src/verify/diagnostics/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const sample = (name: string) => fs.readFileSync(path.join(here, '../fixtures/verify/diagnostics', name), 'utf8');
/** The fields that matter, for compact expectations. */
const brief = (ds: Diagnostic[]) => ds.map((d) => ({ file: d.file, line: d.line, column: d.column, severity: d.severity, message: d.message.split('\n')[0], ...(d.code ? { code: d.code } : {}), ...(d.test ? { test: d.test } : {}) }));

describe('gcc / g++ (captured)', () => {
  test('errors and notes of a C++ build run by cmake + make, with -f flags as codes', () => {
    expect(brief(parseGcc(sample('gcc-cmake-make.txt')))).toEqual([
      { file: '/tmp/cap/cpp/main.cpp', line: 5, column: 25, severity: 'error', message: expect.stringMatching(/^invalid initialization of reference/) },
      { file: '/tmp/cap/cpp/greet.hpp', line: 3, column: 38, severity: 'note', message: expect.stringMatching(/^in passing argument 1/) },
      { file: '/tmp/cap/cpp/main.cpp', line: 6, column: 3, severity: 'error', message: '‘undeclared_fn’ was not declared in this scope' },
      { file: '/tmp/cap/cpp/main.cpp', line: 7, column: 10, severity: 'error', message: 'invalid conversion from ‘const char*’ to ‘int’', code: '-fpermissive' },
    ]);
  });

  test('warnings carry their -W flag', () => {
    const ds = parseGcc(sample('gcc-warnings-c-locale.txt'));
    expect(ds.map((d) => [d.line, d.column, d.severity, d.code])).toEqual([
      [2, 32, 'warning', '-Wunused-variable'],
      [5, 9, 'warning', '-Wsign-compare'],
      [3, 14, 'warning', '-Wunused-parameter'],
      [3, 27, 'warning', '-Wunused-parameter'],
    ]);
  });

  test('a syntax error in C and an undefined reference at link time', () => {
    expect(brief(parseGcc(sample('gcc-c-syntax.txt')))).toEqual([{ file: 'w.c', line: 4, column: 20, severity: 'error', message: 'expected ‘;’ before ‘return’' }]);
    expect(brief(parseGcc(sample('gcc-link.txt')))).toEqual([{ file: 'm.c', line: null, column: null, severity: 'error', message: "undefined reference to `foo'" }]);
  });

  test('a Windows path with a drive letter', () => {
    expect(brief(parseGcc('C:\\src\\a.c:3:1: error: expected expression'))).toEqual([{ file: 'C:\\src\\a.c', line: 3, column: 1, severity: 'error', message: 'expected expression' }]);
  });
});

describe('cmake (captured)', () => {
  test('configure errors with their CMakeLists line and indented message', () => {
    const ds = parseCmake(sample('cmake-configure.txt'));
    expect(ds.map((d) => [d.file, d.line, d.severity])).toEqual([
      ['CMakeLists.txt', 3, 'error'],
      ['CMakeLists.txt', 3, 'error'],
    ]);
    expect(ds[0]?.message).toContain('Cannot find source file:\nmissing.cpp');
    expect(ds[1]?.message).toBe('No SOURCES given to target: x');
  });
});

describe('tsc (captured, repository tsc 5.9)', () => {
  const plain = [
    { file: 'src/index.ts', line: 4, column: 37, severity: 'error', code: 'TS2345', message: "Argument of type 'string' is not assignable to parameter of type 'number'." },
    { file: 'src/index.ts', line: 5, column: 7, severity: 'error', code: 'TS2322', message: "Type 'number' is not assignable to type 'string'." },
    { file: 'src/index.ts', line: 7, column: 27, severity: 'error', code: 'TS2322', message: `Type '"square"' is not assignable to type '"circle"'.` },
    { file: 'src/index.ts', line: 8, column: 25, severity: 'error', code: 'TS2307', message: "Cannot find module './missing.js' or its corresponding type declarations." },
  ];
  test('plain output', () => expect(brief(parseTsc(sample('tsc-plain.txt')))).toEqual(plain));
  test('--pretty output with colours reads the same', () => expect(brief(parseTsc(sample('tsc-pretty.txt')))).toEqual(plain));
  test('elaboration lines join the message', () => {
    const [d] = parseTsc(sample('tsc-multiline.txt'));
    expect(d?.message.split('\n')).toHaveLength(5);
    expect(d?.message).toContain("Types of property 'id' are incompatible.");
  });
  test('an error without a file', () => {
    expect(brief(parseTsc(sample('tsc-no-project.txt')))).toEqual([{ file: null, line: null, column: null, severity: 'error', code: 'TS5058', message: "The specified path does not exist: 'does-not-exist.json'." }]);
  });
});

describe('rustc / cargo (captured, 1.95)', () => {
  test('errors with codes and the --> location; cargo summaries skipped', () => {
    expect(brief(parseRustc(sample('cargo-build.txt')))).toEqual([
      { file: 'src/main.rs', line: 4, column: 20, severity: 'error', code: 'E0425', message: 'cannot find value `y` in this scope' },
      { file: 'src/main.rs', line: 3, column: 18, severity: 'error', code: 'E0308', message: 'mismatched types' },
    ]);
  });
  test('warnings', () => {
    expect(brief(parseRustc(sample('cargo-warning.txt')))).toEqual([{ file: 'src/main.rs', line: 2, column: 9, severity: 'warning', message: 'unused variable: `unused`' }]);
  });
});

describe('javac (captured, 17)', () => {
  test('errors and warnings, the column from the caret, details joined', () => {
    const ds = parseJavac(sample('javac-errors.txt'));
    expect(ds.map((d) => [d.line, d.column, d.severity])).toEqual([
      [7, 21, 'error'],
      [8, 9, 'warning'],
      [8, 33, 'warning'],
      [9, 17, 'error'],
    ]);
    expect(ds[3]?.message).toBe('cannot find symbol\nsymbol:   variable missingVariable\nlocation: class App');
    expect(parseJavac(sample('javac-syntax.txt'))[0]).toMatchObject({ file: 'src/com/example/App.java', line: 10, column: 34, message: "';' expected" });
  });
  test('maven-compiler-plugin lines', () => {
    expect(brief(parseJavac('[ERROR] /p/src/main/java/App.java:[7,21] incompatible types: String cannot be converted to int'))).toEqual([
      { file: '/p/src/main/java/App.java', line: 7, column: 21, severity: 'error', message: 'incompatible types: String cannot be converted to int' },
    ]);
  });
});

describe('Python tracebacks (captured, 3.11)', () => {
  test('placed at the innermost frame, the exception as the message', () => {
    expect(brief(parsePythonTracebacks(sample('python-traceback.txt')))).toEqual([{ file: '/tmp/cap/py/calc.py', line: 2, column: null, severity: 'error', code: 'ZeroDivisionError', message: 'ZeroDivisionError: division by zero' }]);
  });
  test('a syntax error without a Traceback header', () => {
    expect(parsePythonTracebacks(sample('python-syntax.txt'))[0]).toMatchObject({ file: '/tmp/cap/py/bad.py', line: 1, message: 'SyntaxError: invalid syntax' });
  });
  test('chained exceptions give one each, placed in project code rather than the standard library', () => {
    expect(parsePythonTracebacks(sample('python-chained.txt')).map((d) => [d.file, d.line, d.code])).toEqual([
      ['/tmp/cap/py/chained.py', 6, 'json.decoder.JSONDecodeError'],
      ['/tmp/cap/py/chained.py', 8, 'RuntimeError'],
    ]);
  });
});

describe('test runners (captured)', () => {
  test('vitest, with and without colours', () => {
    const want = [
      { file: 'test/math.test.ts', line: 10, column: 23, test: 'add > adds wrongly', message: 'AssertionError: expected 3 to be 4 // Object.is equality' },
      { file: 'test/math.test.ts', line: 13, column: 11, test: 'add > throws', message: 'TypeError: boom' },
      { file: 'test/math.test.ts', line: 18, column: 20, test: 'top level failure', message: 'AssertionError: expected { a: 1 } to deeply equal { a: 2 }' },
    ];
    for (const name of ['vitest-failures.txt', 'vitest-failures-nocolor.txt']) {
      expect(parseVitest(sample(name)).map(({ file, line, column, test: t, message }) => ({ file, line, column, test: t, message }))).toEqual(want);
    }
  });
  test('pytest summary with lines from the failure sections, and collection errors', () => {
    expect(parsePytest(sample('pytest-failures.txt')).map((d) => [d.file, d.line, d.test, d.message])).toEqual([
      ['tests/test_calc.py', 10, 'test_ratio_wrong', 'assert 0.25 == 0.5'],
      ['tests/test_calc.py', 15, 'TestEdge::test_zero', 'ZeroDivisionError: division ...'],
      ['tests/test_calc.py', 20, 'test_param[3-1-4]', 'assert 3.0 == 4'],
    ]);
    expect(parsePytest(sample('pytest-collection-error.txt')).map((d) => [d.file, d.test, d.message])).toEqual([['tests/test_broken.py', 'tests/test_broken.py', 'error during collection']]);
  });
  test('unittest FAIL and ERROR blocks', () => {
    expect(parseUnittest(sample('unittest-failures.txt')).map((d) => [d.test, d.file, d.line, d.message])).toEqual([
      ['test_uni.RatioTest.test_error', '/tmp/cap/py/test_uni.py', 13, 'ZeroDivisionError: division by zero'],
      ['test_uni.RatioTest.test_bad', '/tmp/cap/py/test_uni.py', 10, 'AssertionError: 0.3333333333333333 != 0.3'],
    ]);
  });
  test('node:test, TAP and spec reporters; a suite failing only through its subtest is not repeated', () => {
    expect(parseNodeTest(sample('node-test-tap.txt')).map((d) => [d.test, d.file, d.line, d.message])).toEqual([
      ['adds wrongly', '/tmp/cap/nt/math.test.mjs', 8, 'Expected values to be strictly equal:'],
      ['inner fails', '/tmp/cap/nt/math.test.mjs', 13, 'inner boom'],
    ]);
    expect(parseNodeTest(sample('node-test-spec.txt')).map((d) => [d.test, d.file, d.line])).toEqual([
      ['adds wrongly', 'math.test.mjs', 8],
      ['inner fails', 'math.test.mjs', 13],
    ]);
  });
  test('cargo test panics with their location', () => {
    expect(parseCargoTest(sample('cargo-test.txt')).map((d) => [d.test, d.file, d.line, d.column, d.message])).toEqual([
      ['tests::adds_wrong', 'src/lib.rs', 9, 23, 'assertion `left == right` failed: one plus two'],
      ['tests::panics', 'src/lib.rs', 11, 54, 'index out of bounds: the len is 0 but the index is 3'],
    ]);
    expect(parseCargoTest("test t::old ... FAILED\nthread 't::old' panicked at 'boom', src/lib.rs:3:5")[0]).toMatchObject({ test: 't::old', message: 'failed' });
  });
  test('ctest failures', () => {
    expect(parseCtest(sample('ctest-failure.txt')).map((d) => [d.test, d.message])).toEqual([['greeter_runs', 'Failed']]);
  });
});

describe('formats of tools not installed here (hand-written samples in the documented format)', () => {
  test('go build', () => {
    expect(parseGo(sample('go-build.handwritten.txt')).map((d) => [d.file, d.line, d.column, d.message])).toEqual([
      ['./main.go', 6, 2, 'undefined: fmt.Printl'],
      ['./main.go', 8, 6, 'declared and not used: x'],
      ['./util/strings.go', 12, 9, 'cannot use n (variable of type int) as string value in return statement'],
    ]);
  });
  test('go test: failing subtests, their parent not repeated', () => {
    expect(parseGoTest(sample('go-test.handwritten.txt')).map((d) => [d.test, d.file, d.line, d.message])).toEqual([
      ['TestAdd', 'add_test.go', 9, 'Add(1, 2) = 3; want 4'],
      ['TestTable/negative', 'add_test.go', 21, 'got -1, want 1'],
    ]);
  });
  test('jest', () => {
    expect(parseJest(sample('jest-failures.handwritten.txt')).map((d) => [d.file, d.test, d.line, d.column, d.message])).toEqual([
      ['src/sum.test.js', 'sum › adds 1 + 2 to equal 4', 5, 23, 'expect(received).toBe(expected) // Object.is equality'],
    ]);
  });
  test('MSVC, csc and link, MSBuild project suffix removed', () => {
    expect(parseMsvc(sample('msvc.handwritten.txt')).map((d) => [d.file, d.line, d.column, d.severity, d.code])).toEqual([
      ['C:\\src\\app\\main.cpp', 6, null, 'error', 'C2065'],
      ['C:\\src\\app\\main.cpp', 7, 10, 'error', 'C2440'],
      ['C:\\src\\app\\main.cpp', 4, 7, 'warning', 'C4189'],
      ['Program.cs', 3, 5, 'error', 'CS1002'],
      ['main.obj', null, null, 'error', 'LNK2019'],
      [null, null, null, 'error', 'LNK1104'],
    ]);
    expect(parseMsvc(sample('msvc.handwritten.txt'))[0]?.message).toBe("'undeclared_fn': undeclared identifier");
  });
});

describe('parseDiagnostics runs every parser once per line', () => {
  test('tsc plain output is not also read as MSVC; javac not as gcc', () => {
    expect(parseDiagnostics(sample('tsc-plain.txt')).map((d) => d.tool)).toEqual(['tsc', 'tsc', 'tsc', 'tsc']);
    expect(new Set(parseDiagnostics(sample('javac-errors.txt')).map((d) => d.tool))).toEqual(new Set(['javac']));
  });
  test('results come in output order across tools, and are capped', () => {
    const mixed = `${sample('gcc-c-syntax.txt')}\n${sample('tsc-plain.txt')}`;
    const ds = parseDiagnostics(mixed);
    expect(ds.map((d) => d.tool)).toEqual(['gcc', 'tsc', 'tsc', 'tsc', 'tsc']);
    expect(parseDiagnostics(Array.from({ length: 900 }, (_, i) => `a.c:${i + 1}:1: error: e`).join('\n'))).toHaveLength(500);
  });
  test('formatDiagnostic gives one readable line', () => {
    expect(formatDiagnostic(parseTsc(sample('tsc-plain.txt'))[0] as Diagnostic)).toBe("src/index.ts:4:37 error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.");
  });
});

describe('fuzz: no parser throws, whatever the input', () => {
  const interesting = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc
      .array(
        fc.constantFrom(
          'Traceback (most recent call last):',
          '  File "x.py", line 3, in f',
          '  File "x.py", line',
          'ValueError: x',
          ' FAIL  a.test.ts > b',
          ' ❯ a.test.ts:1:2',
          '---- t stdout ----',
          "thread 't' panicked at src/lib.rs:1:2:",
          '--- FAIL: TestX (0.00s)',
          '    x_test.go:3: msg',
          'not ok 1 - t',
          '  ---',
          "  location: 'a.js:1:1'",
          '  error: |-',
          '  ...',
          'The following tests FAILED:',
          '\t  1 - t (Failed)',
          'FAILED a.py::t - boom',
          '___ t ___',
          'a.py:3: AssertionError',
          'error[E0001]: x',
          ' --> a.rs:1:1',
          'a.c:1:1: error: x',
          'A.java:1: error: x',
          '        ^',
          'a.ts(1,1): error TS1: x',
          'x(1,2): error C1: y [p.vcxproj]',
          'CMake Error at CMakeLists.txt:1 (x):',
          'FAIL a.js',
          '  ● a › b',
          '✖ failing tests:',
          'test at a.js:1:1',
          '✖ t (1ms)',
          'FAIL: t (m.T.t)',
          '',
          '\u001b[31m',
        ),
        { maxLength: 40 },
      )
      .map((ls) => ls.join('\n')),
  );
  for (const { tool, parse } of PARSERS) {
    test(`${tool}`, () => {
      fc.assert(
        fc.property(interesting, (text) => {
          const ds = parse(text);
          for (const d of ds) {
            expect(typeof d.message).toBe('string');
            expect(d.line === null || Number.isInteger(d.line)).toBe(true);
          }
        }),
        { numRuns: 300 },
      );
    });
  }
  test('parseDiagnostics', () => {
    fc.assert(
      fc.property(interesting, (text) => Array.isArray(parseDiagnostics(text))),
      { numRuns: 300 },
    );
  });
});

describe('live: real compilers on this machine, parsed as they print', () => {
  test('g++ errors from a live compile', async () => {
    const { runCommand } = await import('../../src/verify/runner.js');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-live-'));
    try {
      fs.writeFileSync(path.join(dir, 'bad.cpp'), 'int main() {\n  int x = "text";\n  return y;\n}\n');
      const r = await runCommand({ sandbox: 'none', command: ['g++', '-c', 'bad.cpp', '-o', 'bad.o'], cwd: dir, timeoutMs: 30_000 });
      expect(r.exit_code).not.toBe(0);
      expect(
        parseDiagnostics(r.tail)
          .filter((d) => d.severity === 'error')
          .map((d) => [d.tool, d.file, d.line]),
      ).toEqual([
        ['gcc', 'bad.cpp', 2],
        ['gcc', 'bad.cpp', 3],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a live Python traceback', async () => {
    const { runCommand } = await import('../../src/verify/runner.js');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-live-'));
    try {
      fs.writeFileSync(path.join(dir, 'boom.py'), 'def f():\n    raise KeyError("missing")\n\nf()\n');
      const r = await runCommand({ sandbox: 'none', command: ['python3', 'boom.py'], cwd: dir, timeoutMs: 30_000 });
      expect(r.exit_code).toBe(1);
      expect(parseDiagnostics(r.tail)).toEqual([expect.objectContaining({ tool: 'python', file: expect.stringMatching(/boom\.py$/), line: 2, message: "KeyError: 'missing'" })]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
