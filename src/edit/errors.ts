/**
 * The engine's refusals, worded for a model to act on: what was wrong, and
 * what request would work instead.
 */
import { EditwardenError, ErrorCode, quote } from '../errors.js';

/**
 * How much of old_text "Searched for: <old_text>" shows whole: the design quotes the anchor so a
 * model can compare it with the file, and real anchors (a function, a config block) run to hundreds
 * of characters. Beyond this, a pasted file would flood the error: the rest is cut and counted.
 */
export const SEARCHED_FOR_MAX_CHARS = 2000;

/** The not-found message's searched text: whole up to SEARCHED_FOR_MAX_CHARS, then cut with the count of what was left out. */
export function searchedFor(oldText: string): string {
  if (oldText.length <= SEARCHED_FOR_MAX_CHARS) return oldText;
  // Never split a surrogate pair: the cut text stays valid UTF-16.
  const end = /[\uD800-\uDBFF]/.test(oldText.charAt(SEARCHED_FOR_MAX_CHARS - 1)) ? SEARCHED_FOR_MAX_CHARS - 1 : SEARCHED_FOR_MAX_CHARS;
  return `${oldText.slice(0, end)}…[${oldText.length - end} more chars]`;
}

/** The safety design's not-found sentences, verbatim: the searched text, then the read_file hint. */
export function notFoundSentences(oldText: string): string {
  return `The specified old_text was not found in the file. Searched for: ${searchedFor(oldText)}. Hint: Use read_file to view current contents and find a unique anchor point.`;
}

export function missingOldText(path: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.MISSING_OLD_TEXT,
    // The safety design's sentence, verbatim, first; what to copy follows.
    message: "edit mode requires old_text parameter. To append to file, use 'append' mode. To replace entire file, use 'overwrite' mode explicitly. " + `old_text is the exact, unique text to replace in ${path}.`,
    hint: "Read the file, copy the lines you want to change into old_text; or choose mode 'append' / 'overwrite'.",
    path,
  });
}

/** Empty old_text on a file that has content: it names no place (creating the file needs a file that does not exist yet). */
export function emptyOldTextOnContent(path: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.MISSING_OLD_TEXT,
    // The safety design's sentence, verbatim, first (a contract); why an empty old_text is refused here follows.
    message:
      "edit mode requires old_text parameter. To append to file, use 'append' mode. To replace entire file, use 'overwrite' mode explicitly. " +
      `old_text is empty, but ${path} already exists and is not empty: an empty old_text only creates a file that does not exist yet.`,
    hint: `Copy the exact lines of ${path} you want to change into old_text (read the file first), or use mode 'append' / 'overwrite'.`,
    path,
  });
}

export function fileExists(path: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.EXISTS,
    message: `${path} already exists; mode 'create' only makes new files.`,
    hint: "Use mode 'edit' with a unique old_text to change it, or mode 'overwrite' to replace it entirely.",
    path,
  });
}

export function noFile(path: string, action: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.NO_FILE,
    message: `${path} does not exist, so it cannot be changed with '${action}'.`,
    hint: "Check the path (list_files shows what exists), or make the file with mode 'create'.",
    path,
  });
}

export function ambiguous(path: string, oldText: string, lines: number[], strategy: string, lineHint?: number): EditwardenError {
  const shown = lines.slice(0, 20).join(', ') + (lines.length > 20 ? ', …' : '');
  const how = strategy === 'exact' ? '' : ` (matching with tolerance for ${strategy})`;
  return new EditwardenError({
    code: ErrorCode.AMBIGUOUS,
    message: `old_text ${quote(oldText, 80)} occurs ${lines.length} times in ${path}${how}, at lines ${shown}${lineHint !== undefined ? `; none of them starts at the hinted line ${lineHint}` : ''}.`,
    // With a line hint that named none of the places, the one thing to change is the hint.
    hint:
      lineHint !== undefined
        ? `Set ":start_line:" to the line where the block you mean starts (one of lines ${shown}), or add surrounding lines to SEARCH until it matches one place.`
        : 'Add surrounding lines to old_text until it matches exactly one place, or set replace_all: true to change every occurrence.',
    path,
    line: lines[0] as number,
  });
}

export function dramaticReduction(path: string, beforeLines: number, afterLines: number, ratio: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.DRAMATIC_REDUCTION,
    message: `This change would shrink ${path} from ${beforeLines} lines to ${afterLines} ` + `(below ${Math.round(ratio * 100)}% of it). Refused to protect against wiping a file by accident.`,
    // The design's Option 3: replacing the whole file is what an explicit overwrite is for (never under this guard).
    hint: "Edit only the part that must change with mode 'edit'; to replace the whole file on purpose, send edit_file with mode 'overwrite' (explicit); if removing most of the file with an edit is really intended, set force: true.",
    path,
  });
}

export function tooLarge(path: string, bytes: number, max: number): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.TOO_LARGE,
    message: `The result for ${path} would be ${bytes} bytes, above the ${max}-byte limit.`,
    hint: 'Split the content across several files, or raise edit.max_file_bytes in .editwarden.yml if this is intended.',
    path,
  });
}
