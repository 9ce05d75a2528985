/**
 * The Go toolchain (go build, go vet):
 *
 *   # example.com/hello
 *   ./main.go:6:2: undefined: fmt.Printl
 *   main.go:8: message                 (old toolchains, no column)
 *   vet: ./x.go:9:2: message
 *
 * Only .go files: other tools print "file:line:" too. Go has no severities
 * here; everything the compiler prints this way stops the build.
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const LOCATED = /^(?:vet: )?((?:[A-Za-z]:)?[^\s:][^:]*\.go):(\d+)(?::(\d+))?: (.+)$/;

export function parseGo(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = LOCATED.exec(lines[i] as string);
    if (!m) continue;
    out.push(makeDiagnostic({ tool: DiagnosticTool.GO, severity: 'error', file: m[1] as string, line: toInt(m[2]), column: toInt(m[3]), message: m[4] as string, output_line: i }));
  }
  return out;
}
