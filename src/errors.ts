/**
 * The one error type of editwarden. Every refusal an agent or a person can
 * see carries a stable `code` (never renamed, only extended), a `message`
 * that says what was wrong and a `hint` that says how to fix the request.
 * Both texts are written for a model to act on.
 */

export const ErrorCode = {
  MISSING_OLD_TEXT: 'E_MISSING_OLD_TEXT',
  NOT_FOUND: 'E_NOT_FOUND',
  AMBIGUOUS: 'E_AMBIGUOUS',
  DRAMATIC_REDUCTION: 'E_DRAMATIC_REDUCTION',
  TOO_LARGE: 'E_TOO_LARGE',
  EXISTS: 'E_EXISTS',
  NO_FILE: 'E_NO_FILE',
  BINARY: 'E_BINARY',
  OUTSIDE_ROOT: 'E_OUTSIDE_ROOT',
  DENIED_PATH: 'E_DENIED_PATH',
  STALE: 'E_STALE',
  PARSE: 'E_PARSE',
  AST_NOT_FOUND: 'E_AST_NOT_FOUND',
  AST_AMBIGUOUS: 'E_AST_AMBIGUOUS',
  SYNTAX: 'E_SYNTAX',
  CONSTRAINT: 'E_CONSTRAINT',
  VERIFY_FAILED: 'E_VERIFY_FAILED',
  SECOND_EDIT: 'E_SECOND_EDIT',
  SECOND_FILE: 'E_SECOND_FILE',
  // Extensions (DESIGN.md: extend, never rename).
  NO_OP: 'E_NO_OP',
  /** Would have applied, but nothing was written because another request in the same reply failed. */
  ABORTED: 'E_ABORTED',
  CONFIG: 'E_CONFIG',
  IO: 'E_IO',
  LOCKED: 'E_LOCKED',
  NOT_A_FILE: 'E_NOT_A_FILE',
  USAGE: 'E_USAGE',
  INTERNAL: 'E_INTERNAL',
  // The tool layer's refusals (src/tools).
  UNKNOWN_TOOL: 'E_UNKNOWN_TOOL',
  DECLINED: 'E_DECLINED',
  COMMAND_FAILED: 'E_COMMAND_FAILED',
  TIMEOUT: 'E_TIMEOUT',
  RUN_ENDED: 'E_RUN_ENDED',
  NO_INTERACTION: 'E_NO_INTERACTION',
  /** One call was cancelled by its client (MCP request cancellation); the run goes on. */
  CANCELLED: 'E_CANCELLED',
  // Resource bounds (docs/limits.md).
  /** A glob over the complexity bounds (src/config/glob-bounds.ts). */
  GLOB_TOO_COMPLEX: 'E_GLOB_TOO_COMPLEX',
  /** A search (a user regular expression) ran past its time budget and was stopped. */
  SEARCH_TIMEOUT: 'E_SEARCH_TIMEOUT',
  /** A checkpoint would store more than checkpoints.max_file_bytes / max_total_bytes allow. */
  CHECKPOINT_TOO_LARGE: 'E_CHECKPOINT_TOO_LARGE',
  // The agent loop's refusals (src/agent).
  MISSING_KEY: 'E_MISSING_KEY',
  MODEL_SPEC: 'E_MODEL_SPEC',
  PROVIDER: 'E_PROVIDER',
  SCRIPT_EXHAUSTED: 'E_SCRIPT_EXHAUSTED',
  MALFORMED_CALL: 'E_MALFORMED_CALL',
  // The sandbox's refusals (src/sandbox).
  /** A headless run asked for a command where no OS sandbox can be had, and nothing allowed running without one. */
  UNSANDBOXED: 'E_UNSANDBOXED',
  // The workspace boundary (docs/workspace-boundary.md).
  /** A FIFO, socket or device where a regular file was expected: never opened for reading, never deleted or recreated. */
  NOT_REGULAR: 'E_NOT_REGULAR',
  /** A file without any write bit: replaced only with `force`. */
  READ_ONLY: 'E_READ_ONLY',
  /** A regular file with more than one hard link: it may be a window onto a file outside the root. */
  HARD_LINK: 'E_HARD_LINK',
  /** editwarden's own state (`.editwarden/`, a journal record, a manifest) failed its checks and was not trusted. */
  UNTRUSTED_STATE: 'E_UNTRUSTED_STATE',
  /** A tool invocation's run() was called a second time: a gated plan is committed at most once (src/tools/types.ts). */
  INVOCATION_SPENT: 'E_INVOCATION_SPENT',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  hint: string;
  path?: string;
  line?: number;
}

export class EditwardenError extends Error implements ErrorInfo {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly path?: string;
  readonly line?: number;

  constructor(info: ErrorInfo, options?: { cause?: unknown }) {
    super(info.message, options);
    this.name = 'EditwardenError';
    this.code = info.code;
    this.hint = info.hint;
    if (info.path !== undefined) this.path = info.path;
    if (info.line !== undefined) this.line = info.line;
  }

  toJSON(): ErrorInfo {
    const out: ErrorInfo = { code: this.code, message: this.message, hint: this.hint };
    if (this.path !== undefined) out.path = this.path;
    if (this.line !== undefined) out.line = this.line;
    return out;
  }
}

export function isEditwardenError(value: unknown): value is EditwardenError {
  return value instanceof EditwardenError;
}

/** Turns anything thrown into the public error shape, so nothing untyped leaks to an agent. */
export function toErrorInfo(error: unknown, path?: string): ErrorInfo {
  if (error instanceof EditwardenError) return error.toJSON();
  const err = error as NodeJS.ErrnoException;
  const message = err instanceof Error ? err.message : String(error);
  const info: ErrorInfo = {
    code: err && typeof err.code === 'string' && err.code.startsWith('E') && !err.code.startsWith('E_') ? ErrorCode.IO : ErrorCode.INTERNAL,
    message,
    hint: 'This is not a problem with the request itself; check the file system and try again, or report it.',
  };
  if (path !== undefined) info.path = path;
  return info;
}

/** Shortens text quoted back to an agent so a huge old_text does not flood the reply. */
export function quote(text: string, max = 160): string {
  const oneLine = text.length > max ? `${text.slice(0, max - 40)}…[${text.length - (max - 40)} more chars]` : text;
  return JSON.stringify(oneLine);
}
