/**
 * What a client's own edit tool is about to do, in editwarden's terms: the
 * edit requests it amounts to (planned exactly like `edit_file`), or — for
 * tools whose content editwarden cannot model (a notebook cell) — just the
 * paths it will write, which are still held to the boundary, the denied
 * paths and the constraints, and still checkpointed. Pure data.
 */
import type { EditRequest } from '../edit/types.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { SessionKey } from '../runs/ledger.js';

/** The editwarden tools a client's own edit tool can be: writing whole files, editing parts, a patch. */
export type EditwardenWriteTool = 'write_file' | 'edit_file' | 'apply_patch';

export interface NativeEdit {
  /** Which client (claude, codex, gemini, cursor, opencode, copilot, qwen). */
  client: string;
  /** The client's tool name (Edit, Write, apply_patch, write_file…). */
  tool: string;
  /** The editwarden tool it is judged as (`allowed_tools`): the client record's tool-name map says which. */
  as: EditwardenWriteTool;
  /** The client's id of this tool call, when it sends one (ties PreToolUse to PostToolUse). */
  call?: string;
  /** Edits to plan; paths as the client gave them (often absolute). */
  requests: EditRequest[];
  /** Paths written without a content model (vetted as paths only). */
  pathsOnly: string[];
  /** The client session this call belongs to: its limits count across the session (runs/ledger.ts). */
  session?: SessionKey;
}

/** The hook input could not be understood: refused (E_PARSE), since an unreadable edit cannot be vetted. */
export class NativeInputError extends EditwardenError {
  /** What was wrong with the input, in a few words. */
  readonly reason: string;

  constructor(reason: string) {
    super({
      code: ErrorCode.PARSE,
      message: `editwarden could not read this edit (${reason}), so it cannot vet it.`,
      hint: "Send the edit again with the tool's documented arguments, or use the editwarden MCP tools (edit_file, write_file).",
    });
    this.name = 'NativeInputError';
    this.reason = reason;
  }
}

/**
 * A client's edit of an old text into a new one, as a request: an empty old text makes the file (Claude Code's
 * Edit, Gemini CLI's replace, Qwen Code's edit and Copilot CLI's edit all say "create" so; opencode's differs).
 */
export function oldNewEdit(file: string, oldText: string, newText: string, replaceAll: boolean, index = 0): EditRequest {
  const source = { format: 'tool' as const, index };
  if (oldText === '') return { action: 'create', path: file, content: newText, source };
  return { action: 'edit', path: file, oldText, newText, ...(replaceAll ? { replaceAll: true } : {}), source };
}

/**
 * The request of a write-or-replace pair of tools (Gemini CLI's write_file and replace, and Qwen Code's write_file
 * and edit — Qwen is a fork of it): a write replaces the whole file, the other edits an old text into a new one.
 * `fileFields`: where the tool names the file; `replaceAll`: whether its input asks for every occurrence.
 */
export function writeOrReplaceRequest(toolInput: unknown, as: EditwardenWriteTool, fileFields: readonly string[], replaceAll: (input: Record<string, unknown>) => boolean): EditRequest {
  const input = objectOf(toolInput, 'tool_input');
  const file = stringField(input, ...fileFields);
  if (as === 'write_file') return { action: 'overwrite', path: file, content: stringField(input, 'content'), source: { format: 'tool', index: 0 } };
  return oldNewEdit(file, stringField(input, 'old_string'), stringField(input, 'new_string'), replaceAll(input));
}

export function stringField(input: Record<string, unknown>, ...names: string[]): string {
  for (const name of names) {
    const v = input[name];
    if (typeof v === 'string') return v;
  }
  throw new NativeInputError(`the tool input has no string field ${names.map((n) => JSON.stringify(n)).join(' or ')}`);
}

export function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new NativeInputError(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}
