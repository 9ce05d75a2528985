/**
 * What a diagnostic is, whatever printed it: a compiler error, a warning, a
 * failing test. Parsers are pure functions from output text to a list of
 * these; they must never throw, whatever bytes a build prints (fuzzed).
 */

export type Severity = 'error' | 'warning' | 'note';

export const DiagnosticTool = {
  GCC: 'gcc',
  CMAKE: 'cmake',
  MSVC: 'msvc',
  TSC: 'tsc',
  RUSTC: 'rustc',
  GO: 'go',
  JAVAC: 'javac',
  PYTHON: 'python',
  VITEST: 'vitest',
  JEST: 'jest',
  PYTEST: 'pytest',
  UNITTEST: 'unittest',
  GO_TEST: 'go-test',
  CARGO_TEST: 'cargo-test',
  NODE_TEST: 'node-test',
  CTEST: 'ctest',
} as const;
export type DiagnosticTool = (typeof DiagnosticTool)[keyof typeof DiagnosticTool];

export interface Diagnostic {
  tool: DiagnosticTool;
  severity: Severity;
  /** As printed (relative or absolute); null when the tool names no file. */
  file: string | null;
  /** 1-based. */
  line: number | null;
  /** 1-based. */
  column: number | null;
  /** First line is the summary; indented detail lines may follow. */
  message: string;
  /** Tool's own code: TS2322, E0308, C2065, -Wunused-variable. */
  code?: string;
  /** For a failing test: its name as the framework prints it. */
  test?: string;
  /** 0-based line of the output where it was found (orders diagnostics from several parsers). */
  output_line: number;
}

export type DiagnosticParser = (text: string) => Diagnostic[];

// ESC [ … final byte, and OSC hyperlinks (ESC ] … BEL/ST): colours must not break the patterns.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Longer lines (minified bundles, base64 blobs) are cut: no diagnostic needs more, and regexes stay linear in practice. */
const MAX_LINE_CHARS = 16_384;

/** Output as lines: colours removed, CRLF and lone CR (progress redraws) turned into line ends. */
export function outputLines(text: string): string[] {
  return text
    .replace(ANSI, '')
    .split(/\r\n|\n|\r/)
    .map((line) => (line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line));
}

export function toInt(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** file, line and column from three consecutive groups of a match, starting at `first` (most formats print `file:line:col`). */
export function locationAt(match: RegExpExecArray, first = 1): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  return { file: match[first] as string, line: toInt(match[first + 1]), column: toInt(match[first + 2]) };
}

export function makeDiagnostic(fields: Omit<Diagnostic, 'file' | 'line' | 'column'> & Partial<Pick<Diagnostic, 'file' | 'line' | 'column'>>): Diagnostic {
  return { file: null, line: null, column: null, ...fields };
}
