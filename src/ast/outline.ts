/**
 * Turns a syntax tree into the list of addressable declarations of a file
 * (its outline): each with its path, kind, and the ranges an action needs —
 * the declaration itself (with export/decorator/template wrappers) and the
 * leading comments and attributes that belong to it.
 *
 * Must never: keep tree-sitter nodes in what it returns (trees are freed
 * right after), or search inside function bodies (locals are not addressable,
 * and skipping bodies keeps outlining far cheaper than parsing).
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { DeclKind, DeclRule, LanguageSpec } from './spec.js';
import { TYPE_KINDS } from './spec.js';

export interface AstEntry {
  /** Names of the nested declarations joined by "-". */
  path: string;
  names: string[];
  name: string;
  kind: DeclKind;
  /** 1-based position among entries sharing this path, in document order. */
  ordinal: number;
  /** What addresses this entry alone: `path`, or `path#N` when several share the path. */
  address: string;
  parent?: AstEntry;
  /** Start of the declaration itself (wrappers such as `export` or decorators included). */
  nodeStart: number;
  /** Start including leading comments and attributes that belong to it. */
  start: number;
  end: number;
  /** 1-based lines of `start` and `end`, and of `nodeStart`. */
  startLine: number;
  nodeLine: number;
  endLine: number;
  /** Whitespace before `start` on its line when `start` begins the line, else the line's indentation. */
  indent: string;
  /** True when only whitespace precedes `start` on its line. */
  startsLine: boolean;
  /** The comma separating it from the next / previous item (JSON pairs, Rust fields): removed and added with it. */
  commaAfter?: { start: number; end: number };
  commaBefore?: { start: number; end: number };
  /** It is an item of a comma-separated list even if it is the only one (a JSON object's single pair). */
  inCommaList?: boolean;
}

/** A node with the children array it sits in, so siblings cost no tree-sitter lookup. */
interface Frame {
  node: Node;
  siblings: (Node | null)[];
  index: number;
  parentType: string;
}

const CONSTRUCTOR_NAMES = new Set(['constructor', '__init__', 'initialize', '__construct', 'init', 'new']);

function isComment(node: Node): boolean {
  return node.type.includes('comment');
}

/** Offsets where each line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

function lineEnd(text: string, lines: number[], row: number): number {
  const next = lines[row + 1];
  return next === undefined ? text.length : next - 1;
}

class OutlineBuilder {
  readonly entries: AstEntry[] = [];
  private readonly transparent: Set<string>;
  private readonly wrappers: Set<string>;
  private readonly attachments: Set<string>;
  private readonly trailing: Set<string>;
  private readonly lines: number[];

  constructor(
    private readonly spec: LanguageSpec,
    private readonly text: string,
    private readonly root: Node,
    /** When set, only declarations whose path is this path or a prefix of it are outlined. */
    private readonly only?: string,
  ) {
    this.transparent = new Set([...spec.transparent, ...(spec.wrappers ?? [])]);
    this.wrappers = new Set(spec.wrappers ?? []);
    this.attachments = new Set(spec.attachments ?? []);
    this.trailing = new Set(spec.trailing ?? []);
    this.lines = lineStarts(text);
  }

  /**
   * Walks the children of `node`. Siblings come from the `children` array we
   * already hold, and wrappers are passed down: tree-sitter's `parent` and
   * `previousSibling` re-descend from the root on every call, which made
   * outlining a 5,000-line file cost twice its parse.
   */
  walk(node: Node, parent: AstEntry | undefined, prefix: string[], wrappers: Frame[] = []): void {
    const children = node.children;
    for (let index = 0; index < children.length; index++) {
      const child = children[index];
      if (!child?.isNamed) continue;
      const here: Frame = { node: child, siblings: children, index, parentType: node.type };
      const rule = this.spec.declarations[child.type];
      if (rule) {
        const container = typeof rule.container === 'function' ? rule.container(child) : rule.container === true;
        const raw = rule.name ? rule.name(child) : (child.childForFieldName('name')?.text ?? null);
        const own = raw === null ? [] : (Array.isArray(raw) ? raw : [raw]).filter((n) => n.length > 0);
        if (own.length > 0) {
          const names = [...prefix, ...own];
          if (this.only !== undefined) {
            // Resolving one path: only declarations on the way to it matter; skip the rest of the file.
            const path = names.join('-');
            if (path !== this.only && !this.only.startsWith(`${path}-`)) continue;
          }
          const entry = this.add(here, wrappers, rule, names, parent);
          if (container) this.walk(child, entry, entry.names);
          continue;
        }
        if (container) {
          this.walk(child, parent, prefix);
          continue;
        }
      }
      if (this.transparent.has(child.type)) this.walk(child, parent, prefix, this.wrappers.has(child.type) ? [...wrappers, here] : []);
    }
  }

  private add(here: Frame, wrappers: Frame[], rule: DeclRule, names: string[], parent: AstEntry | undefined): AstEntry {
    const outer = this.outerFrame(here, wrappers);
    const end = this.endOf(outer);
    const nodeStart = outer.node.startIndex;
    const start = this.leadingStart(outer);
    const startRow = this.rowOf(start);
    const lineStart = this.lines[startRow] ?? 0;
    const startsLine = isBlank(this.text, lineStart, start);
    const indent = startsLine ? this.text.slice(lineStart, start) : (/^[ \t]*/.exec(this.text.slice(lineStart)) ?? [''])[0];
    const name = names[names.length - 1] ?? '';
    const entry: AstEntry = {
      path: names.join('-'),
      names,
      name,
      kind: this.kindOf(here.node, rule, names, parent),
      ordinal: 1,
      address: '',
      nodeStart,
      start,
      end,
      startLine: startRow + 1,
      nodeLine: outer.node.startPosition.row + 1,
      endLine: this.rowOf(end) + 1,
      indent,
      startsLine,
    };
    if (parent) entry.parent = parent;
    const next = outer.siblings[outer.index + 1];
    const prev = outer.siblings[outer.index - 1];
    if (next && !next.isNamed && next.type === ',') entry.commaAfter = { start: next.startIndex, end: next.endIndex };
    else if (prev && !prev.isNamed && prev.type === ',') entry.commaBefore = { start: prev.startIndex, end: prev.endIndex };
    if (this.spec.commaLists?.includes(outer.parentType)) entry.inCommaList = true;
    this.entries.push(entry);
    return entry;
  }

  private kindOf(node: Node, rule: DeclRule, names: string[], parent: AstEntry | undefined): DeclKind {
    let kind = typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
    // Declarations that name their own parent (Go receivers, C++ A::f) are members even outside the type's braces.
    const memberOfType = (parent !== undefined && TYPE_KINDS.has(parent.kind)) || names.length > (parent?.names.length ?? 0) + 1;
    if (kind === 'function' && memberOfType) kind = 'method';
    if (kind === 'variable' && parent !== undefined && TYPE_KINDS.has(parent.kind)) kind = 'field';
    const name = names[names.length - 1] ?? '';
    const owner = names[names.length - 2];
    if (kind === 'method' && (CONSTRUCTOR_NAMES.has(name) || name === owner)) kind = 'constructor';
    return kind;
  }

  /** The outermost enclosing wrapper (export, decorators, template<>, single-spec group) that holds only this declaration. */
  private outerFrame(here: Frame, wrappers: Frame[]): Frame {
    let outer = here;
    for (let k = wrappers.length - 1; k >= 0; k--) {
      const wrapper = wrappers[k];
      if (!wrapper) break;
      const inner = outer.node;
      const others = wrapper.node.namedChildren.some((c) => c !== null && c.id !== inner.id && (this.spec.declarations[c.type] !== undefined || this.transparent.has(c.type)));
      if (others) break;
      outer = wrapper;
    }
    return outer;
  }

  /** End of the declaration: a detached body (Dart) and a `;` right after it on the same line belong to it. */
  private endOf(outer: Frame): number {
    let end = outer.node.endIndex;
    let nextIndex = outer.index + 1;
    let next = outer.siblings[nextIndex];
    if (next && this.trailing.has(next.type)) {
      end = next.endIndex;
      next = outer.siblings[++nextIndex];
    }
    if (next && !next.isNamed && next.type === ';' && next.startPosition.row === this.rowOf(end)) end = next.endIndex;
    // Some grammars end a node after its newline (C's #define): the declaration ends at its last character.
    while (end > outer.node.startIndex && /\s/.test(this.text[end - 1] ?? '')) end--;
    return end;
  }

  /** Comments and attributes on the lines directly above (no blank line between) belong to the declaration. */
  private leadingStart(outer: Frame): number {
    const node = outer.node;
    let start = node.startIndex;
    let row = node.startPosition.row;
    let index = outer.index;
    if (!isBlank(this.text, this.lines[row] ?? 0, start)) return start;
    while (row > 0) {
      const prevRow = row - 1;
      const from = this.lines[prevRow] ?? 0;
      const to = lineEnd(this.text, this.lines, prevRow);
      const indentMatch = /^[ \t]*/.exec(this.text.slice(from, to));
      const column = indentMatch ? indentMatch[0].length : 0;
      if (from + column >= to) break; // blank line: what is above belongs to something else
      let found: Node | null = null;
      let sibling: Node | null = null;
      let siblingIndex = index - 1;
      for (; index >= 0 && siblingIndex >= 0; siblingIndex--) {
        const s = outer.siblings[siblingIndex];
        if (s?.isNamed) {
          sibling = s;
          break;
        }
      }
      if (sibling && sibling.endPosition.row >= prevRow) {
        // The line above ends a sibling: it belongs to the declaration only if it is a comment or attribute.
        if (!this.belongs(sibling) || sibling.endPosition.row !== prevRow) break;
        found = sibling;
        index = siblingIndex;
      } else {
        // The comment is not a sibling (Python puts it inside the previous block): look at that line.
        found = this.root.descendantForPosition({ row: prevRow, column });
        for (let depth = 0; found && !this.belongs(found) && depth < 4; depth++) {
          found = found.parent;
          if (found && found.endIndex > node.startIndex) found = null;
        }
        if (found && !this.belongs(found)) found = null;
        index = -1;
      }
      if (!found || found.endIndex > node.startIndex) break;
      if (found.startIndex === 0 && found.text.startsWith('#!')) break; // a shebang belongs to the file
      const foundStartRow = found.startPosition.row;
      // The comment must stand on its own lines: nothing before it on its first line, nothing after it on its last.
      if (!isBlank(this.text, this.lines[foundStartRow] ?? 0, found.startIndex)) break;
      if (!isBlank(this.text, found.endIndex, lineEnd(this.text, this.lines, found.endPosition.row))) break;
      if (found.endPosition.row !== prevRow) break;
      start = found.startIndex;
      row = foundStartRow;
    }
    return start;
  }

  private belongs(node: Node): boolean {
    if (isComment(node)) return true;
    if (this.spec.isAttachment) return this.spec.isAttachment(node);
    return this.attachments.has(node.type);
  }

  private rowOf(offset: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lines[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * The addressable declarations of `text` (already parsed into `tree`), in
 * document order. With `only`, just the declarations whose path is `only` or
 * one of its prefixes (what resolving that path needs: a fraction of the work).
 */
export function buildOutline(spec: LanguageSpec, text: string, tree: Tree, only?: string): AstEntry[] {
  const builder = new OutlineBuilder(spec, text, tree.rootNode, only);
  builder.walk(tree.rootNode, undefined, []);
  const entries = builder.entries;
  const byPath = new Map<string, AstEntry[]>();
  for (const entry of entries) {
    const same = byPath.get(entry.path);
    if (same) same.push(entry);
    else byPath.set(entry.path, [entry]);
  }
  for (const entry of entries) {
    const same = byPath.get(entry.path) ?? [entry];
    entry.ordinal = same.indexOf(entry) + 1;
    entry.address = same.length > 1 ? `${entry.path}#${entry.ordinal}` : entry.path;
    // Go methods and C++ `A::f` name a parent they are not nested in: link them to it.
    const parentPath = entry.names.slice(0, -1).join('-');
    if (entry.names.length > 1 && entry.parent?.path !== parentPath) {
      const named = byPath.get(parentPath)?.[0];
      if (named) entry.parent = named;
    }
  }
  return entries;
}
