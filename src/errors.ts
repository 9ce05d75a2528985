/**
 * The one error type of editwarden. Every refusal an agent or a person can
 * see carries a stable `code` (never renamed, only extended), a `message`
 * that says what was wrong and a `hint` that says how to fix the request.
 * Both texts are written for a model to act on.
 *
 * Everything about a refusal lives here once: the codes, the exit code of
 * each (`exitCodeFor`, one table), the text a person or model reads
 * (`formatRefusal`) and the JSON envelope programs read (`refusalEnvelope`).
 * The CLI, the MCP server, the agent's tool results and the client hooks all
 * print refusals through these. This module must never import anything.
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
  /** A model provider's SDK (an optional peer dependency of the library) is not installed. */
  MISSING_SDK: 'E_MISSING_SDK',
  PROVIDER: 'E_PROVIDER',
  SCRIPT_EXHAUSTED: 'E_SCRIPT_EXHAUSTED',
  MALFORMED_CALL: 'E_MALFORMED_CALL',
  // The sandbox's refusals (src/sandbox).
  /** A headless run asked for a command where no OS sandbox can be had, and nothing allowed running without one. */
  UNSANDBOXED: 'E_UNSANDBOXED',
  /** The search for nested repositories (whose `.git` a command may not write) passed its bound: the command is refused, not half-confined. */
  TREE_TOO_LARGE: 'E_TREE_TOO_LARGE',
  /** A sandboxed command asked the network proxy for a host `sandbox.network` does not list (or an address no listed name resolves to): the connection was refused and logged. */
  NETWORK_REFUSED: 'E_NETWORK_REFUSED',
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
  /** commit() was handed a plan that plan() did not make, or one already committed (src/apply/pipeline.ts): a plan is committed once, as planned. */
  PLAN_NOT_COMMITTABLE: 'E_PLAN_NOT_COMMITTABLE',
  // Rendering a change in an edit format (src/formats/render.ts).
  /** The format cannot express this change (a deletion in SEARCH/REPLACE, a line that reads as a marker). */
  INEXPRESSIBLE: 'E_INEXPRESSIBLE',
  // A client's hooks (src/integrations).
  /** The client's hook could not run editwarden (not installed, crashed, too slow): the tool call is blocked, never let through. */
  GUARD_UNAVAILABLE: 'E_GUARD_UNAVAILABLE',
  /** A client settings file or folder `init` would write is a symbolic link: followed, it would read or rewrite a file outside the project. */
  SETTINGS_SYMLINK: 'E_SETTINGS_SYMLINK',
  /** The client's own shell cannot be run through editwarden (its hook can refuse, not rewrite): use the MCP tool execute_command. */
  SHELL_NOT_GUARDED: 'E_SHELL_NOT_GUARDED',
  /** The editwarden a hook, the guarded shell or the MCP entry would run is not the install the person recorded (changed, replaced, or inside a root the agent may write): nothing of it runs. */
  GUARD_TAMPERED: 'E_GUARD_TAMPERED',
  /** In a client session with limits, editwarden's MCP execute_command (counted by the MCP server's own run) is refused: the client's guarded shell counts a command against the session's one ledger. */
  SESSION_ROUTE: 'E_SESSION_ROUTE',
  /** `init` would overwrite or remove a settings entry of the person's under a name editwarden uses (an MCP server named `editwarden` that is not editwarden's). */
  SETTINGS_CONFLICT: 'E_SETTINGS_CONFLICT',
  // Trust (SECURITY.md): a repository's config may only tighten the guard until a person trusts it.
  /** A repository config file sets a key that loosens the guard, and the person has not trusted that file (or it changed since). */
  UNTRUSTED_CONFIG: 'E_UNTRUSTED_CONFIG',
  /** A repository's config file is a link (or lies under one) whose real target is outside the repository: it would borrow another project's file and its trust. */
  CONFIG_SYMLINK: 'E_CONFIG_SYMLINK',
  // Undo (docs/undo.md).
  /** An undo would overwrite files changed since the step it undoes (a person's own later change): refused unless forced. */
  CHANGED_SINCE: 'E_CHANGED_SINCE',
  /** No editwarden root here or in any folder above (no `.editwarden/` state folder, no git root). */
  NO_ROOT: 'E_NO_ROOT',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Process exit codes: a contract (DESIGN.md), never renumbered. */
export const ExitCode = {
  OK: 0,
  /** A request was rejected or failed; nothing of that request was written. */
  REJECTED: 1,
  /** A constraint was violated. */
  CONSTRAINT: 2,
  /** Verification failed (rolled back where the policy says so). */
  VERIFY_FAILED: 3,
  /** Hard stop: the editor or the agent got stuck. */
  HARD_STOP: 4,
  /** Command-line usage error or an invalid config: nothing ran. */
  USAGE: 64,
  /** Interrupted (Ctrl-C); the work so far is kept. */
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a run that ended on each refusal: the one table. A
 * `Record` over every code, so a new code without an exit code does not
 * compile. Codes a person fixes on the command line (usage, config, a key or
 * a model spec) are 64; a constraint 2; a failed verification 3; an
 * interruption 130; every other refusal of a request 1.
 */
const EXIT_CODE_OF: { readonly [C in ErrorCode]: ExitCode } = {
  E_MISSING_OLD_TEXT: ExitCode.REJECTED,
  E_NOT_FOUND: ExitCode.REJECTED,
  E_AMBIGUOUS: ExitCode.REJECTED,
  E_DRAMATIC_REDUCTION: ExitCode.REJECTED,
  E_TOO_LARGE: ExitCode.REJECTED,
  E_EXISTS: ExitCode.REJECTED,
  E_NO_FILE: ExitCode.REJECTED,
  E_BINARY: ExitCode.REJECTED,
  E_OUTSIDE_ROOT: ExitCode.REJECTED,
  E_DENIED_PATH: ExitCode.REJECTED,
  E_STALE: ExitCode.REJECTED,
  E_PARSE: ExitCode.REJECTED,
  E_AST_NOT_FOUND: ExitCode.REJECTED,
  E_AST_AMBIGUOUS: ExitCode.REJECTED,
  E_SYNTAX: ExitCode.REJECTED,
  E_CONSTRAINT: ExitCode.CONSTRAINT,
  E_VERIFY_FAILED: ExitCode.VERIFY_FAILED,
  E_SECOND_EDIT: ExitCode.REJECTED,
  E_SECOND_FILE: ExitCode.REJECTED,
  E_NO_OP: ExitCode.REJECTED,
  E_ABORTED: ExitCode.REJECTED,
  E_CONFIG: ExitCode.USAGE,
  E_IO: ExitCode.REJECTED,
  E_LOCKED: ExitCode.REJECTED,
  E_NOT_A_FILE: ExitCode.REJECTED,
  E_USAGE: ExitCode.USAGE,
  E_INTERNAL: ExitCode.REJECTED,
  E_UNKNOWN_TOOL: ExitCode.REJECTED,
  E_DECLINED: ExitCode.REJECTED,
  E_COMMAND_FAILED: ExitCode.REJECTED,
  E_TIMEOUT: ExitCode.REJECTED,
  E_RUN_ENDED: ExitCode.REJECTED,
  E_NO_INTERACTION: ExitCode.REJECTED,
  E_CANCELLED: ExitCode.INTERRUPTED,
  E_GLOB_TOO_COMPLEX: ExitCode.REJECTED,
  E_SEARCH_TIMEOUT: ExitCode.REJECTED,
  E_CHECKPOINT_TOO_LARGE: ExitCode.REJECTED,
  E_MISSING_KEY: ExitCode.USAGE,
  E_MODEL_SPEC: ExitCode.USAGE,
  E_MISSING_SDK: ExitCode.USAGE,
  E_PROVIDER: ExitCode.REJECTED,
  E_SCRIPT_EXHAUSTED: ExitCode.REJECTED,
  E_MALFORMED_CALL: ExitCode.REJECTED,
  E_UNSANDBOXED: ExitCode.REJECTED,
  E_TREE_TOO_LARGE: ExitCode.REJECTED,
  E_NETWORK_REFUSED: ExitCode.REJECTED,
  E_NOT_REGULAR: ExitCode.REJECTED,
  E_READ_ONLY: ExitCode.REJECTED,
  E_HARD_LINK: ExitCode.REJECTED,
  E_UNTRUSTED_STATE: ExitCode.REJECTED,
  E_INEXPRESSIBLE: ExitCode.REJECTED,
  // A configuration a person fixes (by trusting the file or moving the keys), like E_CONFIG: nothing ran.
  E_UNTRUSTED_CONFIG: ExitCode.USAGE,
  E_CHANGED_SINCE: ExitCode.REJECTED,
  E_NO_ROOT: ExitCode.USAGE,
  E_INVOCATION_SPENT: ExitCode.REJECTED,
  E_PLAN_NOT_COMMITTABLE: ExitCode.REJECTED,
  E_GUARD_UNAVAILABLE: ExitCode.REJECTED,
  E_SETTINGS_SYMLINK: ExitCode.USAGE,
  E_SHELL_NOT_GUARDED: ExitCode.REJECTED,
  E_GUARD_TAMPERED: ExitCode.REJECTED,
  E_SETTINGS_CONFLICT: ExitCode.USAGE,
  E_CONFIG_SYMLINK: ExitCode.USAGE,
  E_SESSION_ROUTE: ExitCode.REJECTED,
};

/** The process exit code of a command that stopped on this refusal. */
export function exitCodeFor(code: ErrorCode): ExitCode {
  return EXIT_CODE_OF[code];
}

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

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

/** A plain `{code, message, hint}` object with a known code (a tool result's error, a parsed record). */
function isErrorInfo(value: unknown): value is ErrorInfo {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && KNOWN_CODES.has(v.code) && typeof v.message === 'string' && typeof v.hint === 'string';
}

/** Turns anything thrown into the public error shape, so nothing untyped leaks to an agent. */
export function toErrorInfo(error: unknown, path?: string): ErrorInfo {
  if (error instanceof EditwardenError) return error.toJSON();
  if (!(error instanceof Error) && isErrorInfo(error)) return errorFields(error);
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

/** How a terminal highlights the parts of a refusal; the identity for a model or a file. */
export interface RefusalStyle {
  code(text: string): string;
  label(text: string): string;
}

const PLAIN: RefusalStyle = { code: (t) => t, label: (t) => t };

/**
 * A refusal as text for a person or a model — the one layout every surface
 * prints: the code first (so a model can act on it), then where and what,
 * then the hint on its own line.
 *
 *     E_NOT_FOUND: src/a.ts:3: old_text was not found in the file.
 *     hint: Call read_file and copy the lines exactly.
 */
export function formatRefusal(error: ErrorInfo, style: RefusalStyle = PLAIN): string {
  const where = error.path ? `${error.path}${error.line ? `:${error.line}` : ''}: ` : '';
  return `${style.code(`${error.code}:`)} ${where}${error.message}\n${style.label('hint:')} ${error.hint}`;
}

/** The JSON a program reads for a refusal: the one envelope (`--json`, MCP structured content, hooks). */
export type RefusalEnvelope = {
  ok: false;
  error: ErrorInfo;
};

/**
 * The one JSON envelope of a refusal: `{ok: false, error: {code, message,
 * hint, path?, line?}}`. `extra` adds what a surface also reports (the empty
 * `results` of `edit`, a `status`); it never replaces `ok` or `error`.
 */
export function refusalEnvelope<E extends Record<string, unknown>>(error: unknown, extra?: E): RefusalEnvelope & E {
  const info = toErrorInfo(error);
  return { ...(extra as E), ok: false, error: errorFields(info) };
}

/** Only the public fields of an error, in a fixed order, whatever object carried them. */
function errorFields(info: ErrorInfo): ErrorInfo {
  const out: ErrorInfo = { code: info.code, message: info.message, hint: info.hint };
  if (info.path !== undefined) out.path = info.path;
  if (info.line !== undefined) out.line = info.line;
  return out;
}

/** Shortens text quoted back to an agent so a huge old_text does not flood the reply. */
export function quote(text: string, max = 160): string {
  const oneLine = text.length > max ? `${text.slice(0, max - 40)}…[${text.length - (max - 40)} more chars]` : text;
  return JSON.stringify(oneLine);
}
