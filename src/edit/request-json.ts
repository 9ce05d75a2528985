/**
 * The `edit_file` request as JSON (DESIGN.md contract): the zod schema that
 * the CLI, the tool runner and the MCP server share, and its conversion into
 * the engine's EditRequest (through request-fields.ts, the one mapping the CLI's flags use too). Pure. Aliases: filename/file_path → path,
 * content → new_text. Unknown fields and wrong types are E_PARSE naming the field.
 */
import { z } from 'zod';
import { EditwardenError, ErrorCode } from '../errors.js';
import { AST_ACTIONS, EDIT_MODES, editRequestFromFields } from './request-fields.js';
import type { EditRequest, RequestSource } from './types.js';

export { EDIT_MODES } from './request-fields.js';

export const EditFileArgsSchema = z
  .object({
    path: z.string().min(1).optional().describe('File path relative to the workspace root.'),
    filename: z.string().min(1).optional().describe('Alias of path.'),
    file_path: z.string().min(1).optional().describe('Alias of path.'),
    mode: z
      .enum(EDIT_MODES)
      .default('edit')
      .describe(
        'edit (default): replace a unique old_text with new_text. create: a new file only. overwrite: replace the whole file (explicit, dangerous). append/prepend: add at the end/start. insert: add lines after `line`. remove: delete old_text (or the ast_path node).',
      ),
    old_text: z.string().optional().describe('Snippet of old text to be replaced (required for edit mode): copied exactly from the file; must occur exactly once unless replace_all.'),
    new_text: z.string().optional().describe('Replacement text, inserted literally.'),
    content: z.string().optional().describe('Alias of new_text.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence of old_text.'),
    force: z.boolean().default(false).describe('Allow leaving a file of 20+ lines with less than a third of them.'),
    expected_hash: z.string().optional().describe('sha256 of the file as you read it (read_file returns it); a mismatch is refused as stale.'),
    ast_path: z.string().min(1).optional().describe('Address a declaration instead of old_text, e.g. "MyClass-myMethod" (names joined by "-", "#2" for the second of several).'),
    ast_action: z.enum(AST_ACTIONS).optional().describe('With ast_path: replace (default), remove, append (after), prepend (before).'),
    line: z.number().int().nonnegative().optional().describe('For mode insert: insert after this line (0 = top).'),
  })
  .strict();

/** Turns a zod failure into E_PARSE naming the field. */
function parseErrorFromZod(error: z.ZodError, where: string): EditwardenError {
  const issue = error.issues[0];
  let field = issue?.path.map(String).join('.') || '(request)';
  if (issue?.code === 'unrecognized_keys') field = issue.keys.join(', ');
  const what = issue?.code === 'unrecognized_keys' ? `unknown field "${field}"` : `field "${field}": ${issue?.message ?? 'invalid'}`;
  return new EditwardenError({
    code: ErrorCode.PARSE,
    message: `${where}: ${what}.`,
    hint: 'Fields: path (or filename/file_path), mode, old_text, new_text (or content), replace_all, force, expected_hash, ast_path, ast_action, line.',
  });
}

/** Validates one edit_file argument object and converts it through the one mapping (request-fields.ts). */
export function editRequestFromArgs(value: unknown, source: RequestSource = { format: 'json', index: 0 }): EditRequest {
  const parsed = EditFileArgsSchema.safeParse(value);
  if (!parsed.success) throw parseErrorFromZod(parsed.error, `edit request #${source.index + 1}`);
  return editRequestFromFields(parsed.data, source);
}

/** Parses JSON text holding one request or an array of them. */
export function parseEditRequestJson(text: string): EditRequest[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EditwardenError({
      code: ErrorCode.PARSE,
      message: `The edit request is not valid JSON: ${(error as Error).message}.`,
      hint: 'Send one JSON object (or an array of them) with path, mode, old_text and new_text.',
    });
  }
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => editRequestFromArgs(item, { format: 'json', index }));
}
