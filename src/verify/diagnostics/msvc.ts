/**
 * MSVC-style diagnostics (cl.exe, link.exe, csc, MSBuild):
 *
 *   file(line): error C2065: message
 *   file(line,col): warning C4189: message
 *   file(line,col,endline,endcol): error CS1002: message
 *   LINK : fatal error LNK1104: message           (no file)
 *   main.obj : error LNK2019: message
 *
 * MSBuild appends " [project.vcxproj]"; it is removed. TypeScript's plain
 * output has the same shape with TS codes: those belong to the tsc parser.
 */
import { DiagnosticTool, locationAt, makeDiagnostic, outputLines, type Diagnostic } from './types.js';

const LOCATED = /^\s*(.+?)\((\d+)(?:,(\d+))?(?:,\d+,\d+)?\)\s*:\s*(fatal error|error|warning|note|info)\s+([A-Z]+\d+)\s*:\s*(.*)$/;
const TOOL = /^\s*(.+?)\s+:\s+(fatal error|error|warning)\s+([A-Z]+\d+)\s*:\s*(.*)$/;
const PROJECT_SUFFIX = /\s+\[[^\]]+\.(?:vcxproj|csproj|fsproj|vbproj|proj|sln)\]$/;

export function parseMsvc(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(PROJECT_SUFFIX, '');
    const m = LOCATED.exec(line);
    if (m) {
      const code = m[5] as string;
      if (code.startsWith('TS')) continue;
      out.push(
        makeDiagnostic({
          tool: DiagnosticTool.MSVC,
          severity: severityOf(m[4] as string),
          ...locationAt(m),
          message: m[6] as string,
          code,
          output_line: i,
        }),
      );
      continue;
    }
    const t = TOOL.exec(line);
    if (t) {
      const where = t[1] as string;
      out.push(
        makeDiagnostic({
          tool: DiagnosticTool.MSVC,
          severity: severityOf(t[2] as string),
          // "LINK" and "cl" are tools, not files; "main.obj" is the object that failed.
          file: /^(LINK|cl|CL|link)$/.test(where) ? null : where,
          message: t[4] as string,
          code: t[3] as string,
          output_line: i,
        }),
      );
    }
  }
  return out;
}

function severityOf(word: string): 'error' | 'warning' | 'note' {
  if (word === 'warning') return 'warning';
  if (word === 'note' || word === 'info') return 'note';
  return 'error';
}
