/**
 * The syntax guard's core: find ERROR and MISSING nodes in a tree, and tell
 * which of them an edit introduced. A file that was already broken is judged
 * only on errors that do not overlap an error it already had.
 *
 * Must never: report an error the old text already had, or load grammars
 * (callers hand in a ready parser).
 */
import type { Edit, Node, Parser, Point, Tree } from 'web-tree-sitter';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { SyntaxIssue } from '../edit/types.js';

export interface AstSyntaxIssue extends SyntaxIssue {
  /** For a MISSING node: the token the parser expected (e.g. ";" or "}"). */
  expected?: string;
  /** Offsets of the error in the text it was found in. */
  start: number;
  end: number;
}

const MAX_ERRORS = 100;
const SNIPPET = 100;

function lineText(text: string, row: number): string {
  let start = 0;
  for (let r = 0; r < row; r++) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) return '';
    start = nl + 1;
  }
  const nl = text.indexOf('\n', start);
  const line = text.slice(start, nl === -1 ? text.length : nl).trim();
  return line.length > SNIPPET ? `${line.slice(0, SNIPPET - 1)}…` : line;
}

/** Outermost ERROR nodes and MISSING nodes outside them, in document order. */
export function collectErrorNodes(tree: Tree): Node[] {
  const found: Node[] = [];
  const visit = (node: Node): void => {
    if (found.length >= MAX_ERRORS) return;
    if (node.isError || node.isMissing) {
      found.push(node);
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return found;
}

export function toIssue(node: Node, text: string): AstSyntaxIssue {
  const issue: AstSyntaxIssue = {
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    snippet: lineText(text, node.startPosition.row),
    kind: node.isMissing ? 'missing' : 'error',
    start: node.startIndex,
    end: node.endIndex,
  };
  if (node.isMissing) issue.expected = node.type;
  return issue;
}

function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/** The single edit that turns `before` into `after`: common prefix and suffix kept. */
export function textEdit(before: string, after: string): Edit {
  const max = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < max && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  const oldEnd = before.length - suffix;
  const newEnd = after.length - suffix;
  return {
    startIndex: prefix,
    oldEndIndex: oldEnd,
    newEndIndex: newEnd,
    startPosition: pointAt(before, prefix),
    oldEndPosition: pointAt(before, oldEnd),
    newEndPosition: pointAt(after, newEnd),
  };
}

/** Errors in `after` that overlap none of the (already shifted) old error ranges. */
export function subtractOld(afterIssues: AstSyntaxIssue[], old: { start: number; end: number }[]): AstSyntaxIssue[] {
  return afterIssues.filter((issue) => !old.some((o) => issue.start <= o.end && o.start <= issue.end));
}

export interface GuardRun {
  issues: AstSyntaxIssue[];
  /** The tree of `after`, for the caller to keep (incremental parsing of the next edit) or delete. */
  tree: Tree;
}

/**
 * New syntax errors of `after`. With `oldTree` (the tree of `before`, which
 * this function edits in place and the caller must delete) the old errors are
 * read from it and the new text is parsed incrementally (unless the tree comes
 * from another parser: `incremental` false); without it, `before` is parsed only when `after` has
 * errors at all — a clean result costs one parse.
 */
export function findNewErrors(parser: Parser, before: string | null, after: string, oldTree?: Tree, incremental = true): GuardRun {
  if (oldTree && before !== null) {
    oldTree.edit(textEdit(before, after));
    const old = collectErrorNodes(oldTree).map((n) => ({ start: n.startIndex, end: n.endIndex }));
    const tree = parse(parser, after, incremental ? oldTree : undefined);
    const issues = collectErrorNodes(tree).map((n) => toIssue(n, after));
    return { issues: subtractOld(issues, old), tree };
  }
  const tree = parse(parser, after);
  const issues = collectErrorNodes(tree).map((n) => toIssue(n, after));
  if (issues.length === 0 || before === null) return { issues, tree };
  const previous = parse(parser, before);
  try {
    previous.edit(textEdit(before, after));
    const old = collectErrorNodes(previous).map((n) => ({ start: n.startIndex, end: n.endIndex }));
    return { issues: subtractOld(issues, old), tree };
  } finally {
    previous.delete();
  }
}

export function parse(parser: Parser, text: string, oldTree?: Tree): Tree {
  const tree = parser.parse(text, oldTree ?? null);
  if (!tree) {
    throw new EditwardenError({ code: ErrorCode.PARSE, message: 'tree-sitter returned no tree (parse cancelled).', hint: 'Try again; if it persists, edit with old_text/new_text.' });
  }
  return tree;
}

/** The refusal for a new syntax error: names the line and quotes it. */
export function syntaxError(path: string, issue: SyntaxIssue & { expected?: string }, more = 0): EditwardenError {
  const what = issue.kind === 'missing' ? `a missing ${issue.expected ? JSON.stringify(issue.expected) : 'token'}` : 'a syntax error';
  const others = more > 0 ? ` (and ${more} more new error${more > 1 ? 's' : ''})` : '';
  return new EditwardenError({
    code: ErrorCode.SYNTAX,
    message: `The edit would leave ${path} with ${what} at line ${issue.line}, column ${issue.column}${others}: ${JSON.stringify(issue.snippet)}`,
    hint: 'Nothing was written. Check brackets, quotes, commas and indentation in the new text near that line and send the corrected edit; if the file must stay broken for now, use the syntax policy warn (or off).',
    path,
    line: issue.line,
  });
}
