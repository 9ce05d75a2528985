/** Go, Rust, Kotlin, Swift, Scala, Dart: receivers, impl blocks, keyword-typed declarations. */
import type { Node } from 'web-tree-sitter';
import type { DeclKind, DeclRule, LanguageSpec } from '../spec.js';
import { bareTypeName, childOfType, field } from '../spec.js';

/** Go `func (g *Greeter[T]) Greet()` lives under `Greeter`. */
function goMethodName(node: Node): string[] | null {
  const name = field(node, 'name')?.text;
  if (!name) return null;
  const receiver = field(node, 'receiver');
  const param = receiver ? childOfType(receiver, ['parameter_declaration']) : null;
  const type = param ? field(param, 'type') : null;
  if (!type) return [name];
  const receiverType = type.text.replace(/^\*/, '').replace(/\[.*$/s, '').trim();
  return [receiverType, name];
}

/** Go specs may declare several names (`a, b = 1, 2`): only single-name specs are addressable. */
function goSpecName(node: Node): string | null {
  const names = node.childrenForFieldName('name');
  return names.length === 1 && names[0] ? names[0].text : null;
}

function goTypeKind(node: Node): DeclKind {
  switch (field(node, 'type')?.type) {
    case 'struct_type':
      return 'struct';
    case 'interface_type':
      return 'interface';
    default:
      return 'type';
  }
}

/** Keyword children (`interface`, `enum`, `struct`, …) are anonymous nodes; their types are the keywords. */
function hasKeyword(node: Node, keyword: string): boolean {
  for (const child of node.children) if (child && !child.isNamed && child.type === keyword) return true;
  return false;
}

function kotlinClassKind(node: Node): DeclKind {
  if (hasKeyword(node, 'interface')) return 'interface';
  if (childOfType(node, ['enum_class_body']) || hasKeyword(node, 'enum')) return 'enum';
  return 'class';
}

function kotlinPropertyName(node: Node): string | null {
  const declaration = childOfType(node, ['variable_declaration']);
  return declaration ? (childOfType(declaration, ['simple_identifier'])?.text ?? null) : null;
}

function kotlinPropertyKind(node: Node): DeclKind {
  const modifiers = childOfType(node, ['modifiers']);
  if (modifiers?.text.split(/\s+/).includes('const')) return 'constant';
  return 'property';
}

function swiftClassKind(node: Node): DeclKind {
  const keyword = field(node, 'declaration_kind')?.type ?? node.children.find((c) => c && !c.isNamed)?.type;
  switch (keyword) {
    case 'struct':
      return 'struct';
    case 'enum':
      return 'enum';
    case 'extension':
      return 'impl';
    case 'protocol':
      return 'interface';
    default:
      return 'class';
  }
}

function swiftPropertyName(node: Node): string | null {
  const pattern = field(node, 'name');
  if (!pattern) return null;
  return (field(pattern, 'bound_identifier') ?? childOfType(pattern, ['simple_identifier']) ?? pattern).text;
}

/** Dart keeps names one level down, in the signature. */
function dartSignatureName(node: Node): string | null {
  const signature = childOfType(node, ['function_signature', 'getter_signature', 'setter_signature', 'constructor_signature', 'factory_constructor_signature', 'operator_signature']) ?? node;
  const name = field(signature, 'name') ?? childOfType(signature, ['identifier']);
  return name?.text ?? null;
}

function dartMemberName(node: Node): string | null {
  const signature = childOfType(node, ['function_signature', 'getter_signature', 'setter_signature', 'constructor_signature', 'factory_constructor_signature', 'operator_signature']);
  if (signature) return dartSignatureName(node);
  const list = childOfType(node, ['initialized_identifier_list', 'static_final_declaration_list']);
  const items = list?.namedChildren.filter((c) => c !== null) ?? [];
  if (items.length !== 1 || !items[0]) return null;
  return (childOfType(items[0], ['identifier']) ?? items[0]).text;
}

function dartMemberKind(node: Node): DeclKind {
  if (childOfType(node, ['constructor_signature', 'factory_constructor_signature', 'redirecting_factory_constructor_signature'])) return 'constructor';
  if (childOfType(node, ['function_signature', 'operator_signature'])) return 'function';
  if (childOfType(node, ['getter_signature', 'setter_signature'])) return 'property';
  return 'field';
}

const go: Record<string, DeclRule> = {
  function_declaration: { kind: 'function' },
  method_declaration: { kind: 'method', name: goMethodName },
  type_spec: { kind: goTypeKind, container: true },
  type_alias: { kind: 'type' },
  const_spec: { kind: 'constant', name: goSpecName },
  var_spec: { kind: 'variable', name: goSpecName },
  field_declaration: { kind: 'field', name: goSpecName },
  method_spec: { kind: 'method' },
  method_elem: { kind: 'method' },
};

const rust: Record<string, DeclRule> = {
  function_item: { kind: 'function' },
  function_signature_item: { kind: 'function' },
  struct_item: { kind: 'struct', container: true },
  union_item: { kind: 'union', container: true },
  enum_item: { kind: 'enum' },
  trait_item: { kind: 'trait', container: true },
  impl_item: {
    kind: 'impl',
    container: true,
    name: (n) => {
      const t = field(n, 'type');
      return t ? bareTypeName(t.text) : null;
    },
  },
  mod_item: { kind: 'module', container: true },
  const_item: { kind: 'constant' },
  static_item: { kind: 'variable' },
  type_item: { kind: 'type' },
  associated_type: { kind: 'type' },
  macro_definition: { kind: 'macro' },
  field_declaration: { kind: 'field' },
};

const kotlin: Record<string, DeclRule> = {
  class_declaration: { kind: kotlinClassKind, container: true, name: (n) => childOfType(n, ['type_identifier'])?.text ?? null },
  object_declaration: { kind: 'object', container: true, name: (n) => childOfType(n, ['type_identifier'])?.text ?? null },
  companion_object: { kind: 'object', container: true, name: (n) => childOfType(n, ['type_identifier'])?.text ?? 'Companion' },
  function_declaration: { kind: 'function', name: (n) => childOfType(n, ['simple_identifier'])?.text ?? null },
  secondary_constructor: { kind: 'constructor', name: () => 'constructor' },
  property_declaration: { kind: kotlinPropertyKind, name: kotlinPropertyName },
  type_alias: { kind: 'type', name: (n) => childOfType(n, ['type_identifier'])?.text ?? null },
};

const swift: Record<string, DeclRule> = {
  class_declaration: {
    kind: swiftClassKind,
    container: true,
    name: (n) => {
      const t = field(n, 'name');
      return t ? bareTypeName(t.text) : null;
    },
  },
  protocol_declaration: { kind: 'interface', container: true },
  function_declaration: { kind: 'function' },
  protocol_function_declaration: { kind: 'function' },
  init_declaration: { kind: 'constructor', name: () => 'init' },
  deinit_declaration: { kind: 'function', name: () => 'deinit' },
  property_declaration: { kind: (n) => (n.children.some((c) => c?.text === 'let' && !c.isNamed) || childOfType(n, ['value_binding_pattern'])?.text.startsWith('let') ? 'constant' : 'variable'), name: swiftPropertyName },
  protocol_property_declaration: { kind: 'property', name: swiftPropertyName },
  typealias_declaration: { kind: 'type' },
};

const scala: Record<string, DeclRule> = {
  object_definition: { kind: 'object', container: true },
  class_definition: { kind: 'class', container: true },
  trait_definition: { kind: 'trait', container: true },
  enum_definition: { kind: 'enum', container: true },
  function_definition: { kind: 'function' },
  function_declaration: { kind: 'function' },
  val_definition: {
    kind: 'constant',
    name: (n) => {
      const p = field(n, 'pattern');
      return p?.type === 'identifier' ? p.text : null;
    },
  },
  var_definition: {
    kind: 'variable',
    name: (n) => {
      const p = field(n, 'pattern');
      return p?.type === 'identifier' ? p.text : null;
    },
  },
  val_declaration: { kind: 'constant' },
  type_definition: { kind: 'type' },
};

const dart: Record<string, DeclRule> = {
  class_definition: { kind: 'class', container: true },
  enum_declaration: { kind: 'enum' },
  mixin_declaration: { kind: 'trait', container: true, name: (n) => childOfType(n, ['identifier'])?.text ?? null },
  extension_declaration: { kind: 'impl', container: true },
  function_signature: { kind: 'function' },
  method_signature: { kind: dartMemberKind, name: dartMemberName },
  declaration: { kind: dartMemberKind, name: dartMemberName },
};

export const compiledLanguages: LanguageSpec[] = [
  {
    id: 'go',
    label: 'Go',
    grammar: 'go',
    extensions: ['.go'],
    declarations: go,
    transparent: ['type_declaration', 'const_declaration', 'var_declaration', 'struct_type', 'interface_type', 'field_declaration_list'],
    wrappers: ['type_declaration', 'const_declaration', 'var_declaration'],
    note: 'Methods live under their receiver type: `func (g *Greeter) Greet()` is `Greeter-Greet`.',
  },
  {
    id: 'rust',
    label: 'Rust',
    grammar: 'rust',
    extensions: ['.rs'],
    declarations: rust,
    transparent: ['declaration_list', 'field_declaration_list'],
    attachments: ['attribute_item'],
    note: 'An `impl` block is named after its type (`impl Display for Greeter` is `Greeter`), so `Greeter-fmt` finds a method in any impl of Greeter.',
  },
  {
    id: 'kotlin',
    label: 'Kotlin',
    grammar: 'kotlin',
    extensions: ['.kt', '.kts'],
    declarations: kotlin,
    transparent: ['class_body', 'enum_class_body'],
    attachments: ['annotation'],
  },
  {
    id: 'swift',
    label: 'Swift',
    grammar: 'swift',
    extensions: ['.swift'],
    declarations: swift,
    transparent: ['class_body', 'enum_class_body', 'protocol_body'],
    note: 'An `extension Greeter` is addressed as `Greeter` (kind impl).',
  },
  {
    id: 'scala',
    label: 'Scala',
    grammar: 'scala',
    extensions: ['.scala', '.sc'],
    declarations: scala,
    transparent: ['template_body', 'enum_body'],
    attachments: ['annotation'],
  },
  {
    id: 'dart',
    label: 'Dart',
    grammar: 'dart',
    extensions: ['.dart'],
    declarations: dart,
    transparent: ['class_body', 'extension_body'],
    trailing: ['function_body'],
    attachments: ['annotation', 'marker_annotation'],
    note: 'Top-level variables are not addressable (the grammar splits `const` from the declaration).',
  },
];
