/**
 * How a language's syntax tree maps onto addressable declarations: the shape
 * of one entry in the language table, plus the small helpers the entries use
 * to read names out of nodes.
 *
 * Must never: import web-tree-sitter at runtime (types only) — the table is
 * consulted for every edit to decide whether tree-sitter is needed at all.
 */
import type { Node } from 'web-tree-sitter';

export type DeclKind =
  | 'namespace'
  | 'module'
  | 'class'
  | 'struct'
  | 'interface'
  | 'enum'
  | 'trait'
  | 'impl'
  | 'object'
  | 'union'
  | 'record'
  | 'type'
  | 'function'
  | 'method'
  | 'constructor'
  | 'property'
  | 'field'
  | 'constant'
  | 'variable'
  | 'macro'
  | 'key'
  | 'rule';

/** A declaration node type: what kind it is, how to read its name, whether members live inside it. */
export interface DeclRule {
  kind: DeclKind | ((node: Node) => DeclKind);
  /**
   * The name, or several names when the declaration names its own parents
   * (Go `func (g *Greeter) Greet` → ['Greeter', 'Greet'], C++ `A::b`).
   * Null: this node is not a declaration here (it is then searched like a transparent node when `container`).
   * Default: the `name` field.
   */
  name?: (node: Node) => string | string[] | null;
  /** Members live inside (a function's body is never searched: locals are not addressable). */
  container?: boolean | ((node: Node) => boolean);
}

export interface LanguageSpec {
  /** Stable id, also the grammar's wasm stem unless `grammar` says otherwise. */
  id: string;
  label: string;
  grammar: string;
  extensions: string[];
  /** Node types that are declarations. Empty: the language gets the syntax guard only. */
  declarations: Record<string, DeclRule>;
  /** Node types that are not declarations but are searched for them (bodies, export wrappers, preprocessor blocks). */
  transparent: string[];
  /** Transparent nodes whose whole text belongs to the one declaration inside them (export, decorators, template<>). */
  wrappers?: string[];
  /** Node types (besides comments) on the lines above a declaration that belong to it (decorators, attributes). */
  attachments?: string[];
  /** Finer test for attachments whose node type is too general (Elixir's `@doc` is a unary operator, like `@limit 1`). */
  isAttachment?: (node: Node) => boolean;
  /** Following sibling node types that belong to the declaration before them (Dart's detached function bodies). */
  trailing?: string[];
  /** Node types whose items are separated by commas (JSON objects): inserting next to a lone item adds the comma. */
  commaLists?: string[];
  /** What the README says about this language beyond the table. */
  note?: string;
}

/** Kinds whose functions are methods. */
export const TYPE_KINDS: ReadonlySet<DeclKind> = new Set(['class', 'struct', 'interface', 'enum', 'trait', 'impl', 'object', 'record', 'union']);

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

/** The first named child (not a grandchild) whose type is one of `types`. */
export function childOfType(node: Node, types: readonly string[]): Node | null {
  for (const child of node.namedChildren) if (child && types.includes(child.type)) return child;
  return null;
}

/** Follows the `declarator` field chain of C-family declarators down to the identifier. */
export function declaratorName(node: Node): string | null {
  let current: Node | null = node;
  for (let depth = 0; current && depth < 12; depth++) {
    switch (current.type) {
      case 'identifier':
      case 'field_identifier':
      case 'type_identifier':
      case 'destructor_name':
      case 'operator_name':
      case 'namespace_identifier':
        return current.text;
      case 'qualified_identifier':
        return current.text;
      default: {
        const next: Node | null = current.childForFieldName('declarator') ?? childOfType(current, ['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name']);
        current = next;
      }
    }
  }
  return null;
}

/** Splits a qualified name (`A::B::c`, `A.b`) into path segments. */
export function splitQualified(name: string, separator: string): string[] {
  return name
    .split(separator)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** Drops generic arguments and whitespace: `Foo<T>` → `Foo`, `Vec < u8 >` → `Vec`. */
export function bareTypeName(text: string): string {
  const lt = text.indexOf('<');
  return (lt === -1 ? text : text.slice(0, lt)).replace(/\s+/g, '');
}
