/**
 * The edit formats: text a model wrote → the engine's one request type, and
 * back. Every parser here is pure and returns `{requests, errors}` (one bad
 * item never hides the others); `parseEdits` picks the format by name or by
 * detection. Each format is one record (formats/list.ts): parsing and
 * rendering dispatch from it, never from a switch over names.
 */
import { detectFormat, unrecognisedFormat } from './detect.js';
import { formatNamed, type FormatName } from './list.js';
import type { ParseOptions, ParseResult } from './parse-result.js';
import type { FileChange } from './render.js';

export * from './parse-result.js';
export { FALLBACK_FORMAT, FORMAT_NAMES, type FormatName } from './list.js';
export { detectFormat } from './detect.js';
export { parseJson } from './json.js';
export { ActiveEditStreamParser, parseActiveEdit, type ActiveEditEvent } from './active-edit.js';
export { parseSearchReplace } from './search-replace.js';
export { parseApplyPatch } from './apply-patch.js';
export { parseUnifiedDiff, unquoteGitPath, type VerifiedDeleteRequest } from './udiff.js';
export type { FileChange } from './render.js';

export interface ParsedEdits extends ParseResult {
  /** The format used (detected when 'auto' was asked for); undefined when none was recognised. */
  format: FormatName | undefined;
}

export function parseFormat(text: string, format: FormatName, options: ParseOptions = {}): ParseResult {
  return formatNamed(format).parse(text, options);
}

/** Parses a reply in `format` ('auto' detects it); an unrecognisable text is one E_PARSE item error. */
export function parseEdits(text: string, format: FormatName | 'auto' = 'auto', options: ParseOptions = {}): ParsedEdits {
  const chosen = format === 'auto' ? detectFormat(text) : format;
  if (chosen === undefined) return { format: undefined, requests: [], errors: [{ index: 0, line: 1, error: unrecognisedFormat() }] };
  return { format: chosen, ...parseFormat(text, chosen, options) };
}

/** Writes `changes` in `format`; throws InexpressibleChange for what the format cannot say. */
export function renderChange(format: FormatName, changes: FileChange[]): string {
  return formatNamed(format).render(changes);
}

/** Whether a reply read as `format` applies each of its requests on its own by default (apply/apply-reply.ts). */
export function eachOnItsOwnByDefault(format: FormatName): boolean {
  return formatNamed(format).eachOnItsOwn === true;
}
