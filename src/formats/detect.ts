/**
 * `--format auto`: which edit format a reply is written in, from its text
 * alone. Pure. It must never guess between two formats that both appear: the
 * most specific marker wins, in a fixed order, and text with no marker at
 * all is E_PARSE rather than "probably a diff".
 *
 * Order (most specific first): JSON (the text is a JSON value), apply_patch
 * (`*** Begin Patch`), active edit (`---BEGIN---`), SEARCH/REPLACE
 * (`<<<<<<< SEARCH`), unified diff (`--- ` + `+++ ` pair, `diff --git`, or an
 * `@@ -N` hunk header). An apply_patch envelope contains `@@` lines and a
 * SEARCH block may quote a diff, which is why diffs come last.
 */
import type { EditwardenError } from '../errors.js';
import { parseError, type FormatName } from './parse-result.js';

const APPLY_PATCH = /^[ \t]*\*\*\* Begin Patch[ \t]*\r?$/m;
const ACTIVE_EDIT = /^[ \t]*---BEGIN---[ \t]*\r?$/m;
const SEARCH_REPLACE = /^(?:<{5,9}|-{3,}) ?SEARCH[ \t]*\r?$/m;
const UNIFIED_DIFF = /^(?:diff --git |--- [^\n]*\r?\n\+\+\+ |@@ -\d)/m;

export function detectFormat(text: string): FormatName | undefined {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      // Not JSON after all (a diff of a JSON file starts with "---", so this is rare): look for markers.
    }
  }
  if (APPLY_PATCH.test(text)) return 'apply-patch';
  if (ACTIVE_EDIT.test(text)) return 'active-edit';
  if (SEARCH_REPLACE.test(text)) return 'search-replace';
  if (UNIFIED_DIFF.test(text)) return 'udiff';
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return 'json';
  return undefined;
}

export function unrecognisedFormat(): EditwardenError {
  return parseError(
    'Could not tell the edit format: the text has no JSON request, "*** Begin Patch", "---BEGIN---", "<<<<<<< SEARCH" or unified diff ("--- a/…" / "+++ b/…").',
    1,
    'Name the format with --format json|active-edit|search-replace|apply-patch|udiff, or send the edits in one of these formats.',
  );
}
