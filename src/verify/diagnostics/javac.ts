/**
 * javac, and javac as Maven reports it:
 *
 *   src/App.java:7: error: incompatible types: String cannot be converted to int
 *           int count = "three";
 *                       ^                 (the caret gives the column)
 *     symbol:   variable x                (indented detail lines join the message)
 *   [ERROR] /abs/App.java:[7,21] incompatible types: …   (maven-compiler-plugin)
 */
import { DiagnosticTool, locationAt, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const JAVAC = /^(.+?\.java):(\d+): (error|warning): (.*)$/;
const MAVEN = /^\[(ERROR|WARNING)\] (.+?\.java):\[(\d+),(\d+)\] (.*)$/;
const CARET = /^(\s*)\^\s*$/;

export function parseJavac(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = JAVAC.exec(line);
    if (m) {
      const d = makeDiagnostic({
        tool: DiagnosticTool.JAVAC,
        severity: m[3] === 'error' ? 'error' : 'warning',
        file: m[1] as string,
        line: toInt(m[2]),
        message: m[4] as string,
        output_line: i,
      });
      // Source line, caret line, then indented details ("symbol:", "location:").
      const caret = CARET.exec(lines[i + 2] ?? '');
      if (caret) {
        d.column = (caret[1] as string).length + 1;
        const details: string[] = [];
        for (let j = i + 3; j < lines.length && /^\s{2,}\S/.test(lines[j] as string) && !JAVAC.test(lines[j] as string); j++) details.push((lines[j] as string).trim());
        if (details.length > 0) d.message = [d.message, ...details].join('\n');
      }
      out.push(d);
      continue;
    }
    const v = MAVEN.exec(line);
    if (v) {
      out.push(
        makeDiagnostic({
          tool: DiagnosticTool.JAVAC,
          severity: v[1] === 'ERROR' ? 'error' : 'warning',
          ...locationAt(v, 2),
          message: v[5] as string,
          output_line: i,
        }),
      );
    }
  }
  return out;
}
