/**
 * Roo Code's dialect of SEARCH/REPLACE blocks (its `apply_diff` tool), read
 * inside search-replace.ts. Pure. Its hint lines are metadata and must never
 * be written into a file; its escaped marker lines are content and must never
 * keep their backslash.
 *
 * Grammar of a Roo block (the markers are Aider's; what differs is the head
 * of SEARCH and the escapes):
 *
 *   block   := "<<<<<<< SEARCH" LF head line* "=======" LF line* ">>>>>>> REPLACE"
 *   head    := (":start_line:" N LF)? (":end_line:" N LF)? ("-------" LF)?   (at least one of them)
 *   line    := ESCAPED LF | TEXT LF
 *   ESCAPED := "\" marker-line   — the marker line itself, as content: "\=======", "\<<<<<<< SEARCH",
 *              "\>>>>>>> REPLACE", "\-------", "\:start_line:10", "\:end_line:12"
 *
 * Meaning: `:start_line:` / `:end_line:` say where SEARCH sits in the file;
 * they only choose between several places SEARCH matches (edit/engine.ts,
 * `lineHint`). A hint line anywhere else — inside SEARCH after content, or
 * inside REPLACE — is refused: written into the file it would corrupt it, and
 * dropped it might be content the model meant. In a reply that speaks the
 * dialect (one of its blocks has a head) every marker-like line escaped with a
 * backslash loses it, as Roo does. Elsewhere only a line that is exactly one
 * backslash followed by a whole marker line is an escape (ESCAPED_LINE): Roo's
 * models escape without a head too, and a marker line cannot stand in a
 * block's content any other way, while "\<<<" with other text after it stays
 * as written.
 */
import type { EditwardenError } from '../errors.js';
import { parseError } from './parse-result.js';

/** A line hint: ":start_line:12" or ":end_line:14" (Roo writes the number right after the colon). */
const HINT_LINE = /^\s*:(start_line|end_line):\s*(\d*)\s*$/;
/** The separator between the hints and the SEARCH content: exactly seven dashes (Roo's). */
const ROO_SEPARATOR = /^-------\s*$/;
/** A marker-like line escaped with one backslash. */
const ESCAPED_MARKER = /^\\(?=<{3,}|={3,}|>{3,}|-{3,}|\+{3,}|:start_line:|:end_line:)/;

export interface RooHead {
  /** Lines the head takes after the SEARCH marker (0: not a Roo block). */
  length: number;
  lineHint?: { start: number; end?: number };
}

/** The head of the block whose SEARCH content starts at `from` (its divider at `to`). */
export function readRooHead(lines: string[], from: number, to: number): RooHead {
  let k = from;
  let start: number | undefined;
  let end: number | undefined;
  const value = (line: string): number | undefined => {
    const n = HINT_LINE.exec(line)?.[2];
    return n === undefined || n === '' ? undefined : Number(n);
  };
  if (k < to && HINT_LINE.exec(lines[k] as string)?.[1] === 'start_line') start = value(lines[k++] as string);
  if (k < to && HINT_LINE.exec(lines[k] as string)?.[1] === 'end_line') end = value(lines[k++] as string);
  if (k < to && ROO_SEPARATOR.test(lines[k] as string)) k++;
  const head: RooHead = { length: k - from };
  if (start !== undefined && start > 0) head.lineHint = end !== undefined && end >= start ? { start, end } : { start };
  return head;
}

/** Whether any block of the reply has a Roo head: then its escapes are undone. */
export function speaksRoo(lines: string[], isSearchMarker: (line: string) => boolean): boolean {
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!isSearchMarker(lines[i] as string)) continue;
    const next = lines[i + 1] as string;
    if (HINT_LINE.test(next) || ROO_SEPARATOR.test(next)) return true;
  }
  return false;
}

/** A content line with its escape undone ("\=======" → "======="), in a reply that speaks Roo's dialect. */
export function unescapeRooLine(line: string): string {
  return ESCAPED_MARKER.test(line) ? line.slice(1) : line;
}

/** A whole hint line with its number (":start_line:12"), as Roo writes it. */
const WHOLE_HINT = /^:(?:start_line|end_line):\s*\d+\s*$/;
/** git's conflict markers ("<<<<<<< HEAD", "=======", ">>>>>>> branch"): Roo's models escape them inside content too. */
const CONFLICT_MARKER = /^(?:<{7}|>{7})(?:[ \t].*)?$|^={7}$/;

/**
 * A content line with its escape undone in any SEARCH/REPLACE reply, only when the line is exactly one
 * backslash followed by a whole marker line: a block marker of the reply's grammar (`isMarker`), Roo's
 * separator or a hint with its number, or a git conflict marker. Such a line cannot be content as written
 * (unescaped it would end the block), so the escape is the only thing it can mean.
 */
export function unescapeMarkerLine(line: string, isMarker: (line: string) => boolean): string {
  if (!line.startsWith('\\')) return line;
  const rest = line.slice(1);
  return isMarker(rest) || ROO_SEPARATOR.test(rest) || WHOLE_HINT.test(rest) || CONFLICT_MARKER.test(rest) ? rest : line;
}

/**
 * The first unescaped hint line of a block's SEARCH content (after its head) or REPLACE part, as a refusal;
 * undefined when there is none. `firstLine` is the 1-based reply line of `part[0]`.
 */
export function strayHint(part: string[], firstLine: number, where: 'SEARCH' | 'REPLACE', path: string | undefined): EditwardenError | undefined {
  const k = part.findIndex((l) => HINT_LINE.test(l));
  if (k < 0) return undefined;
  const line = firstLine + k;
  const hint = (part[k] as string).trim();
  return parseError(
    `Line ${line} ("${hint}") is a line hint inside the ${where} part of a block: hints are not file content, and this one is not where a hint may stand.`,
    line,
    where === 'REPLACE'
      ? `Remove "${hint}" from the replacement. Line hints go only right after "<<<<<<< SEARCH" (then "-------"); if the file really holds that text, escape it as "\\${hint}".`
      : `Move "${hint}" up to the line right after "<<<<<<< SEARCH" (then "-------"); if the file really holds that text, escape it as "\\${hint}".`,
    path,
  );
}
