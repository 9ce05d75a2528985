import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, UNLOADABLE_GRAMMARS } from '../../src/ast/languages/index.js';

// The language table moved from the README to the editing reference.
const DOC = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'editing.md'), 'utf8');

describe('the language table in docs/editing.md', () => {
  it('has a row for every language in the table, with its grammar', () => {
    for (const spec of LANGUAGES) expect(DOC).toContain(`| ${spec.label} | `);
    for (const spec of LANGUAGES) expect(DOC).toContain(`\`${spec.grammar}\``);
  });

  it('says which shipped grammars do not load', () => {
    expect(UNLOADABLE_GRAMMARS).toEqual(['yaml', 'elm', 'ql']);
    expect(DOC).toMatch(/YAML, Elm, CodeQL/);
  });

  it('says where the Vala grammar comes from and under which licence', () => {
    expect(DOC).toMatch(/\| Vala \|.*vala-lang\/tree-sitter-vala, LGPL-2\.1.*`grammars\/vala\/`/);
  });
});
