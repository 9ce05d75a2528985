/**
 * CMake's own errors and warnings (configure step):
 *
 *   CMake Error at CMakeLists.txt:3 (add_executable):
 *     indented message lines…
 *   CMake Warning (dev) at CMakeLists.txt:1 (project):
 *   CMake Error: message without a location
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const AT = /^CMake (Error|Warning|Deprecation Warning)(?: \(dev\))? at (.+?):(\d+) \(([^)]*)\):\s*$/;
const BARE = /^CMake (Error|Warning)(?: \(dev\))?: (.+)$/;

export function parseCmake(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = AT.exec(line);
    if (m) {
      const body: string[] = [];
      // The message is the indented block that follows, up to the next unindented line.
      for (let j = i + 1; j < lines.length && j < i + 40; j++) {
        const next = lines[j] as string;
        if (next !== '' && !/^\s/.test(next)) break;
        if (next.trim() !== '') body.push(next.trim());
      }
      const message = body.length > 0 ? body.join('\n') : `${m[4]}`;
      out.push(makeDiagnostic({ tool: DiagnosticTool.CMAKE, severity: m[1] === 'Error' ? 'error' : 'warning', file: m[2] as string, line: toInt(m[3]), message, output_line: i }));
      continue;
    }
    const b = BARE.exec(line);
    if (b) out.push(makeDiagnostic({ tool: DiagnosticTool.CMAKE, severity: b[1] === 'Error' ? 'error' : 'warning', message: b[2] as string, output_line: i }));
  }
  return out;
}
