/**
 * The one mapping from the `edit_file` request's fields (the JSON contract's
 * names: path, mode, old_text, new_text, …) to the engine's EditRequest.
 * The JSON schema (request-json.ts) validates into these fields; the CLI's
 * flags (`editwarden edit`) build the same fields — so every mode the JSON
 * supports is reachable from flags, and the two can never drift. Pure, and
 * free of the schema library so flag-driven edits start fast.
 *
 * It must never accept a request the JSON schema would refuse: each
 * cross-field rule (a mode needing new_text or line) lives here, once.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { EditRequest, RequestSource } from './types.js';
import { defined } from '../defined.js';

export const EDIT_MODES = ['edit', 'create', 'overwrite', 'append', 'prepend', 'insert', 'remove'] as const;
type EditMode = (typeof EDIT_MODES)[number];
export const AST_ACTIONS = ['replace', 'remove', 'append', 'prepend'] as const;
export type AstAction = (typeof AST_ACTIONS)[number];

/** An edit_file request after its types were checked: the contract's field names, aliases still unresolved. */
export interface EditRequestFields {
  path?: string | undefined;
  filename?: string | undefined;
  file_path?: string | undefined;
  mode: EditMode;
  old_text?: string | undefined;
  new_text?: string | undefined;
  content?: string | undefined;
  replace_all: boolean;
  force: boolean;
  expected_hash?: string | undefined;
  ast_path?: string | undefined;
  ast_action?: AstAction | undefined;
  line?: number | undefined;
}

/** How a refusal here is worded for the surface that sent the fields (the JSON's E_PARSE, the CLI's E_USAGE). */
export type FieldError = (where: string, what: string) => EditwardenError;

function parseError(where: string, what: string): EditwardenError {
  return new EditwardenError({
    code: ErrorCode.PARSE,
    message: `${where}: ${what}.`,
    hint: 'Send {"path": ..., "mode": ..., "old_text": ..., "new_text": ...}; docs/editing.md describes the request format.',
  });
}

/** Converts checked fields into the engine's request; the cross-field rules are refused with `fail`. */
export function editRequestFromFields(a: EditRequestFields, source: RequestSource, fail: FieldError = parseError): EditRequest {
  const where = `edit request #${source.index + 1}`;
  const names = [a.path, a.filename, a.file_path].filter((p): p is string => p !== undefined);
  if (names.length === 0) throw fail(where, 'missing field "path" (or "filename"/"file_path")');
  if (new Set(names).size > 1) throw fail(where, 'path, filename and file_path name different files');
  if (a.new_text !== undefined && a.content !== undefined && a.new_text !== a.content) throw fail(where, 'new_text and content differ; give one');
  const path = names[0] as string;
  const text = a.new_text ?? a.content;
  const common = {
    path,
    ...defined({ force: a.force ? true : undefined, expectedHash: a.expected_hash || undefined }),
    source,
  };
  if (a.ast_path !== undefined) {
    const astAction = a.ast_action ?? (a.mode === 'remove' ? 'remove' : a.mode === 'append' ? 'append' : a.mode === 'prepend' ? 'prepend' : 'replace');
    if (astAction !== 'remove' && text === undefined) throw fail(where, `ast_action ${astAction} needs new_text`);
    return { ...common, action: 'ast', astPath: a.ast_path, astAction, content: text ?? '' };
  }
  switch (a.mode) {
    case 'edit':
      return { ...common, action: 'edit', oldText: a.old_text ?? '', newText: text ?? '', ...defined({ replaceAll: a.replace_all ? true : undefined }) };
    case 'remove':
      return { ...common, action: 'edit', oldText: a.old_text ?? '', newText: '', ...defined({ replaceAll: a.replace_all ? true : undefined }) };
    case 'overwrite':
      if (text === undefined) throw fail(where, 'mode overwrite needs new_text (or content)');
      // Said in so many words: the large-deletion guard is edit mode's (OverwriteRequest.explicit).
      return { ...common, action: 'overwrite', content: text, explicit: true };
    case 'create':
    case 'append':
    case 'prepend':
      if (text === undefined) throw fail(where, `mode ${a.mode} needs new_text (or content)`);
      return { ...common, action: a.mode, content: text };
    case 'insert':
      if (text === undefined) throw fail(where, 'mode insert needs new_text (or content)');
      if (a.line === undefined) throw fail(where, 'mode insert needs "line" (insert after that line; 0 = top)');
      return { ...common, action: 'insert', line: a.line, content: text };
    default: {
      const never: never = a.mode;
      throw fail(where, `unknown mode ${String(never)}`);
    }
  }
}
