/**
 * The edit formats: text a model wrote → the engine's one request type. Every
 * parser here is pure and returns `{requests, errors}` (one bad item never
 * hides the others); `parseEdits` picks the parser by name or by detection.
 */
import { parseActiveEdit } from './active-edit.js';
import { parseApplyPatch } from './apply-patch.js';
import { detectFormat, unrecognisedFormat } from './detect.js';
import { parseJson } from './json.js';
import type { FormatName, ParseOptions, ParseResult } from './parse-result.js';
import { parseSearchReplace } from './search-replace.js';
import { parseUnifiedDiff } from './udiff.js';

export * from './parse-result.js';
export { detectFormat } from './detect.js';
export { parseJson } from './json.js';
export { ActiveEditStreamParser, parseActiveEdit, type ActiveEditEvent } from './active-edit.js';
export { parseSearchReplace } from './search-replace.js';
export { parseApplyPatch } from './apply-patch.js';
export { parseUnifiedDiff, unquoteGitPath, type VerifiedDeleteRequest } from './udiff.js';
export { renderChange, type FileChange } from './render.js';

export interface ParsedEdits extends ParseResult {
  /** The format used (detected when 'auto' was asked for); undefined when none was recognised. */
  format: FormatName | undefined;
}

export function parseFormat(text: string, format: FormatName, options: ParseOptions = {}): ParseResult {
  switch (format) {
    case 'json':
      return parseJson(text);
    case 'active-edit':
      return parseActiveEdit(text, options);
    case 'search-replace':
      return parseSearchReplace(text, options);
    case 'apply-patch':
      return parseApplyPatch(text);
    case 'udiff':
      return parseUnifiedDiff(text);
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}

/** Parses a reply in `format` ('auto' detects it); an unrecognisable text is one E_PARSE item error. */
export function parseEdits(text: string, format: FormatName | 'auto' = 'auto', options: ParseOptions = {}): ParsedEdits {
  const chosen = format === 'auto' ? detectFormat(text) : format;
  if (chosen === undefined) return { format: undefined, requests: [], errors: [{ index: 0, line: 1, error: unrecognisedFormat() }] };
  return { format: chosen, ...parseFormat(text, chosen, options) };
}
