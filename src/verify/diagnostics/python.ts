/**
 * Python tracebacks, one diagnostic per traceback, placed at the innermost
 * frame (where it was raised), with the exception line as the message:
 *
 *   Traceback (most recent call last):
 *     File "/x/calc.py", line 10, in <module>
 *       report([1, 2])
 *   ZeroDivisionError: division by zero
 *
 * and the frame-less form of syntax errors:
 *
 *     File "/x/bad.py", line 1
 *       def f(:
 *             ^
 *   SyntaxError: invalid syntax
 *
 * Chained tracebacks ("The above exception was the direct cause…") give one each.
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const FRAME = /^\s+File "(.+)", line (\d+)(?:, in (.+))?$/;
const EXCEPTION = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Iteration)|[A-Za-z_][\w.]*\.[A-Z]\w*)(?::\s?(.*))?$/;
const HEADER = 'Traceback (most recent call last):';
const LIBRARY = /[\\/](?:lib[\\/]python\d[\d.]*|site-packages|dist-packages)[\\/]|^<frozen /;

export function parsePythonTracebacks(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const headed = line.trim() === HEADER;
    // A syntax error prints a frame without "in <scope>" and without a header.
    const bare = !headed && /^\s+File "(.+)", line (\d+)$/.test(line) && (i === 0 || !FRAME.test(lines[i - 1] ?? '')) && (lines[i - 1] ?? '').trim() !== HEADER;
    if (!headed && !bare) continue;
    const frames: { file: string; line: number | null }[] = [];
    let j = headed ? i + 1 : i;
    for (; j < lines.length; j++) {
      const current = lines[j] as string;
      const f = FRAME.exec(current);
      if (f) {
        frames.push({ file: f[1] as string, line: toInt(f[2]) });
        continue;
      }
      // Source excerpts and ^^^/~~~ markers are indented; the exception line is not.
      if (/^\s/.test(current) || current === '') continue;
      break;
    }
    const exception = EXCEPTION.exec(lines[j] ?? '');
    // The innermost frame of the project's own code: an error raised inside json/ or site-packages was caused by a call from it.
    const frame = [...frames].reverse().find((fr) => !LIBRARY.test(fr.file)) ?? frames[frames.length - 1];
    if (!frame || !exception) continue;
    const { file, line: lineNo } = frame;
    const message = exception[2] ? `${exception[1]}: ${exception[2]}` : (exception[1] as string);
    out.push(makeDiagnostic({ tool: DiagnosticTool.PYTHON, severity: 'error', file, line: lineNo, message, code: exception[1] as string, output_line: j }));
    i = j;
  }
  return out;
}
