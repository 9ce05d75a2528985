/**
 * Data and markup formats with addressable keys (JSON, TOML, CSS), and the
 * languages the pack ships that get the syntax guard only.
 */
import type { Node } from 'web-tree-sitter';
import type { DeclRule, LanguageSpec } from '../spec.js';
import { field } from '../spec.js';
import { defined } from '../../defined.js';

function unquote(text: string): string {
  if (text.length >= 2 && (text.startsWith('"') || text.startsWith("'")) && text.endsWith(text[0] ?? '')) {
    return text.slice(1, -1);
  }
  return text;
}

function tomlKeyParts(key: Node): string[] {
  if (key.type === 'dotted_key') return key.namedChildren.flatMap((k) => (k ? tomlKeyParts(k) : []));
  return [unquote(key.text)];
}

const KEY_TYPES = ['bare_key', 'quoted_key', 'dotted_key'];

function tomlName(node: Node): string[] | null {
  const key = node.namedChildren.find((c) => c !== null && KEY_TYPES.includes(c.type));
  return key ? tomlKeyParts(key) : null;
}

const json: Record<string, DeclRule> = {
  pair: {
    kind: 'key',
    container: true,
    name: (n) => {
      const key = field(n, 'key');
      if (!key) return null;
      try {
        return String(JSON.parse(key.text));
      } catch {
        return unquote(key.text);
      }
    },
  },
};

const toml: Record<string, DeclRule> = {
  table: { kind: 'key', container: true, name: tomlName },
  table_array_element: { kind: 'key', container: true, name: tomlName },
  pair: { kind: 'key', name: tomlName },
};

const css: Record<string, DeclRule> = {
  rule_set: { kind: 'rule', name: (n) => n.namedChildren.find((c) => c?.type === 'selectors')?.text.replace(/\s+/g, ' ') ?? null },
  keyframes_statement: { kind: 'rule', name: (n) => n.namedChildren.find((c) => c?.type === 'keyframes_name')?.text ?? null },
};

const guardOnly = (id: string, label: string, extensions: string[], note?: string): LanguageSpec => ({
  id,
  label,
  grammar: id,
  extensions,
  declarations: {},
  transparent: [],
  ...defined({ note: note || undefined }),
});

export const dataLanguages: LanguageSpec[] = [
  {
    id: 'json',
    label: 'JSON',
    grammar: 'json',
    extensions: ['.json'],
    declarations: json,
    transparent: ['document', 'object'],
    commaLists: ['object'],
    note: 'Keys nest: `scripts-build` is `{"scripts": {"build": …}}`. Arrays are not addressable. JSON with comments is guarded on new errors only.',
  },
  {
    id: 'toml',
    label: 'TOML',
    grammar: 'toml',
    extensions: ['.toml'],
    declarations: toml,
    transparent: [],
    note: '`[server.tls]` is `server-tls`; each `[[items]]` is `items#N`.',
  },
  {
    id: 'css',
    label: 'CSS',
    grammar: 'css',
    extensions: ['.css'],
    declarations: css,
    transparent: ['media_statement', 'supports_statement', 'block'],
    note: 'A rule is named by its selector list as written (`.btn, .x > a`).',
  },
  guardOnly('html', 'HTML', ['.html', '.htm']),
  guardOnly('vue', 'Vue', ['.vue']),
  guardOnly('embedded_template', 'ERB / EJS', ['.erb', '.ejs']),
  guardOnly('objc', 'Objective-C', ['.m', '.mm']),
  guardOnly('ocaml', 'OCaml', ['.ml']),
  guardOnly('rescript', 'ReScript', ['.res', '.resi']),
  guardOnly('solidity', 'Solidity', ['.sol']),
  guardOnly('systemrdl', 'SystemRDL', ['.rdl']),
  guardOnly('tlaplus', 'TLA+', ['.tla']),
  guardOnly('zig', 'Zig', ['.zig']),
  guardOnly('elisp', 'Emacs Lisp', ['.el']),
];
