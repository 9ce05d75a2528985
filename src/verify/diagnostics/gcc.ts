/**
 * GCC and Clang (and everything that prints their way: ld, as, gfortran).
 *
 *   file:line:col: (fatal error|error|warning|note): message [-Wflag]
 *   file:line: error: message                       (no column: -fno-show-column, old gcc)
 *   file.c:(.text+0x5): undefined reference to `foo'  (the linker)
 *
 * Context lines ("In function", source excerpts, carets) are skipped.
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic, type Severity } from './types.js';

// An optional Windows drive, then anything up to the ":line:" (paths may hold spaces).
const LOCATED = /^((?:[A-Za-z]:)?[^:\n]+?):(\d+):(?:(\d+):)?\s+(fatal error|error|warning|note|remark):\s+(.*)$/;
const LINKER = /^((?:[A-Za-z]:)?[^:\n]+?):\(\.[\w.$]+(?:\+0x[0-9a-f]+)?\):\s+(.*)$/;
const FLAG = /\s\[(-W[\w=+-]+|-fpermissive)\]$/;

export function parseGcc(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = LOCATED.exec(line);
    if (m) {
      // javac prints "File.java:3: error:" too; its own parser reads the caret for the column.
      if (/\.java$/.test(m[1] as string)) continue;
      const severity: Severity = m[4] === 'warning' ? 'warning' : m[4] === 'note' || m[4] === 'remark' ? 'note' : 'error';
      let message = m[5] as string;
      const flag = FLAG.exec(message);
      const d = makeDiagnostic({ tool: DiagnosticTool.GCC, severity, file: m[1] as string, line: toInt(m[2]), column: toInt(m[3]), message, output_line: i });
      if (flag) {
        message = message.slice(0, flag.index);
        d.message = message;
        d.code = flag[1] as string;
      }
      out.push(d);
      continue;
    }
    const l = LINKER.exec(line);
    if (l) out.push(makeDiagnostic({ tool: DiagnosticTool.GCC, severity: 'error', file: l[1] as string, message: l[2] as string, output_line: i }));
  }
  return out;
}
