/**
 * JSON tool arguments (the `edit_file` request of DESIGN.md, or an array of
 * them) parsed into edit requests. Pure: text or value in, requests out. The
 * schema of one request is edit/request-json.ts's (shared with the CLI, the
 * tool runner and the MCP server, so it exists once); this module adds what a
 * reply needs: arrays, per-item errors and line numbers.
 *
 * Grammar:
 *
 *   reply   := request | "[" request ("," request)* "]"
 *   request := "{" field ("," field)* "}"
 *   field   := "path" | "filename" | "file_path"    : string   (one of them, required)
 *            | "mode"                               : "edit" | "create" | "overwrite" | "append" | "prepend" | "insert" | "remove"  (default "edit")
 *            | "old_text"                           : string
 *            | "new_text" | "content"               : string   (aliases)
 *            | "replace_all" | "force"              : boolean
 *            | "expected_hash" | "ast_path" | "ast_action" | "line"   (see edit/request-json.ts)
 *
 * An unknown field or a wrong type is E_PARSE naming the field (a typo like
 * "old_txt" must not turn an edit into something else). Each array element
 * is one item: a bad one is reported with its index and line, the others
 * still parse.
 */
import { EditwardenError } from '../errors.js';
import type { EditRequest } from '../edit/types.js';
import { editRequestFromArgs } from '../edit/request-json.js';
import { lineAt, parseError, source, type ItemError, type ParseResult } from './parse-result.js';
import { defined } from '../defined.js';

const HINT = 'Send {"path": "...", "mode": "edit|create|overwrite|append|prepend", "old_text": "...", "new_text": "..."} (aliases: filename/file_path for path, content for new_text), or an array of them.';

/** Validates one decoded request object; errors carry the item's line. */
function toEditRequest(value: unknown, index: number, line: number): EditRequest {
  try {
    return editRequestFromArgs(value, source('json', index, line));
  } catch (error) {
    if (!(error instanceof EditwardenError)) throw error;
    throw new EditwardenError({ ...error.toJSON(), line }, { cause: error });
  }
}

/** Start offsets of the elements of a top-level JSON array (for line numbers); [] when the text is not an array. */
function elementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (depth === 1 && expectValue) {
      offsets.push(i);
      expectValue = false;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      depth++;
      if (depth === 1 && ch === '[') expectValue = true;
    } else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 1) expectValue = true;
  }
  return offsets;
}

/**
 * Offset of the first JSON syntax error (Node 20's JSON.parse messages do not
 * say where). A small recursive-descent checker; only called on failure.
 */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail();
    ws();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (ch === '{') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          return;
        }
        fail();
      }
    }
    if (ch === '"') {
      string();
      return;
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail();
    i += (literal as RegExpExecArray)[0].length;
  };
  const string = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if ((text.charCodeAt(i) as number) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === 'number') return Math.min(at, text.length);
    throw at;
  }
  return text.length;
}

/** Parses already-decoded tool arguments (an object or an array of them). */
function parseJsonValue(value: unknown, lines: number[] = []): ParseResult {
  const items = Array.isArray(value) ? value : [value];
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  items.forEach((item, index) => {
    const line = lines[index] ?? 1;
    try {
      requests.push(toEditRequest(item, index, line));
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      errors.push({ index, line, ...defined({ path: error.path }), error });
    }
  });
  if (Array.isArray(value) && value.length === 0) {
    errors.push({ index: 0, line: 1, error: parseError('The array of edit requests is empty.', 1, HINT) });
  }
  return { requests, errors };
}

export function parseJson(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = lineAt(text, jsonErrorOffset(text));
    return { requests: [], errors: [{ index: 0, line, fromLine: 1, error: parseError(`The edit request is not valid JSON (line ${line}): ${message}.`, line, HINT) }] };
  }
  const offsets = Array.isArray(value) ? elementOffsets(text) : [];
  const lines = Array.isArray(value) ? offsets.map((o) => lineAt(text, o)) : [lineAt(text, Math.max(0, text.search(/\S/)))];
  return parseJsonValue(value, lines);
}
