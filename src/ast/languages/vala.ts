/**
 * Vala: the language the active edit format was first written for (its
 * examples address `OLLMchat-Client-chat` in `libollmchat/Client.vala`).
 * The grammar is vala-lang/tree-sitter-vala, built here into a wasm file
 * and shipped in `grammars/vala/` (no Vala grammar is on the npm registry;
 * grammars/vala/README.md says how it was built and under which licence).
 *
 * That grammar has no field names, so every name is read from the node's
 * shape: a type's name is its `unqualified_type` (`class Client<T>` →
 * `Client`), a method's the `symbol` after its return type, a field's the
 * `identifier` after its type. A dotted name (`namespace OLLMchat.Net`,
 * `class OLLMchat.Client`) is the nesting Vala means by it, so it becomes
 * several path segments (`OLLMchat-Net-…`), and a named creation method
 * (`Client.with_url`) is addressed by the part after the class name.
 */
import type { Node } from 'web-tree-sitter';
import type { DeclRule, LanguageSpec } from '../spec.js';
import { childOfType, splitQualified } from '../spec.js';

/** The segments of the first direct child of `type` (`A.B` → ['A', 'B']). */
function dotted(node: Node | null): string[] | null {
  if (!node) return null;
  const parts = splitQualified(node.text, '.');
  return parts.length === 0 ? null : parts;
}

/** `namespace OLLMchat.Net`, `enum Color`, `errordomain E`: the first `symbol`. */
const symbolName = (n: Node): string[] | null => dotted(childOfType(n, ['symbol']));

/** `class Client<T> : Object`: the symbol of the unqualified type, generic arguments left out. */
const typeName = (n: Node): string[] | null => dotted(childOfType(childOfType(n, ['unqualified_type']) ?? n, ['symbol']));

/** Methods, properties, signals, delegates: the `symbol` after the return type (a direct child, never the type's own). */
const memberName = (n: Node): string | null => {
  const parts = dotted(childOfType(n, ['symbol']));
  return parts ? (parts[parts.length - 1] ?? null) : null;
};

/** Fields and constants: the `identifier` after the type. */
const identifierName = (n: Node): string | null => childOfType(n, ['identifier'])?.text ?? null;

/** `public Client (…)` is `Client`; `public Client.with_url (…)` is `with_url` (how `new Client.with_url ()` names it). */
const creationName = (n: Node): string | null => {
  const parts = dotted(childOfType(n, ['symbol']));
  return parts ? (parts[parts.length - 1] ?? null) : null;
};

const valaDeclarations: Record<string, DeclRule> = {
  namespace_declaration: { kind: 'namespace', container: true, name: symbolName },
  class_declaration: { kind: 'class', container: true, name: typeName },
  interface_declaration: { kind: 'interface', container: true, name: typeName },
  struct_declaration: { kind: 'struct', container: true, name: typeName },
  enum_declaration: { kind: 'enum', container: true, name: symbolName },
  errordomain_declaration: { kind: 'enum', container: true, name: symbolName },
  enum_value: { kind: 'constant', name: identifierName },
  errorcode: { kind: 'constant', name: identifierName },
  method_declaration: { kind: 'function', name: memberName },
  creation_method_declaration: { kind: 'constructor', name: creationName },
  // `construct { … }` has no name of its own; it is the class's construct block.
  constructor_declaration: { kind: 'constructor', name: () => 'construct' },
  destructor_declaration: { kind: 'method', name: (n) => `~${identifierName(n) ?? ''}` },
  property_declaration: { kind: 'property', name: memberName },
  signal_declaration: { kind: 'method', name: memberName },
  delegate_declaration: { kind: 'type', name: memberName },
  field_declaration: { kind: 'field', name: identifierName },
  constant_declaration: { kind: 'constant', name: identifierName },
};

export const valaLanguages: LanguageSpec[] = [
  {
    id: 'vala',
    label: 'Vala',
    grammar: 'vala',
    extensions: ['.vala', '.vapi'],
    declarations: valaDeclarations,
    // Each member sits in a `*_member` node with its attributes (`[CCode (…)]`): the member is that whole node.
    transparent: ['namespace_member', 'class_member', 'interface_member', 'struct_member'],
    wrappers: ['namespace_member', 'class_member', 'interface_member', 'struct_member'],
    attachments: ['attribute'],
    note: 'A dotted name is the nesting it stands for: `namespace OLLMchat.Net` gives `OLLMchat-Net-…`; a named creation method `Client.with_url` is `…-Client-with_url`, the default one `…-Client-Client`, the `construct { }` block `…-construct`. The grammar (vala-lang/tree-sitter-vala, LGPL-2.1) is built into `grammars/vala/` of this package.',
  },
];
