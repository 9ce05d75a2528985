/**
 * The TypeScript compiler, both spellings:
 *
 *   src/a.ts(4,37): error TS2345: message          (--pretty false, or output not a TTY)
 *     indented elaboration lines…
 *   src/a.ts:4:37 - error TS2345: message          (--pretty; colours stripped first)
 *   error TS5058: message                          (no file: options, project)
 */
import { DiagnosticTool, locationAt, makeDiagnostic, outputLines, type Diagnostic } from './types.js';

const PLAIN = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const PRETTY = /^(.+?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$/;
const GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

export function parseTsc(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const plain = PLAIN.exec(line);
    const m = plain ?? PRETTY.exec(line);
    if (m) {
      let message = m[6] as string;
      if (plain) {
        // Elaborations ("Types of property 'id' are incompatible.") are indented below the head line.
        const more: string[] = [];
        for (let j = i + 1; j < lines.length && /^\s{2,}\S/.test(lines[j] as string); j++) more.push((lines[j] as string).trimEnd());
        if (more.length > 0) message = [message, ...more].join('\n');
      }
      out.push(
        makeDiagnostic({
          tool: DiagnosticTool.TSC,
          severity: m[4] === 'error' ? 'error' : m[4] === 'warning' ? 'warning' : 'note',
          ...locationAt(m),
          message,
          code: m[5] as string,
          output_line: i,
        }),
      );
      continue;
    }
    const g = GLOBAL.exec(line);
    if (g) out.push(makeDiagnostic({ tool: DiagnosticTool.TSC, severity: g[1] === 'error' ? 'error' : 'warning', message: g[3] as string, code: g[2] as string, output_line: i }));
  }
  return out;
}
