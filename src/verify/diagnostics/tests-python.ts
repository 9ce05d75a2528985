/**
 * Failing Python tests: pytest's short summary and unittest's FAIL/ERROR blocks.
 *
 *   pytest:   "FAILED tests/test_calc.py::TestEdge::test_zero - ZeroDivisionError: …"
 *             "ERROR tests/test_broken.py"     (collection error)
 *             the line comes from "tests/test_calc.py:15: AssertionError" inside the
 *             test's "____ TestEdge.test_zero ____" section.
 *   unittest: "FAIL: test_bad (test_uni.RatioTest.test_bad)" then a traceback whose
 *             first frame is the test and whose last line is the exception.
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const SUMMARY = /^(FAILED|ERROR) ([^\s:]+)(?:::(\S+(?: ?\[[^\]]*\])?))?(?: - (.*))?$/;
const SECTION = /^_{3,} (.+?) _{3,}$/;
const LOCATION = /^([^\s:]+\.py):(\d+):(?: (\w+))?\s*$/;

export function parsePytest(text: string): Diagnostic[] {
  const lines = outputLines(text);
  // Where each failure section points: section title → locations in order.
  const sections = new Map<string, { file: string; line: number | null }[]>();
  let current: string | null = null;
  for (const line of lines) {
    const s = SECTION.exec(line);
    if (s) {
      current = (s[1] as string).replace(/^ERROR collecting /, '');
      sections.set(current, []);
      continue;
    }
    const l = LOCATION.exec(line);
    if (l && current !== null) sections.get(current)?.push({ file: l[1] as string, line: toInt(l[2]) });
  }
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = SUMMARY.exec(lines[i] as string);
    if (!m) continue;
    const file = m[2] as string;
    if (!/\.py$/.test(file)) continue;
    const test = m[3];
    const title = test ? test.replace(/::/g, '.') : file;
    const where = sections.get(title)?.find((loc) => loc.file === file) ?? null;
    const d = makeDiagnostic({ tool: DiagnosticTool.PYTEST, severity: 'error', file, line: where?.line ?? null, test: test ?? file, message: m[4] ?? (m[1] === 'ERROR' ? 'error during collection' : 'failed'), output_line: i });
    out.push(d);
  }
  return out;
}

const UNITTEST_HEAD = /^(FAIL|ERROR): (\S+) \(([\w.]+)\)/;
const FRAME = /^\s+File "(.+)", line (\d+)/;

export function parseUnittest(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = UNITTEST_HEAD.exec(lines[i] as string);
    if (!m) continue;
    const d = makeDiagnostic({ tool: DiagnosticTool.UNITTEST, severity: 'error', test: m[3] as string, message: m[1] === 'FAIL' ? 'failed' : 'error', output_line: i });
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (/^(={10,}|-{10,})$/.test(next) && j > i + 1) break;
      const f = FRAME.exec(next);
      if (f && d.file === null) {
        d.file = f[1] as string;
        d.line = toInt(f[2]);
        continue;
      }
      // The exception line: unindented, after the frames.
      if (d.file !== null && next !== '' && !/^\s/.test(next)) d.message = next.trim();
    }
    out.push(d);
  }
  return out;
}
