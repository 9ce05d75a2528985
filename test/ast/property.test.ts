import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';
import { resolveAstPath } from '../../src/ast/resolve.js';
import { EditwardenError } from '../../src/errors.js';
import { fixture } from './helpers.js';

const SAMPLES = ['sample.ts', 'sample.py', 'sample.go', 'sample.rs', 'Sample.java', 'sample.cpp', 'sample.cs', 'sample.json', 'sample.toml'];

let service: AstService;
beforeAll(async () => {
  service = await prepareAstHooks(SAMPLES, 'refuse');
});

describe('every listed path resolves to its own node', () => {
  it.each(SAMPLES)('%s', (file) => {
    const text = fixture(file);
    const entries = service.outline(file, text);
    expect(entries.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(fc.constantFrom(...entries), (listed) => {
        const resolved = resolveAstPath(entries, listed.address, file);
        expect(resolved).toBe(listed);
        // The service outlines only the way to the path: it must find the same node.
        const partial = service.resolve(file, text, listed.address);
        expect([partial.address, partial.kind, partial.start, partial.nodeStart, partial.end]).toEqual([listed.address, listed.kind, listed.start, listed.nodeStart, listed.end]);
        const nodeText = text.slice(resolved.nodeStart, resolved.end);
        expect(nodeText.length).toBeGreaterThan(0);
        // The range holds the declaration's name and lies on the lines the outline reports.
        expect(nodeText).toContain(
          resolved.name
            .replace(/^["']|["']$/g, '')
            .split('.')
            .pop() ?? '',
        );
        expect(text.slice(0, resolved.start).split('\n').length).toBe(resolved.startLine);
        expect(text.slice(0, resolved.end).split('\n').length).toBe(resolved.endLine);
      }),
      { numRuns: 60 },
    );
  });
});

describe('arbitrary AST path strings', () => {
  const text = fixture('sample.ts');
  let entries: ReturnType<AstService['outline']>;
  beforeAll(() => {
    entries = service.outline('sample.ts', text);
  });

  /** Path-like strings: real names, separators, ordinals and junk. */
  const pathish = fc.array(fc.oneof(fc.constantFrom('Greeter', 'greet', 'twice', 'Geo', 'dist', '-', '#', '#2', '#0', '#99', ' ', '--', 'é', '\n', '#1-'), fc.string({ maxLength: 4 })), { maxLength: 8 }).map((parts) => parts.join(''));

  it('never throw anything but EditwardenError (E_AST_NOT_FOUND / E_AST_AMBIGUOUS)', () => {
    fc.assert(
      fc.property(fc.oneof(pathish, fc.string(), fc.string({ unit: 'grapheme' })), (query) => {
        try {
          const entry = resolveAstPath(entries, query, 'sample.ts');
          expect(entries).toContain(entry);
        } catch (error) {
          expect(error).toBeInstanceOf(EditwardenError);
          expect(['E_AST_NOT_FOUND', 'E_AST_AMBIGUOUS']).toContain((error as EditwardenError).code);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('through the engine hook too: any path and any action either applies or is an EditwardenError', () => {
    fc.assert(
      fc.property(pathish, fc.constantFrom('replace', 'remove', 'append', 'prepend' as const), fc.string({ maxLength: 40 }), (astPath, astAction, content) => {
        try {
          const out = service.applyAst('sample.ts', text, { action: 'ast', path: 'sample.ts', astPath, astAction, content });
          expect(typeof out.text).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(EditwardenError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
