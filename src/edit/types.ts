/**
 * The one canonical edit request every format parses into, and the result the
 * engine gives back. Pure data: nothing here knows about disks or processes.
 */
import type { ErrorInfo } from '../errors.js';

/**
 * What a request's `source.format` may name, as the keys of an interface: the
 * routes that build requests without a reply (`cli` flags, a `tool` call's
 * arguments, an `mcp` call), and every edit format's name — added by
 * formats/list.ts, which extends this interface from its list of format
 * records, so this floor never spells a format's name.
 * @knipignore exported for that module augmentation, which knip does not count as a use.
 */
export interface RequestOrigins {
  cli: true;
  tool: true;
  mcp: true;
}

/** Where a request came from, so results can point back at the model's text. */
export interface RequestSource {
  format: keyof RequestOrigins;
  /** 0-based index of the request within its reply. */
  index: number;
  /** 1-based line in the reply where the request starts. */
  line?: number;
}

interface BaseRequest {
  path: string;
  /** Allow an edit that would leave a large file with less than a third of its lines. */
  force?: boolean | undefined;
  /** sha256 (hex, or a prefix of ≥ 8 chars) of the bytes the agent read; a mismatch is E_STALE. */
  expectedHash?: string;
  source?: RequestSource;
  /**
   * How the parser read the model's text where it forgave something (an escaped marker line, Roo's line-number
   * prefixes, a longer marker, a path found by its name, …), one sentence each: put first in the result's notes,
   * so the model is told which normalisation was used. The engine's own strategies add theirs after.
   */
  readAs?: string[];
}

/** Replace a unique `oldText` (or every match with `replaceAll`). */
export interface ReplaceRequest extends BaseRequest {
  action: 'edit';
  oldText: string;
  newText: string;
  replaceAll?: boolean | undefined;
  /**
   * Where the model says the quote starts (Roo Code's `:start_line:` hint; `end` from `:end_line:`), 1-based.
   * Metadata, never content: it only chooses between several places old_text matches, and only when exactly one
   * of them starts at that line (and ends at `end`, when given). It never moves an edit to a place that does not match.
   */
  lineHint?: { start: number; end?: number } | undefined;
  /**
   * old_text and new_text are whole lines (SEARCH/REPLACE): a quote that starts with a blank line which the file
   * lacks there is matched without it (and new_text loses its own leading blank line), never from the newline
   * that ends the line above — that would join the two lines.
   */
  wholeLines?: true;
}

interface CreateRequest extends BaseRequest {
  action: 'create';
  content: string;
}

interface OverwriteRequest extends BaseRequest {
  action: 'overwrite';
  content: string;
  /**
   * The request said `mode: "overwrite"` in so many words (edit_file's JSON, `editwarden edit --mode overwrite`).
   * The safety-features design keeps its large-deletion heuristic for `edit` mode and makes overwrite "the explicit,
   * dangerous mode": an explicit overwrite is applied (checkpointed, undoable) however much it shrinks the file.
   * Unset for whole-file writes nobody named an overwrite (a client's native Write, an active-edit replace of a
   * whole file, write_file): those stay under the guard.
   */
  explicit?: true;
}

interface AppendRequest extends BaseRequest {
  action: 'append' | 'prepend';
  content: string;
}

export interface DeleteRequest extends BaseRequest {
  action: 'delete';
  /** The lines a diff says it deletes: the file must still hold exactly them (a unified diff's deletion hunk). */
  hunks?: Hunk[];
}

/** Insert `content` as whole lines after line `line` (0 = before the first line). */
interface InsertRequest extends BaseRequest {
  action: 'insert';
  line: number;
  content: string;
}

/** One hunk of a line-addressed patch (unified diff, apply_patch). */
export interface Hunk {
  /** 1-based start line in the old file as the patch claims it (0 when the old side is empty); undefined when the format has no numbers. */
  oldStart?: number | undefined;
  /** Lines before the change, the removed lines, the added lines, lines after — as one sequence. */
  lines: HunkLine[];
  /** apply_patch `@@ context` headers: lines that must be found, in order, above the hunk. */
  anchors?: string[];
  /** The hunk must end at end of file (apply_patch `*** End of File`). */
  atEof?: boolean;
  /** Old side ends without a final newline. */
  oldNoEol?: boolean;
  /** New side ends without a final newline. */
  newNoEol?: boolean;
  /** 1-based line of the hunk header in the patch text, for errors. */
  patchLine?: number;
  /**
   * The body ran past the counts of its `@@ -a,b +c,d @@` header and was read
   * to its end (like `git apply --recount`): strict mode refuses the hunk,
   * tolerant mode applies the whole body and says so in the result's notes.
   */
  recount?: HunkRecount;
}

interface HunkRecount {
  /** 1-based patch line of the first body line past the header's counts. */
  line: number;
  header: { old: number; new: number };
  body: { old: number; new: number };
}

export interface HunkLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** A line-addressed patch to one file: the unified-diff / apply_patch family. */
export interface PatchRequest extends BaseRequest {
  action: 'patch';
  hunks: Hunk[];
  /** Rename the file after patching (apply_patch `*** Move to:`, git `rename to`). */
  moveTo?: string;
  /** Exact git-apply semantics: no offset search beyond what git allows, no whitespace tolerance. */
  strict?: boolean;
}

/** An AST-addressed change (`ast-path: Namespace-Class-Method`). */
export interface AstRequest extends BaseRequest {
  action: 'ast';
  astPath: string;
  astAction: 'replace' | 'remove' | 'append' | 'prepend';
  content: string;
}

export type EditRequest = ReplaceRequest | CreateRequest | OverwriteRequest | AppendRequest | DeleteRequest | InsertRequest | PatchRequest | AstRequest;

export type EditAction = EditRequest['action'];

/** How the engine found the text it replaced. `exact` unless a tolerant strategy was needed. */
export type MatchStrategy =
  | 'exact'
  | 'trailing-whitespace'
  /** edit_file: the quoted block matched as a whole at another indentation, and new_text was re-indented with it. */
  | 'indentation'
  /** apply_patch / udiff: context lines matched once leading and trailing whitespace were ignored (codex's trim pass). */
  | 'surrounding-whitespace'
  /** edit_file: old_text arrived with its newlines escaped ("\\n" as two characters) and matched once unescaped. */
  | 'escaped-newlines'
  | 'whitespace-runs'
  /** edit_file: blanks inside a line next to brackets, "," / ";" or between an operator and a word were ignored (`myFunc( a, b )`). */
  | 'inner-whitespace'
  | 'unicode'
  | 'indentation+unicode'
  | 'blank-lines'
  | 'final-newline'
  | 'line-numbers'
  | 'offset'
  | 'fuzz'
  | 'ast'
  | 'whole-file';

export interface EditOptions {
  /** Turn every tolerant strategy off: only exact text matches. */
  strict: boolean;
  /** Largest file (bytes, after the edit) the engine will produce. */
  maxFileBytes: number;
  /** Large-deletion guard: files of at least `minLines` lines … */
  dramaticMinLines: number;
  /** … may not be left with fewer than `ratio` of their lines unless forced. */
  dramaticRatio: number;
}

export const DEFAULT_EDIT_OPTIONS: EditOptions = {
  strict: false,
  maxFileBytes: 10 * 1024 * 1024,
  dramaticMinLines: 20,
  dramaticRatio: 1 / 3,
};

/** What one request did to its file. */
export interface AppliedEdit {
  action: EditAction;
  strategy: MatchStrategy;
  /** Number of replacements (replace_all) or hunks applied. */
  count: number;
  /** 1-based first line of the change in the file as it was before this request. */
  line?: number;
  /** Human-readable notes (offset used, re-indentation, …). */
  notes: string[];
}

export type ResultStatus = 'applied' | 'dry-run' | 'rejected' | 'rolled-back';

/** The public per-request result (the `results[]` entry of the JSON contract). */
export interface EditResult {
  path: string;
  status: ResultStatus;
  action: EditAction;
  strategy?: MatchStrategy;
  added: number;
  removed: number;
  diff: string;
  count?: number;
  notes?: string[];
  movedTo?: string;
  source?: RequestSource;
  error?: ErrorInfo;
}

/** Result of applying an AST-addressed request to a text (see ast/). */
export interface AstApplication {
  text: string;
  /** 1-based first line of the node that was changed. */
  line: number;
  notes: string[];
}

/** A syntax error the guard found in an edited file. */
export interface SyntaxIssue {
  line: number;
  column: number;
  snippet: string;
  kind: 'error' | 'missing';
}

/**
 * What the pure engine may ask of language-aware code. The caller prepares the
 * hooks (loading grammars is async) so the engine itself stays synchronous and
 * free of tree-sitter.
 */
export interface EngineHooks {
  /** Applies an AST request to `text` of file `path`; throws E_AST_NOT_FOUND / E_AST_AMBIGUOUS / E_PARSE. */
  applyAst?: (path: string, text: string, request: AstRequest) => AstApplication;
  /** New syntax errors in `after` that `before` (null for a new file) did not have; empty when fine or unsupported. */
  newSyntaxErrors?: (path: string, before: string | null, after: string) => SyntaxIssue[];
  /** refuse (default) | warn | off — what to do with new syntax errors. */
  syntaxPolicy?: 'refuse' | 'warn' | 'off';
}
