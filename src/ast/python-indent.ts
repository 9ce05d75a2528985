/**
 * The syntax guard's Python indentation rule: tree-sitter's Python grammar
 * parses an unexpectedly indented statement as one more statement of the
 * block, without an error — CPython refuses the file ("IndentationError:
 * unexpected indent"). Here every statement that starts a line inside a block
 * (or the module) must start at the column of the block's first statement.
 * Reads a tree and its text; must never parse, edit a tree or report a line
 * outside the region it is asked about.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { AstSyntaxIssue, ParseText, Region } from './syntax.js';
import { commonPrefix, commonSuffix } from './text-edit.js';

const CONTAINERS = new Set(['module', 'block']);

/**
 * Statements starting a line in `region` that are indented deeper than their
 * block's first statement. Looks only at the lines of the region, so a large
 * file costs what the edit touched.
 */
function unexpectedIndents(tree: Tree, text: string, region: Region, limit = 20): AstSyntaxIssue[] {
  const issues: AstSyntaxIssue[] = [];
  const seen = new Set<number>();
  let pos = region.start > 0 ? text.lastIndexOf('\n', region.start - 1) + 1 : 0;
  while (pos <= region.end && pos < text.length && issues.length < limit) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    let first = pos;
    while (first < lineEnd && (text[first] === ' ' || text[first] === '\t')) first++;
    if (first < lineEnd && first > pos) {
      let node: Node | null = tree.rootNode.namedDescendantForIndex(first);
      while (node?.parent && !CONTAINERS.has(node.parent.type)) node = node.parent;
      const container = node?.parent;
      if (node && container && node.startIndex === first && node.type !== 'comment' && !seen.has(node.id)) {
        seen.add(node.id);
        const expected = container.type === 'module' ? 0 : firstStatementColumn(container);
        if (expected !== undefined && node.startPosition.column > expected) {
          issues.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, snippet: text.slice(pos, lineEnd).slice(0, 100), kind: 'error', start: node.startIndex, end: node.endIndex });
        }
      }
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  return issues;
}

function firstStatementColumn(block: Node): number | undefined {
  for (let i = 0; i < block.namedChildCount; i++) {
    const child = block.namedChild(i);
    if (child && child.type !== 'comment') return child.startPosition.column;
  }
  return undefined;
}

/**
 * Unexpected indents the edit introduced: found in the edited span of `after`,
 * minus those the same lines already had in `before` (a file that was already
 * broken is judged only on what the edit added).
 */
export function newUnexpectedIndents(tree: Tree, before: string | null, after: string, parse: ParseText): AstSyntaxIssue[] {
  const start = before === null ? 0 : commonPrefix(before, after);
  const suffix = before === null ? 0 : commonSuffix(before, after, start);
  const found = unexpectedIndents(tree, after, { start, end: after.length - suffix });
  if (found.length === 0 || before === null) return found;
  const old = parse(before);
  if (!old) return found;
  try {
    const had = new Set(unexpectedIndents(old, before, { start, end: before.length - suffix }).map((i) => i.snippet));
    return found.filter((i) => !had.has(i.snippet));
  } finally {
    old.delete();
  }
}
