/**
 * What every format parser returns: the requests it understood and, per item
 * it could not, a typed error with the item's index and 1-based line. A reply
 * is a sequence of items, and one bad item must never hide the others — so
 * parsers collect errors instead of throwing on the first. Pure data.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import type { EditRequest, RequestSource } from '../edit/types.js';
import { defined } from '../defined.js';
import type { FormatName } from './list.js';

/** One item of a reply that could not become a request. */
export interface ItemError {
  /** 0-based index of the item within the reply (shared numbering with `requests[].source.index`). */
  index: number;
  /** 1-based line in the reply where the item starts. */
  line: number;
  /**
   * 1-based first line of the text this refusal covers, when it starts before
   * `line` (a block's path line and fence; the lines of a block whose SEARCH
   * marker was lost). Every line of a reply is part of an applied request or
   * of a refusal; this says where a refusal's lines begin.
   */
  fromLine?: number;
  /** The file the item names, when it got that far. */
  path?: string;
  error: EditwardenError;
}

export interface ParseResult {
  requests: EditRequest[];
  errors: ItemError[];
}

/** Options every parser accepts. */
export interface ParseOptions {
  /**
   * Whether a file exists. Formats whose meaning depends on it (an empty
   * SEARCH, an active-edit `replace`) ask; without it they assume the file is
   * missing and emit `create`, which the engine refuses with E_EXISTS when it
   * is not — the safe default. Parsers stay pure: the caller supplies this.
   */
  fileExists?: (path: string) => boolean;
  /**
   * The files of the project whose name (last path component) is `name`, as paths from the root; a few are
   * enough (two already say "ambiguous"). A SEARCH/REPLACE block whose bare path line names no file at the root
   * edits the one file so named (block-tolerance.ts). The caller walks the tree; parsers stay pure.
   */
  filesNamed?: (name: string) => string[];
}

export function parseError(message: string, line: number, hint: string, path?: string): EditwardenError {
  return new EditwardenError({ code: ErrorCode.PARSE, message, hint, line, ...defined({ path }) });
}

export function source(format: FormatName, index: number, line: number): RequestSource {
  return { format, index, line };
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Asks `fileExists` without letting a refused path (outside the root) abort parsing: the sandbox refuses it later. */
export function probeExists(options: ParseOptions, path: string): boolean {
  if (!options.fileExists) return false;
  try {
    return options.fileExists(path);
  } catch {
    return false;
  }
}
