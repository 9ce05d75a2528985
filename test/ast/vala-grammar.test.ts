/**
 * The Vala grammar editwarden ships itself (grammars/vala/): it is the file
 * the README describes (checksum), it goes out with its licence and source,
 * it loads, and every Vala path it produces is the nesting of the names —
 * the shape the Active Edit Tool design's `OLLMchat-Client-chat` takes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { grammarFile } from '../../src/ast/grammars.js';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = path.join(REPO, 'grammars', 'vala');

let service: AstService;
beforeAll(async () => {
  service = await prepareAstHooks(['x.vala'], 'refuse');
});

describe('the shipped Vala grammar', () => {
  it('is loaded from grammars/vala/ of the package, and is the build the README names', () => {
    expect(grammarFile('vala')).toBe(path.join(DIR, 'tree-sitter-vala.wasm'));
    const sha = createHash('sha256')
      .update(fs.readFileSync(grammarFile('vala')))
      .digest('hex');
    expect(fs.readFileSync(path.join(DIR, 'README.md'), 'utf8')).toContain(`sha256 \`${sha}\``);
  });

  it('goes out with its licence (LGPL 2.1) and its source, in the published files', () => {
    expect(fs.readFileSync(path.join(DIR, 'COPYING'), 'utf8')).toContain('GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 2.1');
    expect(fs.readFileSync(path.join(DIR, 'grammar.js'), 'utf8')).toContain("name: 'vala'");
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('grammars');
  });

  it('guards Vala edits: a change that breaks the syntax is seen, a valid one is not', () => {
    const before = 'namespace A {\n\tpublic class B : Object {\n\t\tpublic void c () {\n\t\t}\n\t}\n}\n';
    expect(service.newSyntaxErrors('x.vala', before, before.replace('public void c () {', 'public void c ( {'))).not.toEqual([]);
    expect(service.newSyntaxErrors('x.vala', before, before.replace('public void c () {', 'public int c () {\n\t\t\treturn 1;'))).toEqual([]);
  });
});

describe('Vala paths are the nesting of the names', () => {
  const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,8}$/).filter((n) => !RESERVED.has(n));
  it('property: namespace N (dotted or nested) › class C › method m, field f, property p is N-…-C-m / -f / -p', () => {
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 3 }), fc.boolean(), name, fc.uniqueArray(name, { minLength: 3, maxLength: 3 }), (ns, dotted, cls, [m, f, p]) => {
        const members = `\t\tpublic void ${m} () {\n\t\t}\n\t\tprivate int ${f};\n\t\tpublic string ${p} { get; set; }\n`;
        const body = `\tpublic class ${cls} : Object {\n${members}\t}\n`;
        const text = dotted ? `namespace ${ns.join('.')} {\n${body}}\n` : `${ns.map((n) => `namespace ${n} {\n`).join('')}${body}${ns.map(() => '}\n').join('')}`;
        const prefix = [...ns, cls].join('-');
        const paths = service.outline('x.vala', text).map((e) => e.address);
        expect(paths).toEqual(expect.arrayContaining([prefix, `${prefix}-${m}`, `${prefix}-${f}`, `${prefix}-${p}`]));
        expect(service.resolve('x.vala', text, `${prefix}-${m}`).kind).toBe(m === cls ? 'constructor' : 'method');
      }),
      { numRuns: 60 },
    );
  });
});

/** Vala keywords and names the outline treats specially (constructor names), kept out of generated names. */
const RESERVED = new Set(
  'abstract as async base break case catch class const construct continue default delegate delete do dynamic else ensures enum errordomain extern false finally for foreach get if in inline interface internal is lock namespace new null out override owned params private protected public ref requires return set signal sizeof static struct switch this throw throws true try typeof unowned using value var virtual void weak while yield get set default int string bool double char uint long ulong float init constructor initialize'.split(
    ' ',
  ),
);
