/**
 * Active edit directives in model text, parsed into edit requests — in one go
 * or as a stream. Pure: text in, requests out; resolving an `ast-path` is the
 * AST code's job, not this module's.
 *
 * Grammar (a reply mixes prose and directives):
 *
 *   reply     := (prose | directive)*
 *   directive := BEGIN LF header* START LF code_line* END LF?
 *              | BEGIN LF header* END LF?               (action: remove only — the design's "no content needed")
 *              | BEGIN LF header* code_line+ END LF?    (lenient: after "action:", a line that is not
 *                                                       header-shaped — no "word:" before a colon —
 *                                                       starts the code; models drop ---START---)
 *   "path:" is accepted as "Edit:" (the spelling models and our own README used).
 *   header    := "Edit:" SP path LF
 *              | "ast-path:" SP ast_path LF            (optional: Namespace-Class-Method)
 *              | "action:" SP ("replace" | "remove" | "append" | "prepend") LF
 *              | LF                                    (blank lines are ignored)
 *   code_line := TEXT LF
 *              | NO_NEWLINE LF                         ("\ No newline at end of file", an editwarden
 *                                                       extension: the code ends without a newline)
 *   BEGIN := "---BEGIN---"   START := "---START---"   END := "---END---"   (blanks around them ignored)
 *
 * Meaning: without an ast-path, `replace` writes the whole file (create when
 * it does not exist), `append`/`prepend` add the code at the end/start, and
 * `remove` is refused (it needs a target). With an ast-path the request is an
 * `ast` request for the AST resolver. Code is whole lines, each with its
 * newline; `replace`, `append` and `prepend` need code that is not blank.
 *
 * Each directive is one item: a malformed one (a missing marker, no `Edit:`
 * or `action:`, an unknown action or header, blank code where code is
 * needed) is reported with its index and line, and the others still go ahead.
 */
import { EditwardenError } from '../errors.js';
import type { EditRequest } from '../edit/types.js';
import { parseError, probeExists, source, type ItemError, type ParseOptions, type ParseResult } from './parse-result.js';
import { defined } from '../defined.js';

export const BEGIN_MARKER = '---BEGIN---';
export const START_MARKER = '---START---';
export const END_MARKER = '---END---';
const EDIT_HEADER = 'edit';
/** Accepted as "Edit:". */
const PATH_HEADER_ALIAS = 'path';
/** A line that looks like a header ("word: value"): never taken as code without ---START---. */
const HEADER_SHAPED = /^\s*[A-Za-z][A-Za-z0-9_-]*\s*:/;
const AST_PATH_HEADER = 'ast-path';
const ACTION_HEADER = 'action';
const NO_NEWLINE_MARKER = '\\ No newline at end of file';
const ACTIONS = ['replace', 'remove', 'append', 'prepend'] as const;
type ActiveEditAction = (typeof ACTIONS)[number];

/** The directive format in a few lines, for the active_edit tool's answer (the full instructions are in the prompt). */
export const ACTIVE_EDIT_FORMAT = [
  BEGIN_MARKER,
  'Edit: {file_path}',
  'ast-path: {optional_ast_path}',
  'action: {replace|remove|append|prepend}',
  START_MARKER,
  '{code}',
  END_MARKER,
  '',
  `Several directives per reply; each is applied and reported on its own. action: remove needs no ${START_MARKER} block.`,
].join('\n');

const HINT = `Write each directive as: ${BEGIN_MARKER} / Edit: PATH / (ast-path: A-B-C) / action: replace|remove|append|prepend / ${START_MARKER} / code / ${END_MARKER}.`;

/** What the parser reports, in reply order, as soon as it knows. */
export type ActiveEditEvent = { kind: 'request'; request: EditRequest } | { kind: 'error'; error: ItemError };

interface OpenDirective {
  index: number;
  beginLine: number;
  path?: string;
  astPath?: string;
  action?: string;
  /** The first header problem; reported when the directive closes so its lines are not taken as prose. */
  problem?: EditwardenError;
  code: string[];
}

type State = { kind: 'prose' } | { kind: 'header'; open: OpenDirective } | { kind: 'code'; open: OpenDirective } | { kind: 'skip'; line: number };

/**
 * Incremental parser: feed it text as a model streams it; each directive is
 * emitted as soon as its END line is complete, so a UI can show directives
 * while the reply is still arriving. `parseActiveEdit` is this parser fed the
 * whole text at once: the two cannot disagree.
 */
export class ActiveEditStreamParser {
  private state: State = { kind: 'prose' };
  private partial = '';
  private lineNo = 0;
  private index = 0;
  private directives = 0;

  constructor(private readonly options: ParseOptions = {}) {}

  /** Feeds a chunk; returns what the complete lines in it finished. */
  push(chunk: string): ActiveEditEvent[] {
    const events: ActiveEditEvent[] = [];
    const text = this.partial + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.line(text.slice(start, end), events);
      start = nl + 1;
    }
    this.partial = text.slice(start);
    return events;
  }

  /** The reply is complete: handles a last line without newline and reports a directive left open. */
  end(): ActiveEditEvent[] {
    const events: ActiveEditEvent[] = [];
    if (this.partial !== '') {
      const line = this.partial.endsWith('\r') ? this.partial.slice(0, -1) : this.partial;
      this.partial = '';
      this.line(line, events);
    }
    const state = this.state;
    if (state.kind === 'header' || state.kind === 'code') {
      const missing = state.kind === 'header' ? START_MARKER : END_MARKER;
      this.fail(state.open, `The directive at line ${state.open.beginLine} has no ${missing} line before the end of the reply; it may have been cut off.`, events);
    }
    this.state = { kind: 'prose' };
    if (this.directives === 0) {
      events.push({ kind: 'error', error: { index: this.index++, line: 1, error: parseError(`No ${BEGIN_MARKER} directive found.`, 1, HINT) } });
    }
    return events;
  }

  private fail(open: OpenDirective, message: string, events: ActiveEditEvent[]): void {
    events.push({ kind: 'error', error: { index: open.index, line: open.beginLine, ...defined({ path: open.path }), error: parseError(message, open.beginLine, HINT, open.path) } });
  }

  /** The directive that ended last, while no other has begun since: a stray END after it means it ended early. */
  private lastEnd: { index: number; beginLine: number; line: number } | undefined;

  /** First line after the last directive (where prose began). */
  private proseFrom = 1;

  private begin(): void {
    this.lastEnd = undefined;
    this.directives++;
    this.state = { kind: 'header', open: { index: this.index++, beginLine: this.lineNo, code: [] } };
  }

  private line(line: string, events: ActiveEditEvent[]): void {
    this.lineNo++;
    const marker = line.trim();
    const state = this.state;
    switch (state.kind) {
      case 'prose':
        if (marker === BEGIN_MARKER) this.begin();
        else if (marker === END_MARKER && this.lastEnd !== undefined) {
          // An END with no directive open: the previous directive ended early (an END inside its code), and
          // the lines since then were its code. Refused, never skipped as prose — and the batch parser
          // withdraws the directive that ended early, so no part of it is applied.
          const from = this.lastEnd.line;
          events.push({
            kind: 'error',
            error: {
              index: this.lastEnd.index,
              line: this.lineNo,
              fromLine: this.lastEnd.beginLine,
              error: parseError(
                `Line ${this.lineNo} ends a directive (${END_MARKER}) that is not open: the directive at line ${this.lastEnd.beginLine} was ended early at line ${from}, so it and the lines up to here are not applied.`,
                this.lineNo,
                HINT,
              ),
            },
          });
          this.lastEnd = undefined;
          this.proseFrom = this.lineNo + 1;
        } else if (marker === START_MARKER) {
          // Code without a directive header: report it once and skip to its END.
          this.directives++;
          // The refusal covers the lines since the previous directive: they are this directive's lost header.
          events.push({
            kind: 'error',
            error: { index: this.index++, line: this.lineNo, fromLine: this.proseFrom, error: parseError(`Line ${this.lineNo} starts code (${START_MARKER}) without a ${BEGIN_MARKER} and headers above it.`, this.lineNo, HINT) },
          });
          this.state = { kind: 'skip', line: this.lineNo };
        }
        return;
      case 'skip':
        if (marker === END_MARKER) {
          this.state = { kind: 'prose' };
          this.proseFrom = this.lineNo + 1;
        } else if (marker === BEGIN_MARKER) this.begin();
        return;
      case 'header': {
        const open = state.open;
        if (marker === START_MARKER) this.state = { kind: 'code', open };
        else if (marker === BEGIN_MARKER) {
          this.fail(open, `The directive at line ${open.beginLine} has no ${START_MARKER} line before the next ${BEGIN_MARKER} (line ${this.lineNo}).`, events);
          this.begin();
        } else if (marker === END_MARKER) {
          this.state = { kind: 'prose' };
          this.proseFrom = this.lineNo + 1;
          // A remove needs no content block (the design's "Remove a method" example has no ---START---).
          if (open.action?.trim().toLowerCase() === 'remove') {
            // Only a directive that became a request can be withdrawn by a stray END after it.
            this.lastEnd = this.finish(open, events) ? { index: open.index, beginLine: open.beginLine, line: this.lineNo } : undefined;
          } else this.fail(open, `The directive at line ${open.beginLine} reaches ${END_MARKER} (line ${this.lineNo}) without a ${START_MARKER} line (only action: remove needs no code).`, events);
        } else if (marker !== '' && open.action !== undefined && !HEADER_SHAPED.test(line)) {
          // Lenient: the code started without ---START--- (a header typo like "ast-pth: X" stays an error).
          this.state = { kind: 'code', open };
          open.code.push(line);
        } else if (marker !== '') this.header(open, line);
        return;
      }
      case 'code': {
        const open = state.open;
        if (marker === END_MARKER) {
          this.state = { kind: 'prose' };
          // Only a directive that became a request can be withdrawn by a stray END after it.
          this.lastEnd = this.finish(open, events) ? { index: open.index, beginLine: open.beginLine, line: this.lineNo } : undefined;
          this.proseFrom = this.lineNo + 1;
        } else if (marker === BEGIN_MARKER) {
          this.fail(open, `The directive at line ${open.beginLine} has no ${END_MARKER} line before the next ${BEGIN_MARKER} (line ${this.lineNo}).`, events);
          this.begin();
        } else open.code.push(line);
        return;
      }
      default: {
        const never: never = state;
        throw new Error(`unknown state ${JSON.stringify(never)}`);
      }
    }
  }

  private header(open: OpenDirective, line: string): void {
    const colon = line.indexOf(':');
    const key = colon === -1 ? '' : line.slice(0, colon).trim().toLowerCase();
    const value = colon === -1 ? '' : line.slice(colon + 1).trim();
    const setOnce = (field: 'path' | 'astPath' | 'action', name: string): void => {
      if (open[field] !== undefined && open[field] !== value) {
        open.problem ??= parseError(`The directive at line ${open.beginLine} has two "${name}:" lines (line ${this.lineNo}).`, open.beginLine, HINT, open.path);
      }
      open[field] = value;
    };
    if (key === EDIT_HEADER || key === PATH_HEADER_ALIAS) setOnce('path', 'Edit');
    else if (key === AST_PATH_HEADER) setOnce('astPath', 'ast-path');
    else if (key === ACTION_HEADER) setOnce('action', 'action');
    else {
      open.problem ??= parseError(`The directive at line ${open.beginLine} has an unknown header line ${this.lineNo}: ${JSON.stringify(line.slice(0, 60))} (expected "Edit:", "ast-path:" or "action:").`, open.beginLine, HINT, open.path);
    }
  }

  /** Emits the directive's request (true) or its error (false). */
  private finish(open: OpenDirective, events: ActiveEditEvent[]): boolean {
    try {
      const request = this.toRequest(open);
      events.push({ kind: 'request', request });
      return true;
    } catch (error) {
      if (!(error instanceof EditwardenError)) throw error;
      events.push({ kind: 'error', error: { index: open.index, line: open.beginLine, ...defined({ path: open.path }), error } });
      return false;
    }
  }

  private toRequest(open: OpenDirective): EditRequest {
    const at = open.beginLine;
    if (open.problem) throw open.problem;
    const path = open.path;
    if (path === undefined || path === '') throw parseError(`The directive at line ${at} has no "Edit: PATH" line.`, at, HINT);
    if (open.action === undefined || open.action === '') throw parseError(`The directive at line ${at} has no "action:" line.`, at, HINT, path);
    const action = open.action.toLowerCase();
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw parseError(`The directive at line ${at} has an unknown action ${JSON.stringify(open.action)}; use replace, remove, append or prepend.`, at, HINT, path);
    }
    const act = action as ActiveEditAction;
    const content = codeText(open.code);
    if (act !== 'remove' && content.trim() === '') {
      throw parseError(`The directive at line ${at} (${act} ${path}) has no code between ${START_MARKER} and ${END_MARKER}.`, at, HINT, path);
    }
    const src = source('active-edit', open.index, at);
    const astPath = open.astPath;
    if (astPath !== undefined && astPath !== '') {
      return { action: 'ast', path, astPath, astAction: act, content: act === 'remove' ? '' : content, source: src };
    }
    switch (act) {
      case 'replace':
        return probeExists(this.options, path) ? { action: 'overwrite', path, content, source: src } : { action: 'create', path, content, source: src };
      case 'append':
      case 'prepend':
        return { action: act, path, content, source: src };
      case 'remove':
        throw parseError(`The directive at line ${at} removes from ${path} without an ast-path: remove needs a target.`, at, 'Add "ast-path: Namespace-Class-Method" naming what to remove, or use replace with the new whole file.', path);
      default: {
        const never: never = act;
        throw new Error(`unknown action ${String(never)}`);
      }
    }
  }
}

function codeText(lines: string[]): string {
  if (lines.length === 0) return '';
  if (lines[lines.length - 1]?.trim() === NO_NEWLINE_MARKER) return lines.slice(0, -1).join('\n');
  return lines.join('\n') + '\n';
}

/** Parses a whole reply. */
export function parseActiveEdit(text: string, options: ParseOptions = {}): ParseResult {
  const parser = new ActiveEditStreamParser(options);
  const events = [...parser.push(text), ...parser.end()];
  const requests: EditRequest[] = [];
  const errors: ItemError[] = [];
  // A directive ended early (a stray END follows it) is withdrawn: its error item takes its place.
  const withdrawn = new Set(events.flatMap((e) => (e.kind === 'error' && e.error.fromLine !== undefined ? [e.error.index] : [])));
  for (const e of events) {
    if (e.kind === 'request') {
      if (!withdrawn.has(e.request.source?.index ?? -1)) requests.push(e.request);
    } else errors.push(e.error);
  }
  return { requests, errors };
}
