/** Python, Ruby, PHP, Lua, Bash, Elixir. */
import type { Node } from 'web-tree-sitter';
import type { DeclKind, DeclRule, LanguageSpec } from '../spec.js';
import { childOfType, field } from '../spec.js';

const UPPER = /^[A-Z][A-Z0-9_]*$/;

function pythonAssignmentName(node: Node): string | null {
  const left = field(node, 'left');
  return left?.type === 'identifier' ? left.text : null;
}

function pythonAssignmentKind(node: Node): DeclKind {
  return UPPER.test(field(node, 'left')?.text ?? '') ? 'constant' : 'variable';
}

/** Lua `function M.greet()` / `function M:greet()` live under `M`. */
function luaFunctionName(node: Node): string[] | null {
  const name = field(node, 'name');
  if (!name) return null;
  if (name.type === 'identifier') return [name.text];
  const table = field(name, 'table');
  const member = field(name, 'field') ?? field(name, 'method') ?? field(name, 'name');
  if (table && member) return [...table.text.split(/[.:]/), member.text];
  return name.text.split(/[.:]/);
}

function luaLocalName(node: Node): string | null {
  const list = childOfType(node, ['variable_list']);
  const vars = list?.namedChildren.filter((c) => c?.type === 'variable') ?? [];
  if (vars.length !== 1 || !vars[0]) return null;
  return field(vars[0], 'name')?.text ?? vars[0].text;
}

function phpName(node: Node): string | null {
  const name = field(node, 'name') ?? childOfType(node, ['name', 'variable_name']);
  return name ? name.text.replace(/^\$/, '') : null;
}

const ELIXIR_MODULES = new Set(['defmodule', 'defprotocol', 'defimpl']);
const ELIXIR_FUNCTIONS = new Set(['def', 'defp', 'defmacro', 'defmacrop', 'defguard', 'defguardp', 'defdelegate']);

function elixirKeyword(node: Node): string {
  return field(node, 'target')?.text ?? '';
}

function elixirName(node: Node): string | null {
  const keyword = elixirKeyword(node);
  if (!ELIXIR_MODULES.has(keyword) && !ELIXIR_FUNCTIONS.has(keyword)) return null;
  const args = childOfType(node, ['arguments']);
  let head = args?.namedChild(0) ?? null;
  // `def name(args) when guard` → binary_operator(call, guard)
  if (head?.type === 'binary_operator') head = field(head, 'left');
  if (!head) return null;
  if (head.type === 'call') return field(head, 'target')?.text ?? null;
  return head.text;
}

const python: Record<string, DeclRule> = {
  function_definition: { kind: 'function' },
  class_definition: { kind: 'class', container: true },
  assignment: { kind: pythonAssignmentKind, name: pythonAssignmentName },
};

const ruby: Record<string, DeclRule> = {
  module: { kind: 'module', container: true },
  class: { kind: 'class', container: true },
  singleton_class: { kind: 'class', container: true, name: () => 'self' },
  method: { kind: 'function' },
  singleton_method: { kind: 'function' },
  assignment: {
    kind: 'constant',
    name: (n) => {
      const l = field(n, 'left');
      return l?.type === 'constant' ? l.text : null;
    },
  },
};

const php: Record<string, DeclRule> = {
  namespace_definition: { kind: 'namespace', container: (n) => field(n, 'body') !== null, name: (n) => (field(n, 'body') ? (field(n, 'name')?.text ?? null) : null) },
  class_declaration: { kind: 'class', container: true },
  interface_declaration: { kind: 'interface', container: true },
  trait_declaration: { kind: 'trait', container: true },
  enum_declaration: { kind: 'enum', container: true },
  function_definition: { kind: 'function' },
  method_declaration: { kind: 'function' },
  const_element: { kind: 'constant', name: phpName },
  property_element: { kind: 'property', name: phpName },
};

const lua: Record<string, DeclRule> = {
  function_definition_statement: { kind: 'function', name: luaFunctionName },
  local_function_definition_statement: { kind: 'function' },
  local_variable_declaration: { kind: (n) => (UPPER.test(luaLocalName(n) ?? '') ? 'constant' : 'variable'), name: luaLocalName },
};

const bash: Record<string, DeclRule> = {
  function_definition: { kind: 'function' },
  variable_assignment: { kind: (n) => (UPPER.test(field(n, 'name')?.text ?? '') ? 'constant' : 'variable') },
};

const elixir: Record<string, DeclRule> = {
  call: {
    kind: (n) => (ELIXIR_MODULES.has(elixirKeyword(n)) ? 'module' : 'function'),
    container: (n) => ELIXIR_MODULES.has(elixirKeyword(n)),
    name: elixirName,
  },
};

export const scriptingLanguages: LanguageSpec[] = [
  {
    id: 'python',
    label: 'Python',
    grammar: 'python',
    extensions: ['.py', '.pyi', '.pyw'],
    declarations: python,
    transparent: ['block', 'decorated_definition', 'expression_statement'],
    wrappers: ['decorated_definition', 'expression_statement'],
  },
  {
    id: 'ruby',
    label: 'Ruby',
    grammar: 'ruby',
    extensions: ['.rb', '.rake', '.gemspec', '.ru'],
    declarations: ruby,
    transparent: ['body_statement'],
  },
  {
    id: 'php',
    label: 'PHP',
    grammar: 'php',
    extensions: ['.php', '.phtml'],
    declarations: php,
    transparent: ['compound_statement', 'declaration_list', 'enum_declaration_list', 'const_declaration', 'property_declaration'],
    wrappers: ['const_declaration', 'property_declaration'],
    attachments: ['attribute_list'],
    note: 'A braceless `namespace X;` is not part of the path; a braced `namespace X { … }` is.',
  },
  {
    id: 'lua',
    label: 'Lua',
    grammar: 'lua',
    extensions: ['.lua'],
    declarations: lua,
    transparent: [],
    note: '`function M.greet()` and `function M:greet()` are `M-greet`.',
  },
  {
    id: 'bash',
    label: 'Bash',
    grammar: 'bash',
    extensions: ['.sh', '.bash'],
    declarations: bash,
    transparent: [],
  },
  {
    id: 'elixir',
    label: 'Elixir',
    grammar: 'elixir',
    extensions: ['.ex', '.exs'],
    declarations: elixir,
    transparent: ['do_block'],
    isAttachment: (n) => n.type === 'unary_operator' && /^@(doc|spec|impl|deprecated|decorate)\b/.test(n.text),
    note: '`defmodule` is a module, `def`/`defp`/`defmacro` functions; `@doc` attributes above a function go with it.',
  },
];
