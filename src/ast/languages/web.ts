/** TypeScript, TSX and JavaScript: what is addressable and how names are read. */
import type { Node } from 'web-tree-sitter';
import type { DeclKind, DeclRule, LanguageSpec } from '../spec.js';
import { field } from '../spec.js';

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

function variableKind(node: Node): DeclKind {
  const value = field(node, 'value');
  if (value && FUNCTION_VALUES.has(value.type)) return 'function';
  const keyword = node.parent?.child(0)?.type;
  return keyword === 'const' ? 'constant' : 'variable';
}

function identifierName(node: Node): string | null {
  const name = field(node, 'name');
  // Destructuring (`const { a, b } = …`) declares several names: not one addressable node.
  return name && (name.type === 'identifier' || name.type === 'type_identifier') ? name.text : null;
}

function moduleName(node: Node): string | null {
  const name = field(node, 'name');
  if (!name) return null;
  return name.type === 'string' ? name.text.slice(1, -1) : name.text;
}

const script: Record<string, DeclRule> = {
  function_declaration: { kind: 'function' },
  generator_function_declaration: { kind: 'function' },
  class_declaration: { kind: 'class', container: true },
  method_definition: { kind: 'function' },
  field_definition: { kind: 'field', name: (n) => (field(n, 'property') ?? field(n, 'name'))?.text ?? null },
  variable_declarator: { kind: variableKind, name: identifierName },
};

const typed: Record<string, DeclRule> = {
  ...script,
  abstract_class_declaration: { kind: 'class', container: true },
  interface_declaration: { kind: 'interface', container: true },
  enum_declaration: { kind: 'enum' },
  type_alias_declaration: { kind: 'type' },
  internal_module: { kind: 'namespace', container: true, name: moduleName },
  module: { kind: 'namespace', container: true, name: moduleName },
  function_signature: { kind: 'function' },
  method_signature: { kind: 'function' },
  abstract_method_signature: { kind: 'function' },
  public_field_definition: { kind: 'field' },
  property_signature: { kind: 'property' },
};

const transparent = ['export_statement', 'lexical_declaration', 'variable_declaration', 'expression_statement', 'ambient_declaration', 'class_body', 'interface_body', 'object_type', 'statement_block'];
const wrappers = ['export_statement', 'lexical_declaration', 'variable_declaration', 'expression_statement', 'ambient_declaration'];

export const webLanguages: LanguageSpec[] = [
  {
    id: 'typescript',
    label: 'TypeScript',
    grammar: 'typescript',
    extensions: ['.ts', '.mts', '.cts'],
    declarations: typed,
    transparent,
    wrappers,
    attachments: ['decorator'],
  },
  { id: 'tsx', label: 'TSX', grammar: 'tsx', extensions: ['.tsx'], declarations: typed, transparent, wrappers, attachments: ['decorator'] },
  {
    id: 'javascript',
    label: 'JavaScript',
    grammar: 'javascript',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    declarations: script,
    transparent,
    wrappers,
    attachments: ['decorator'],
  },
];
