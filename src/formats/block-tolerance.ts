/**
 * What search-replace.ts forgives in the way a block is written, beyond its
 * grammar: shapes other agents accept, each one read only where the model's
 * intent is the only thing it can mean, and each named in the request's
 * `readAs` notes so the result says which normalisation was used. Pure:
 * the one question about the project (which files have this name) is asked
 * of the caller (`ParseOptions.filesNamed`).
 *
 *   long divider   a line of 10 or more "=" (Cline accepts any length) is the divider only
 *                  when it is the block's one divider-like line: a markdown underline in
 *                  SEARCH next to a real "=======" stays content.
 *   line numbers   Roo Code's read_file shows "12 | code"; a part whose every line carries
 *                  such a prefix, numbered consecutively, is read without them (SEARCH first:
 *                  REPLACE is stripped only with it, and only when all or none of its lines
 *                  are numbered).
 *   fenced name    DeepSeek's habit: the file name alone in a fence of its own, right above
 *                  the fence that holds the block.
 *   bare name      a path line naming no file of the root, without a folder, when exactly one
 *                  file of the tree has that name: that file, its path in the result.
 *   whole lines    SEARCH and REPLACE are whole lines: the engine is told so (`wholeLines`),
 *                  so that a SEARCH that starts with a blank line the file lacks is matched
 *                  without it, never from the end of the line above.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import { probeExists, type ParseOptions } from './parse-result.js';

/** Ten or more "=": longer than the 5–9 the grammar's DIVIDER takes. */
const LONG_DIVIDER = /^={10,}\s*$/;
/** Roo Code's line-number prefix: "12 | code" (a blank line may be "12 |"). */
const NUMBERED = /^\s*(\d+) \|(?: (.*))?$/;

/**
 * The divider of a block whose SEARCH marker is at `from` and whose REPLACE marker (or end) is at `to`, when the
 * grammar found none: the one long "=" line between them. -1 when there is none or more than one.
 */
export function longDivider(lines: string[], from: number, to: number): number {
  const at: number[] = [];
  for (let k = from + 1; k < to; k++) if (LONG_DIVIDER.test(lines[k] as string)) at.push(k);
  return at.length === 1 ? (at[0] as number) : -1;
}

/** The lines of a part without Roo's "N | " prefixes, when every line carries one and they count up by one; null otherwise. */
function withoutNumbers(part: string[]): string[] | null {
  if (part.length === 0) return null;
  const out: string[] = [];
  let expected: number | undefined;
  for (const line of part) {
    const m = NUMBERED.exec(line);
    if (!m) return null;
    const n = Number(m[1]);
    if (expected !== undefined && n !== expected) return null;
    expected = n + 1;
    out.push(m[2] ?? '');
  }
  return out;
}

/** SEARCH and REPLACE with Roo's line-number prefixes removed (see the module comment), and the note saying so; null when they stay. */
export function stripLineNumbers(search: string[], replace: string[]): { search: string[]; replace: string[]; note: string } | null {
  const plainSearch = withoutNumbers(search);
  if (plainSearch === null) return null;
  const plainReplace = withoutNumbers(replace);
  if (plainReplace === null && replace.some((l) => NUMBERED.test(l))) return null;
  return {
    search: plainSearch,
    replace: plainReplace ?? replace,
    note: `line-number prefixes ("N | ", as read_file shows them) were removed from SEARCH${plainReplace ? ' and REPLACE' : ''}: every line carried one, numbered consecutively`,
  };
}

/**
 * DeepSeek's fenced file name: the fence lines at `closeAt` (closing) and `closeAt - 2` (opening) hold one path line
 * between them. Returns the path and the index of the opening fence, or undefined.
 */
export function fencedName(lines: string[], closeAt: number, isFence: (line: string) => boolean, cleanPath: (line: string) => string | undefined): { path: string; start: number } | undefined {
  if (closeAt < 2 || !isFence(lines[closeAt] as string) || !isFence(lines[closeAt - 2] as string)) return undefined;
  const path = cleanPath(lines[closeAt - 1] as string);
  return path === undefined ? undefined : { path, start: closeAt - 2 };
}

/** The note of a path read from its own fence. */
export const fencedNameNote = (path: string): string => `the file name ${path} was read from its own fenced line above the block`;

/**
 * The file a bare path line means: itself when it exists (or names a folder, or nothing can be asked), else the one
 * file of the tree with that name. Several such files: refused, naming them (guessing would edit the wrong one).
 */
export function resolveBareName(path: string, options: ParseOptions, line: number): { path: string; note?: string } {
  if (path.includes('/') || path.includes('\\') || !options.filesNamed || probeExists(options, path)) return { path };
  let found: string[];
  try {
    found = options.filesNamed(path);
  } catch {
    return { path };
  }
  if (found.length === 1) {
    const only = found[0] as string;
    return { path: only, note: `${path} is not a file at the root; ${only} is the one file of the project with that name, and it was edited` };
  }
  if (found.length > 1) {
    const listed = found.slice(0, 5).join(', ');
    throw new EditwardenError({
      code: ErrorCode.NO_FILE,
      message: `${path} is not a file at the root, and ${found.length} files of the project have that name (${listed}${found.length > 5 ? ', …' : ''}); which one is meant cannot be told.`,
      hint: `Write the path of the file to change from the root (for example ${found[0]}) on the line above the block.`,
      path,
      line,
    });
  }
  return { path };
}
