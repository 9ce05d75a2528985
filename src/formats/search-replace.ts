/**
 * SEARCH/REPLACE blocks as Aider and Cline write them, parsed into edit
 * requests. Pure: text in, requests out; finding the SEARCH text in the file
 * is the engine's job (with its uniqueness rule and tolerant strategies).
 *
 * Grammar (one reply; prose between blocks is ignored):
 *
 *   reply   := (prose | block)*
 *   block   := path_line? FENCE? SEARCH LF line* DIVIDER LF line* REPLACE LF FENCE?
 *   path_line := the nearest non-blank line above the block's fence (or above SEARCH),
 *              stripped of "#", "*", "`" and a trailing ":"; a block directly after
 *              another block in the same fence reuses its path
 *   SEARCH  := "<<<<<<< SEARCH"          (Aider, Cline; 5–9 "<")  |  "------- SEARCH"  (Cline's newer form)
 *   DIVIDER := "======="                 (5–9 "=")
 *   REPLACE := ">>>>>>> REPLACE"         (5–9 ">")                |  "+++++++ REPLACE"
 *   line    := TEXT LF | NO_NEWLINE LF   ("\ No newline at end of file", an editwarden
 *                                         extension: the text above ends without a newline)
 *
 * Meaning: SEARCH and REPLACE are whole lines (each with its newline). An
 * empty SEARCH creates the file when it does not exist and appends to it when
 * it does (Aider's rule); the caller says which through `fileExists`.
 *
 * Each block is one item: a malformed one is reported with its index and
 * line, and the others still parse.
 */
import { ErrorCode, EditwardenError } from '../errors.js';
import type { EditRequest } from '../edit/types.js';
import { normalizeEol } from '../edit/text.js';
import { parseError, probeExists, source, type ItemError, type ParseOptions, type ParseResult } from './parse-result.js';

export const SEARCH_MARKER = /^(?:<{5,9}|-{3,9}) ?SEARCH\s*$/;
export const DIVIDER_MARKER = /^={5,9}\s*$/;
export const REPLACE_MARKER = /^(?:>{5,9}|\+{3,9}) ?REPLACE\s*$/;
export const FENCE = /^\s*(`{3,}|~{3,})/;
export const NO_NEWLINE_MARKER = '\\ No newline at end of file';

export interface SearchReplaceOptions extends ParseOptions {
  /** The file every block edits, when the caller knows it (Cline's replace_in_file passes the path separately). */
  path?: string;
}

const HINT = 'Write the file path on its own line, then "<<<<<<< SEARCH", the exact lines to find, "=======", the new lines, and ">>>>>>> REPLACE".';

/** Aider's strip_filename: what is left of a path line once markdown decoration is gone. */
export function cleanPathLine(line: string): string | undefined {
  let name = line.trim();
  if (name === '' || FENCE.test(name)) return undefined;
  name = name.replace(/^#+\s*/, '').replace(/^\*+|\*+$/g, '').replace(/^`+|`+$/g, '').replace(/:$/, '').trim();
  name = name.replace(/^`+|`+$/g, '').trim();
  // A path line is one token: prose above a block ("Here is the fix:") is not a file name.
  if (name === '' || /\s/.test(name) || name.length > 500) return undefined;
  return name;
}

function toText(lines: string[]): string {
  if (lines.length === 0) return '';
  if (lines[lines.length - 1]?.trim() === NO_NEWLINE_MARKER) return lines.slice(0, -1).join('\n');
  return lines.join('\n') + '\n';
}

export function parseSearchReplace(input: string, options: SearchReplaceOptions = {}): ParseResult {
  const lines = normalizeEol(input).split('\n');
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  let index = 0;
  let previousPath: string | undefined;
  /** Index of the line after the last block's REPLACE, to tell "same fence, next block" apart. */
  let previousEnd = -1;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (!SEARCH_MARKER.test(line)) {
      // A stray divider or REPLACE outside a block means a SEARCH marker was lost.
      // (A lone "=======" may be a markdown underline; a lone REPLACE marker is not.)
      if (REPLACE_MARKER.test(line)) {
        errors.push({ index: index++, line: i + 1, error: parseError(`Line ${i + 1} closes a block ("${line.trim()}") that no "<<<<<<< SEARCH" opened.`, i + 1, HINT) });
        previousEnd = i + 1;
      }
      i++;
      continue;
    }
    const itemIndex = index++;
    const startLine = i + 1;
    let path: string | undefined = options.path;
    if (path === undefined) {
      // Look up for the path: skip blanks and one fence; a block right after a block (same fence) reuses its path.
      let k = i - 1;
      while (k >= 0 && (lines[k] as string).trim() === '') k--;
      if (k >= 0 && REPLACE_MARKER.test(lines[k] as string)) path = previousPath;
      else {
        if (k >= 0 && FENCE.test(lines[k] as string)) {
          k--;
          while (k >= 0 && (lines[k] as string).trim() === '') k--;
        }
        path = (k >= 0 && k >= previousEnd ? cleanPathLine(lines[k] as string) : undefined) ?? previousPath;
      }
    }
    // Find the divider and the REPLACE marker.
    let divider = -1;
    let end = -1;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] as string;
      if (SEARCH_MARKER.test(l)) break;
      if (divider === -1 && DIVIDER_MARKER.test(l)) divider = j;
      else if (divider !== -1 && REPLACE_MARKER.test(l)) {
        end = j;
        break;
      }
    }
    try {
      if (divider === -1) throw parseError(`The block at line ${startLine} has no "=======" line between SEARCH and REPLACE.`, startLine, HINT, path);
      if (end === -1) throw parseError(`The block at line ${startLine} has no ">>>>>>> REPLACE" line.`, startLine, HINT, path);
      if (path === undefined) throw parseError(`The block at line ${startLine} names no file: put the path on the line above it (or above its code fence).`, startLine, HINT);
      const search = toText(lines.slice(i + 1, divider));
      const replace = toText(lines.slice(divider + 1, end));
      const src = source('search-replace', itemIndex, startLine);
      if (search === '') {
        requests.push(probeExists(options, path) ? { action: 'append', path, content: replace, source: src } : { action: 'create', path, content: replace, source: src });
      } else if (search.trim() === '') {
        throw new EditwardenError({
          code: ErrorCode.MISSING_OLD_TEXT,
          message: `The SEARCH part of the block at line ${startLine} is only whitespace; it cannot name a unique place in ${path}.`,
          hint: 'Copy a few distinctive lines of the file into SEARCH (or leave it empty to create the file).',
          path,
          line: startLine,
        });
      } else {
        requests.push({ action: 'edit', path, oldText: search, newText: replace, source: src });
      }
      previousPath = path;
      previousEnd = end + 1;
      i = end + 1;
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      errors.push({ index: itemIndex, line: startLine, ...(path !== undefined ? { path } : {}), error });
      previousEnd = (end === -1 ? j : end) + 1;
      i = end === -1 ? Math.max(j, i + 1) : end + 1;
    }
  }
  if (requests.length === 0 && errors.length === 0) {
    errors.push({ index: 0, line: 1, error: parseError('No SEARCH/REPLACE block found.', 1, HINT) });
  }
  return { requests, errors };
}
