/**
 * Active edit directives in the assistant's text (`--active-edit`): the
 * stream parser is fed the text as it arrives, so each directive is known
 * (and shown) the moment its END line is complete; after the turn each one
 * becomes an edit_file call through the same ToolRunner as every other
 * write — constraints, approval, record — and its outcome is reported back
 * to the model. A malformed directive is reported on its own; it never stops
 * the others. This module parses and maps; it never writes.
 */
import { ActiveEditStreamParser, BEGIN_MARKER, type ActiveEditEvent } from '../../formats/active-edit.js';
import type { EditRequest } from '../../edit/types.js';
import type { ErrorInfo } from '../../errors.js';
import type { FileView } from '../../workspace/view.js';
import { editFileTool } from '../../tools/edit-file.js';

/** The tool each directive becomes a call of (its arguments: `editFileArgsOf`). */
export const DIRECTIVE_TOOL = editFileTool.name;

/** One directive as the loop handles it: edit_file arguments, or why there are none. */
export type Directive = { index: number; line?: number; path: string; args: Record<string, unknown> } | { index: number; line?: number; path?: string; error: ErrorInfo };

/** edit_file arguments for a request an active-edit directive produced. */
export function editFileArgsOf(request: EditRequest): Record<string, unknown> | null {
  switch (request.action) {
    case 'create':
    case 'overwrite':
    case 'append':
    case 'prepend':
      return { path: request.path, mode: request.action, new_text: request.content };
    case 'ast':
      return {
        path: request.path,
        ast_path: request.astPath,
        ast_action: request.astAction,
        ...(request.astAction === 'remove' ? {} : { new_text: request.content }),
      };
    case 'edit':
      return { path: request.path, old_text: request.oldText, new_text: request.newText, ...(request.replaceAll ? { replace_all: true } : {}) };
    case 'delete':
    case 'insert':
    case 'patch':
      return null;
    default: {
      const never: never = request;
      return never;
    }
  }
}

function toDirective(event: ActiveEditEvent): Directive {
  if (event.kind === 'error') {
    const e = event.error;
    return {
      index: e.index,
      line: e.line,
      ...(e.path !== undefined ? { path: e.path } : {}),
      error: { code: e.error.code, message: e.error.message, hint: e.error.hint },
    };
  }
  const r = event.request;
  const index = r.source?.index ?? 0;
  const line = r.source?.line;
  const args = editFileArgsOf(r);
  if (!args) {
    return { index, ...(line !== undefined ? { line } : {}), path: r.path, error: { code: 'E_PARSE', message: `An active edit cannot express a ${r.action} request.`, hint: 'Use edit_file for this change.' } };
  }
  return { index, ...(line !== undefined ? { line } : {}), path: r.path, args };
}

/** Collects the directives of one assistant turn as its text streams in. */
export class DirectiveCollector {
  private readonly parser: ActiveEditStreamParser;
  readonly directives: Directive[] = [];
  private sawBegin = false;
  private tail = '';

  constructor(
    ws: FileView,
    private readonly onDirective?: (d: Directive) => void,
  ) {
    // replace without an ast-path means create or overwrite depending on the file: the parser asks.
    this.parser = new ActiveEditStreamParser({ fileExists: (p) => ws.exists(p) });
  }

  push(text: string): void {
    // Only whether a BEGIN marker appeared matters; the tail keeps a marker split across pieces findable.
    if (!this.sawBegin) {
      this.tail = (this.tail + text).slice(-(text.length + BEGIN_MARKER.length));
      this.sawBegin = this.tail.includes(BEGIN_MARKER);
    }
    for (const event of this.parser.push(text)) this.add(event);
  }

  /** Ends the turn: a directive left open is reported. */
  end(): Directive[] {
    const rest = this.parser.end();
    // A reply without any directive is plain prose, not a malformed directive.
    if (this.sawBegin) for (const event of rest) this.add(event);
    return this.directives;
  }

  private add(event: ActiveEditEvent): void {
    const d = toDirective(event);
    this.directives.push(d);
    this.onDirective?.(d);
  }
}
