/** C, C++, C#, Java: declarator chains, qualified out-of-class definitions, attributes. */
import type { Node } from 'web-tree-sitter';
import type { DeclKind, DeclRule, LanguageSpec } from '../spec.js';
import { childOfType, declaratorName, field, splitQualified } from '../spec.js';

function hasFunctionDeclarator(node: Node): boolean {
  let current: Node | null = field(node, 'declarator');
  for (let depth = 0; current && depth < 12; depth++) {
    if (current.type === 'function_declarator') return true;
    current = field(current, 'declarator');
  }
  return false;
}

/** `int a;`, `int f(void);`, `static const int X = 1;` — one declarator only (several declare several names). */
function cDeclarationName(node: Node): string[] | null {
  const declarators = node.childrenForFieldName('declarator');
  if (declarators.length !== 1 || !declarators[0]) return null;
  const name = declaratorName(declarators[0]);
  return name === null ? null : splitQualified(name, '::');
}

function cDeclarationKind(node: Node): DeclKind {
  if (hasFunctionDeclarator(node)) return 'function';
  const isConst = node.namedChildren.some((c) => c?.type === 'type_qualifier' && c.text === 'const');
  return isConst ? 'constant' : node.type === 'field_declaration' ? 'field' : 'variable';
}

function functionDefinitionName(node: Node): string[] | null {
  const declarator = field(node, 'declarator');
  const name = declarator ? declaratorName(declarator) : null;
  return name === null ? null : splitQualified(name, '::');
}

/** A struct/union/enum without a name (inside a typedef) is searched through, not addressed. */
const tagged = (kind: DeclKind, container: boolean): DeclRule => ({
  kind,
  container,
  name: (n) => field(n, 'name')?.text ?? null,
});

const cDeclarations: Record<string, DeclRule> = {
  function_definition: { kind: 'function', name: functionDefinitionName },
  declaration: { kind: cDeclarationKind, name: cDeclarationName },
  field_declaration: { kind: cDeclarationKind, name: cDeclarationName },
  struct_specifier: tagged('struct', true),
  union_specifier: tagged('union', true),
  enum_specifier: tagged('enum', false),
  type_definition: {
    kind: 'type',
    container: true,
    name: (n) => {
      const d = field(n, 'declarator');
      return d ? declaratorName(d) : null;
    },
  },
  preproc_def: { kind: 'macro' },
  preproc_function_def: { kind: 'macro' },
};

const cTransparent = ['preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'declaration_list', 'field_declaration_list'];

const cppDeclarations: Record<string, DeclRule> = {
  ...cDeclarations,
  namespace_definition: { kind: 'namespace', container: true, name: (n) => field(n, 'name')?.text ?? null },
  class_specifier: tagged('class', true),
  alias_declaration: { kind: 'type' },
  concept_definition: { kind: 'type' },
};

const csDeclarations: Record<string, DeclRule> = {
  namespace_declaration: { kind: 'namespace', container: true },
  file_scoped_namespace_declaration: { kind: 'namespace', container: true },
  class_declaration: { kind: 'class', container: true },
  struct_declaration: { kind: 'struct', container: true },
  interface_declaration: { kind: 'interface', container: true },
  record_declaration: { kind: 'record', container: true },
  record_struct_declaration: { kind: 'record', container: true },
  enum_declaration: { kind: 'enum' },
  delegate_declaration: { kind: 'type' },
  method_declaration: { kind: 'function' },
  constructor_declaration: { kind: 'constructor' },
  destructor_declaration: { kind: 'function', name: (n) => `~${field(n, 'name')?.text ?? ''}` },
  property_declaration: { kind: 'property' },
  event_declaration: { kind: 'property' },
  variable_declarator: { kind: 'field', name: (n) => (field(n, 'name') ?? childOfType(n, ['identifier']))?.text ?? null },
};

const javaDeclarations: Record<string, DeclRule> = {
  class_declaration: { kind: 'class', container: true },
  interface_declaration: { kind: 'interface', container: true },
  annotation_type_declaration: { kind: 'interface', container: true },
  enum_declaration: { kind: 'enum', container: true },
  record_declaration: { kind: 'record', container: true },
  method_declaration: { kind: 'function' },
  constructor_declaration: { kind: 'constructor' },
  compact_constructor_declaration: { kind: 'constructor' },
  annotation_type_element_declaration: { kind: 'function' },
  variable_declarator: { kind: 'field' },
};

export const cFamilyLanguages: LanguageSpec[] = [
  {
    id: 'c',
    label: 'C',
    grammar: 'c',
    extensions: ['.c', '.h'],
    declarations: cDeclarations,
    transparent: cTransparent,
  },
  {
    id: 'cpp',
    label: 'C++',
    grammar: 'cpp',
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.ipp', '.tpp'],
    declarations: cppDeclarations,
    transparent: [...cTransparent, 'template_declaration'],
    wrappers: ['template_declaration'],
    note: 'Out-of-class definitions (`int A::f()`) are addressed as `A-f`, next to the declaration inside the class.',
  },
  {
    id: 'c_sharp',
    label: 'C#',
    grammar: 'c_sharp',
    extensions: ['.cs'],
    declarations: csDeclarations,
    transparent: ['declaration_list', 'field_declaration', 'event_field_declaration', 'variable_declaration'],
    wrappers: ['field_declaration', 'event_field_declaration', 'variable_declaration'],
    note: 'A dotted namespace (`namespace Demo.App`) is one path segment: `Demo.App-Greeter`.',
  },
  {
    id: 'java',
    label: 'Java',
    grammar: 'java',
    extensions: ['.java'],
    declarations: javaDeclarations,
    transparent: ['class_body', 'interface_body', 'enum_body', 'enum_body_declarations', 'annotation_type_body', 'field_declaration', 'constant_declaration'],
    wrappers: ['field_declaration', 'constant_declaration'],
  },
];
