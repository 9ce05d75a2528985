/**
 * All diagnostics parsers behind one call. Each parser knows one tool's
 * format; this module runs them all (output rarely says which tool printed
 * it: `make` runs gcc, `npm test` runs vitest), drops duplicates, orders the
 * result as the output did and caps its size. Pure; never throws.
 */
import { parseCmake } from './cmake.js';
import { parseGcc } from './gcc.js';
import { parseGo } from './go.js';
import { parseJavac } from './javac.js';
import { parseMsvc } from './msvc.js';
import { parsePythonTracebacks } from './python.js';
import { parseRustc } from './rustc.js';
import { parseTsc } from './tsc.js';
import { parseJest, parseNodeTest, parseVitest } from './tests-js.js';
import { parseCargoTest, parseCtest, parseGoTest } from './tests-native.js';
import { parsePytest, parseUnittest } from './tests-python.js';
import type { Diagnostic, DiagnosticParser, DiagnosticTool } from './types.js';

export * from './types.js';
export { parseCmake, parseGcc, parseGo, parseJavac, parseMsvc, parsePythonTracebacks, parseRustc, parseTsc };
export { parseJest, parseNodeTest, parseVitest, parseCargoTest, parseCtest, parseGoTest, parsePytest, parseUnittest };

/** Specific formats first: when two parsers read the same line, the first one's reading is kept. */
export const PARSERS: readonly { tool: DiagnosticTool; parse: DiagnosticParser }[] = [
  { tool: 'tsc', parse: parseTsc },
  { tool: 'javac', parse: parseJavac },
  { tool: 'rustc', parse: parseRustc },
  { tool: 'cmake', parse: parseCmake },
  { tool: 'msvc', parse: parseMsvc },
  { tool: 'go', parse: parseGo },
  { tool: 'gcc', parse: parseGcc },
  { tool: 'vitest', parse: parseVitest },
  { tool: 'jest', parse: parseJest },
  { tool: 'node-test', parse: parseNodeTest },
  { tool: 'pytest', parse: parsePytest },
  { tool: 'unittest', parse: parseUnittest },
  { tool: 'go-test', parse: parseGoTest },
  { tool: 'cargo-test', parse: parseCargoTest },
  { tool: 'ctest', parse: parseCtest },
  { tool: 'python', parse: parsePythonTracebacks },
];

export interface ParseOptions {
  /** Only these tools (default: all). */
  tools?: readonly DiagnosticTool[];
  /** At most this many diagnostics (default 500): a runaway build must not make a runaway report. */
  limit?: number;
}

export function parseDiagnostics(text: string, options: ParseOptions = {}): Diagnostic[] {
  const limit = options.limit ?? 500;
  const found: Diagnostic[] = [];
  const claimed = new Set<number>();
  const keys = new Set<string>();
  for (const { tool, parse } of PARSERS) {
    if (options.tools && !options.tools.includes(tool)) continue;
    let list: Diagnostic[];
    try {
      list = parse(text);
    } catch {
      // Parsers are fuzzed never to throw; this is the belt to those braces.
      continue;
    }
    const lines = new Set<number>();
    for (const d of list) {
      // Compiler diagnostics claim their output line; test failures may share lines with tracebacks.
      if (d.test === undefined && claimed.has(d.output_line)) continue;
      const key = `${d.test ?? ''}\u0000${d.file ?? ''}\u0000${d.line ?? ''}\u0000${d.message.split('\n')[0]}`;
      if (keys.has(key)) continue;
      keys.add(key);
      if (d.test === undefined) lines.add(d.output_line);
      found.push(d);
    }
    for (const n of lines) claimed.add(n);
  }
  found.sort((a, b) => a.output_line - b.output_line);
  return found.slice(0, limit);
}

/** Short human line: "src/a.ts:4:37 error TS2345 Argument of type…". */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.file ? `${d.file}${d.line !== null ? `:${d.line}${d.column !== null ? `:${d.column}` : ''}` : ''} ` : '';
  const code = d.code && !d.message.startsWith(d.code) ? ` ${d.code}` : '';
  const what = d.test !== undefined ? `FAIL ${d.test}` : `${d.severity}${code}`;
  return `${where}${what}: ${d.message.split('\n')[0]}`;
}
