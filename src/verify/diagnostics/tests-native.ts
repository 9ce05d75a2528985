/**
 * Failing tests of go test, cargo test and ctest.
 *
 *   go test:    "--- FAIL: TestAdd (0.00s)" then "    add_test.go:9: got 3, want 4"
 *               (a parent whose only content is failing subtests is not reported twice)
 *   cargo test: "---- tests::adds_wrong stdout ----" then
 *               "thread 'tests::adds_wrong' (6773) panicked at src/lib.rs:9:23:" and the message;
 *               older toolchains: "thread 'x' panicked at 'msg', src/lib.rs:9:5"
 *   ctest:      "The following tests FAILED:" then "	  1 - greeter_runs (Failed)"
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const GO_FAIL = /^(\s*)--- FAIL: (\S+) \([\d.]+s\)$/;
const GO_AT = /^\s+([^\s:]+\.go):(\d+): (.*)$/;

export function parseGoTest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = GO_FAIL.exec(lines[i] as string);
    if (!m) continue;
    const d = makeDiagnostic({ tool: DiagnosticTool.GO_TEST, severity: 'error', test: m[2] as string, message: '', output_line: i });
    let nested = false;
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (GO_FAIL.test(next)) {
        nested = (GO_FAIL.exec(next)?.[1] ?? '').length > (m[1] as string).length;
        break;
      }
      if (!/^\s/.test(next)) break;
      const at = GO_AT.exec(next);
      if (at && d.file === null) {
        d.file = at[1] as string;
        d.line = toInt(at[2]);
        d.message = at[3] as string;
      }
    }
    if (d.file === null && nested) continue;
    if (d.message === '') d.message = 'failed';
    out.push(d);
  }
  return out;
}

const CARGO_SECTION = /^---- (\S+) stdout ----$/;
const PANIC_NEW = /^thread '([^']*)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/;
const PANIC_OLD = /^thread '([^']*)' panicked at '(.*)', (.+?):(\d+):(\d+)$/;
const CARGO_RESULT = /^test (\S+) \.\.\. FAILED$/;

export function parseCargoTest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  const reported = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const m = CARGO_SECTION.exec(lines[i] as string);
    if (!m) continue;
    const d = makeDiagnostic({ tool: DiagnosticTool.CARGO_TEST, severity: 'error', test: m[1] as string, message: 'failed', output_line: i });
    for (let j = i + 1; j < lines.length && !CARGO_SECTION.test(lines[j] as string) && (lines[j] as string) !== 'failures:'; j++) {
      const next = lines[j] as string;
      const p = PANIC_NEW.exec(next);
      if (p) {
        d.file = p[2] as string;
        d.line = toInt(p[3]);
        d.column = toInt(p[4]);
        d.message = (lines[j + 1] ?? '').trim() || 'panicked';
        break;
      }
      const o = PANIC_OLD.exec(next);
      if (o) {
        d.file = o[3] as string;
        d.line = toInt(o[4]);
        d.column = toInt(o[5]);
        d.message = o[2] as string;
        break;
      }
    }
    reported.add(d.test as string);
    out.push(d);
  }
  // Tests that failed without a captured-output section (--nocapture, or a timeout).
  for (let i = 0; i < lines.length; i++) {
    const r = CARGO_RESULT.exec(lines[i] as string);
    if (r && !reported.has(r[1] as string)) {
      reported.add(r[1] as string);
      out.push(makeDiagnostic({ tool: DiagnosticTool.CARGO_TEST, severity: 'error', test: r[1] as string, message: 'failed', output_line: i }));
    }
  }
  return out;
}

const CTEST_HEADER = /^The following tests FAILED:$/;
const CTEST_ROW = /^\s+\d+ - (.+?) \(([^)]+)\)$/;

export function parseCtest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    if (!CTEST_HEADER.test(lines[i] as string)) continue;
    for (let j = i + 1; j < lines.length; j++) {
      const r = CTEST_ROW.exec(lines[j] as string);
      if (!r) break;
      out.push(makeDiagnostic({ tool: DiagnosticTool.CTEST, severity: 'error', test: r[1] as string, message: r[2] as string, output_line: j }));
    }
  }
  return out;
}
