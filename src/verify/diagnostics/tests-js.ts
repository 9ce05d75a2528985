/**
 * Failing tests of the JavaScript runners: vitest, jest, node:test (TAP and
 * spec reporters). One diagnostic per failing test: its name, the test file,
 * the line the runner points at, and the first line of the error.
 *
 *   vitest:  " FAIL  test/a.test.ts > suite > name"  then the error, then " ❯ test/a.test.ts:10:23"
 *   jest:    "FAIL src/a.test.js"  "  ● suite › name"  …  "at Object.<anonymous> (src/a.test.js:5:23)"
 *   TAP:     "not ok 2 - name"  then a YAML block with location: '/x/a.test.mjs:8:1' and error:
 *   spec:    "✖ failing tests:"  "test at a.test.mjs:8:1"  "✖ name (1.4ms)"  "  AssertionError …"
 */
import { DiagnosticTool, locationAt, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const VITEST_FAIL = /^ ?FAIL {1,2}(\S.*?)(?: > (.+))?$/;
const VITEST_AT = /^\s*(?:❯|→|at) (.+?):(\d+):(\d+)\)?$/;
const SEPARATOR = /^⎯{3,}/;

export function parseVitest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    // Vitest pads " FAIL " with a space on each side; jest prints "FAIL path" at column 0.
    if (!line.startsWith(' FAIL ')) continue;
    const m = VITEST_FAIL.exec(line);
    if (!m) continue;
    const file = (m[1] as string).replace(/ \[ .* \]$/, '');
    const test = m[2] ?? file;
    const d = makeDiagnostic({ tool: DiagnosticTool.VITEST, severity: 'error', file, test, message: '', output_line: i });
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (next.startsWith(' FAIL ') || SEPARATOR.test(next)) break;
      if (d.message === '' && next.trim() !== '') d.message = next.trim();
      const at = VITEST_AT.exec(next);
      if (at && d.line === null) {
        d.line = toInt(at[2]);
        d.column = toInt(at[3]);
      }
    }
    const key = `${file}\u0000${test}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

const JEST_FILE = /^(FAIL|PASS) (\S+)/;
const JEST_TEST = /^\s+● (.+)$/;
const JEST_AT = /\(?((?:[A-Za-z]:)?[^\s()]+?):(\d+):(\d+)\)?$/;

export function parseJest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  const seen = new Set<string>();
  let file: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const f = JEST_FILE.exec(line);
    if (f) {
      file = f[2] as string;
      continue;
    }
    const t = JEST_TEST.exec(line);
    if (!t || file === null) continue;
    const name = (t[1] as string).trim();
    const d = makeDiagnostic({ tool: DiagnosticTool.JEST, severity: 'error', file, test: name, message: '', output_line: i });
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (JEST_TEST.test(next) || JEST_FILE.test(next) || /^(Test Suites|Tests):/.test(next)) break;
      if (d.message === '' && next.trim() !== '') d.message = next.trim();
      const trimmed = next.trim();
      if (d.line === null && trimmed.startsWith('at ') && !trimmed.includes('node_modules')) {
        const at = JEST_AT.exec(trimmed);
        if (at) {
          d.line = toInt(at[2]);
          d.column = toInt(at[3]);
        }
      }
    }
    const key = `${file}\u0000${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

const TAP_NOT_OK = /^(\s*)not ok \d+ - (.+?)(?:\s+#\s+(?:TODO|SKIP)\b.*)?$/;
const TAP_LOCATION = /^\s*location: '(.+):(\d+):(\d+)'$/;
const SPEC_HEADER = /^✖ failing tests:$/;
const SPEC_AT = /^test at (.+):(\d+):(\d+)$/;
const SPEC_FAIL = /^✖ (.+?) \([\d.]+m?s\)$/;

export function parseNodeTest(text: string): Diagnostic[] {
  const lines = outputLines(text);
  return [...parseTap(lines), ...parseSpecSummary(lines)];
}

function parseTap(lines: string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = TAP_NOT_OK.exec(lines[i] as string);
    if (!m) continue;
    const indent = (m[1] as string).length;
    const d = makeDiagnostic({ tool: DiagnosticTool.NODE_TEST, severity: 'error', test: m[2] as string, message: '', output_line: i });
    let parentOnly = false;
    // The YAML block: indented more than the "not ok" line, between "---" and "...".
    if ((lines[i + 1] ?? '').trim() === '---') {
      for (let j = i + 2; j < lines.length; j++) {
        const next = lines[j] as string;
        if (next.trim() === '...' || !next.startsWith(' '.repeat(indent + 1))) break;
        const loc = TAP_LOCATION.exec(next);
        if (loc) {
          d.file = loc[1] as string;
          d.line = toInt(loc[2]);
          d.column = toInt(loc[3]);
        }
        if (/^\s*failureType: 'subtestsFailed'/.test(next)) parentOnly = true;
        const err = /^\s*error: (.*)$/.exec(next);
        if (err && d.message === '') {
          const value = err[1] as string;
          d.message = value === '|-' || value === '>-' || value === '|' ? (lines[j + 1] ?? '').trim() : value.replace(/^'(.*)'$/, '$1');
        }
      }
    }
    // A suite fails because a subtest failed; that subtest is already reported.
    if (!parentOnly) out.push(d);
  }
  return out;
}

function parseSpecSummary(lines: string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const start = lines.findIndex((l) => SPEC_HEADER.test(l.trim()));
  if (start < 0) return out;
  for (let i = start + 1; i < lines.length; i++) {
    const at = SPEC_AT.exec((lines[i] as string).trim());
    if (!at) continue;
    const name = SPEC_FAIL.exec((lines[i + 1] ?? '').trim());
    if (!name) continue;
    const message = (lines[i + 2] ?? '').trim();
    out.push(
      makeDiagnostic({
        tool: DiagnosticTool.NODE_TEST,
        severity: 'error',
        ...locationAt(at),
        test: name[1] as string,
        message,
        output_line: i,
      }),
    );
  }
  return out;
}
