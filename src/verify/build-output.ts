/**
 * A build's whole output, and the part of it a person reads first.
 *
 * The runner keeps every byte a build prints in `combined.log` under the
 * run's `verify/<n>/` folder and only a bounded tail in memory. A compiler's
 * first error usually comes early and is followed by hundreds of lines of
 * progress, warnings and make's summary, so a tail alone loses it (a g++ error
 * followed by 300 lines was cut from the controlled-edit report). Here: read
 * the whole log back (bounded: a runaway build must not become a runaway
 * session state), and cut an excerpt that puts the compiler's error lines —
 * found by the diagnostics parsers, not by grepping — before the tail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseDiagnostics } from './diagnostics/index.js';
import { outputLines } from './diagnostics/types.js';
import { appendAll } from '../arrays.js';

/** Output up to this size is held whole; beyond, its head and tail (the errors come first, the summary last). */
const BUILD_OUTPUT_MAX_BYTES = 1024 * 1024;
const EXCERPT_ERROR_LINES = 20;
const EXCERPT_TAIL_LINES = 40;

export interface BuildOutput {
  /** The output, decoded leniently; whole when `complete`. */
  text: string;
  /** Bytes of the log. */
  bytes: number;
  complete: boolean;
  /** The log file, relative to the root ("/" separators). */
  file: string;
}

/** Reads `<artifactDir>/combined.log` (artifactDir relative to root); null when there is none. Never follows a link. */
export function readBuildOutput(root: string, artifactDir: string, maxBytes = BUILD_OUTPUT_MAX_BYTES): BuildOutput | null {
  const file = `${artifactDir}/combined.log`;
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, file), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const bytes = fs.fstatSync(fd).size;
    if (bytes <= maxBytes) return { text: fs.readFileSync(fd).toString('utf8'), bytes, complete: true, file };
    const half = Math.floor(maxBytes / 2);
    const head = Buffer.alloc(half);
    const tail = Buffer.alloc(half);
    fs.readSync(fd, head, 0, half, 0);
    fs.readSync(fd, tail, 0, half, bytes - half);
    const text = `${head.toString('utf8')}\n[… ${bytes - 2 * half} bytes of the build output left out here; the whole output is in ${file} …]\n${tail.toString('utf8')}`;
    return { text, bytes, complete: false, file };
  } finally {
    fs.closeSync(fd);
  }
}

export interface ExcerptOptions {
  errorLines?: number;
  tailLines?: number;
}

/**
 * What the report shows of a build's output: all of it when it is short; otherwise the lines
 * where the diagnostics parsers found a compiler error (before the tail, first `errorLines`),
 * then the last `tailLines` lines — each part under a marker line saying what it is.
 * Pure: text in, text out.
 */
export function compilationExcerpt(text: string, options: ExcerptOptions = {}): string {
  const errorMax = options.errorLines ?? EXCERPT_ERROR_LINES;
  const tailMax = options.tailLines ?? EXCERPT_TAIL_LINES;
  // The parsers' own line split (colours removed, CR as a line end): their output_line indexes into it.
  const lines = outputLines(text);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length <= errorMax + tailMax) return lines.join('\n');
  const tailStart = lines.length - tailMax;
  const errorAt = [
    ...new Set(
      parseDiagnostics(text, { limit: 2000 })
        .filter((d) => d.severity === 'error' && d.output_line < tailStart)
        .map((d) => d.output_line),
    ),
  ].sort((a, b) => a - b);
  const out: string[] = [];
  if (errorAt.length > 0) {
    const shown = errorAt.slice(0, errorMax);
    const more = errorAt.length > shown.length ? `, first ${shown.length} of ${errorAt.length}` : '';
    out.push(`[compiler errors: output line${shown.length > 1 ? 's' : ''} ${shown.map((n) => n + 1).join(', ')}${more}]`);
    for (const n of shown) out.push(lines[n] as string);
  }
  out.push(`[last ${tailMax} of ${lines.length} lines]`);
  appendAll(out, lines.slice(tailStart));
  return out.join('\n');
}
