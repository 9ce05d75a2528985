/**
 * The syntax guard's core: find ERROR and MISSING nodes in a tree, and tell
 * which of them an edit introduced. A file that was already broken is judged
 * only on errors that do not overlap an error it already had.
 *
 * Built to stay cheap on 100k-line files: a clean result is decided by the
 * root's hasError flag alone; otherwise only the regions the edit changed
 * (tree-sitter's changed ranges plus the edited span) are searched for new
 * errors, descending only into nodes that contain an error, and the old
 * tree is asked only about the places where a candidate was found. Nodes
 * outside the changed ranges have the same ancestry in both trees, so an
 * error there was already in the old text.
 *
 * Must never: report an error the old text already had, load grammars
 * (callers hand in a way to parse), or modify a tree it did not create (old
 * trees are copied before they are edited, so the caller can keep them).
 */
import type { Edit, Node, Tree, TreeCursor } from 'web-tree-sitter';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { SyntaxIssue } from '../edit/types.js';
import { textEdit } from './text-edit.js';

export { textEdit } from './text-edit.js';

export interface AstSyntaxIssue extends SyntaxIssue {
  /** For a MISSING node: the token the parser expected (e.g. ";" or "}"). */
  expected?: string;
  /** Offsets of the error in the text it was found in. */
  start: number;
  end: number;
}

/** A span of text offsets, both ends included when testing for overlap. */
export interface Region {
  start: number;
  end: number;
}

const MAX_ERRORS = 100;
const SNIPPET = 100;

/** Parses `text`, incrementally from `old` (already edited) when given; null when no parser is available. */
export type ParseText = (text: string, old?: Tree) => Tree | null;

/** Children above which finding the child at an offset by bisection beats stepping through them. */
const MANY_CHILDREN = 64;

/**
 * Moves a cursor on `node` to its last child that starts at or before
 * `start` (or its first child). A node with a handful of children is simply
 * entered; for a big one (the root of a flat 100k-line file has 100k
 * children) the cursor bisects over the node's descendants in document order,
 * which tree-sitter reaches through its balanced internal nodes, and climbs
 * back to the child. Not TreeCursor.gotoFirstChildForIndex: in web-tree-sitter
 * 0.25.10 it always lands on the first child. Not Node.firstChildForIndex with
 * nextSibling: nextSibling skips zero-width MISSING nodes.
 */
function gotoChildAt(cursor: TreeCursor, node: Node, start: number): boolean {
  if (start <= node.startIndex || node.childCount <= MANY_CHILDREN) return cursor.gotoFirstChild();
  let lo = 1;
  let hi = node.descendantCount - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    cursor.gotoDescendant(mid);
    if (cursor.startIndex <= start) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best === 0) {
    cursor.gotoDescendant(0);
    return cursor.gotoFirstChild();
  }
  cursor.gotoDescendant(best);
  while (cursor.currentDepth > 1) cursor.gotoParent();
  return true;
}

/**
 * Outermost ERROR nodes, and MISSING nodes outside them, that touch one of
 * `regions`, in document order. Descends only into nodes that contain an
 * error and, within a node, starts at the child where the region begins.
 */
function errorNodesIn(tree: Tree, regions: readonly Region[], limit = MAX_ERRORS): Node[] {
  const found = new Map<number, Node>();
  const visit = (node: Node, start: number, end: number): void => {
    if (found.size >= limit) return;
    if (node.isError || node.isMissing) {
      found.set(node.id, node);
      return;
    }
    if (!node.hasError) return;
    const cursor = node.walk();
    try {
      if (!gotoChildAt(cursor, node, start)) return;
      do {
        if (cursor.startIndex > end) break;
        // Reading the offsets is cheap; building the child's Node only pays where the region is.
        if (cursor.endIndex >= start) visit(cursor.currentNode, start, end);
      } while (found.size < limit && cursor.gotoNextSibling());
    } finally {
      cursor.delete();
    }
  };
  const root = tree.rootNode;
  // One character of slack on each side: a zero-width MISSING node right at a region's start ends there,
  // and "first child for index" only finds children that end after the index.
  for (const r of merge(regions)) visit(root, Math.max(0, r.start - 1), r.end + 1);
  return [...found.values()].sort((a, b) => a.startIndex - b.startIndex || a.endIndex - b.endIndex);
}

/** Every error node of the tree (up to the limit). */
function collectErrorNodes(tree: Tree, limit = MAX_ERRORS): Node[] {
  return tree.rootNode.hasError ? errorNodesIn(tree, [{ start: 0, end: tree.rootNode.endIndex }], limit) : [];
}

function merge(regions: readonly Region[]): Region[] {
  const sorted = [...regions].sort((a, b) => a.start - b.start);
  const out: Region[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

function lineText(text: string, lineStart: number): string {
  const nl = text.indexOf('\n', lineStart);
  const line = text.slice(lineStart, nl === -1 ? text.length : nl).trim();
  return line.length > SNIPPET ? `${line.slice(0, SNIPPET - 1)}…` : line;
}

function toIssue(node: Node, text: string): AstSyntaxIssue {
  const { row, column } = node.startPosition;
  const issue: AstSyntaxIssue = {
    line: row + 1,
    column: column + 1,
    // Columns count UTF-16 code units like string offsets do, so the line starts `column` before the node.
    snippet: lineText(text, node.startIndex - column),
    kind: node.isMissing ? 'missing' : 'error',
    start: node.startIndex,
    end: node.endIndex,
  };
  if (node.isMissing) issue.expected = node.type;
  return issue;
}

/**
 * New errors of `tree` (the new text) against `edited` (the old tree, edited
 * to the new text's offsets): candidates in the changed regions, minus those
 * overlapping an old error.
 */
function newIssues(edited: Tree, tree: Tree, edit: Edit, after: string): AstSyntaxIssue[] {
  if (!tree.rootNode.hasError) return [];
  const regions: Region[] = edited.getChangedRanges(tree).map((r) => ({ start: searchStart(after, r.startIndex), end: r.endIndex }));
  regions.push({ start: searchStart(after, edit.startIndex), end: edit.newEndIndex });
  const candidates = errorNodesIn(tree, regions);
  const oldBroken = edited.rootNode.hasError;
  const fresh = candidates.filter((node) => {
    if (!oldBroken) return true;
    const here: Region = { start: node.startIndex, end: node.endIndex };
    const old = errorNodesIn(edited, [here], Number.POSITIVE_INFINITY);
    return !old.some((o) => here.start <= o.endIndex && o.startIndex <= here.end);
  });
  return fresh.map((node) => toIssue(node, after));
}

/**
 * Where the search for a changed region's errors starts. Tree-sitter puts a
 * zero-width MISSING node right after the last token before the error (a
 * comment is a token too), which can lie before the whitespace that precedes
 * the changed range: in `name: string;\n\n,/*` the missing member name sits
 * just after the `;`, two characters before the edit. The start moves back
 * over that whitespace.
 */
function searchStart(text: string, start: number): number {
  let at = Math.min(start, text.length);
  while (at > 0 && /\s/.test(text.charAt(at - 1))) at--;
  return at;
}

/** The edit that turns `after` back into `before`. */
function reversed(edit: Edit): Edit {
  return {
    startIndex: edit.startIndex,
    oldEndIndex: edit.newEndIndex,
    newEndIndex: edit.oldEndIndex,
    startPosition: edit.startPosition,
    oldEndPosition: edit.newEndPosition,
    newEndPosition: edit.oldEndPosition,
  };
}

/** A copy of `tree` edited by `edit` (the caller deletes it). */
function editedCopy(tree: Tree, edit: Edit): Tree {
  const copy = tree.copy();
  copy.edit(edit);
  return copy;
}

export interface GuardRun {
  issues: AstSyntaxIssue[];
  /** The tree of `after`, for the caller to keep (incremental parsing of the next edit) or delete. */
  tree: Tree;
  /** The tree of `before` when this run had to parse it, for the caller to keep or delete. */
  oldTree?: Tree;
}

/**
 * New syntax errors of `after`. With `oldTree` (the tree of `before`; left
 * untouched, the caller still owns it) the new text is parsed incrementally
 * from an edited copy. Without it, `after` is parsed in full and `before` only
 * when `after` has errors at all — then incrementally from the new tree, so a
 * broken edit costs one full parse, not two. Null when a parse was
 * impossible (no parser available).
 */
export function findNewErrors(parse: ParseText, before: string | null, after: string, oldTree?: Tree): GuardRun | null {
  if (before === null) {
    const tree = parse(after);
    return tree && { issues: collectErrorNodes(tree).map((n) => toIssue(n, after)), tree };
  }
  const edit = textEdit(before, after);
  if (oldTree) {
    const edited = editedCopy(oldTree, edit);
    try {
      const tree = parse(after, edited);
      return tree && { issues: newIssues(edited, tree, edit, after), tree };
    } finally {
      edited.delete();
    }
  }
  const tree = parse(after);
  if (!tree?.rootNode.hasError) return tree && { issues: [], tree };
  const back = editedCopy(tree, reversed(edit));
  let previous: Tree | null;
  try {
    previous = parse(before, back);
  } finally {
    back.delete();
  }
  if (!previous) {
    tree.delete();
    return null;
  }
  const edited = editedCopy(previous, edit);
  try {
    return { issues: newIssues(edited, tree, edit, after), tree, oldTree: previous };
  } finally {
    edited.delete();
  }
}

export function parse(parser: { parse(text: string, old?: Tree | null): Tree | null }, text: string, oldTree?: Tree): Tree {
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
