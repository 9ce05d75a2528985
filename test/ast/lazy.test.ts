/**
 * Its own test file on purpose: vitest gives each file fresh modules, so the
 * process-wide grammar cache starts empty here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { grammarsFor, isCodeFile, prepareAstHooks } from '../../src/ast/hooks.js';
import { treeSitterState } from '../../src/ast/grammars.js';
import { catchError } from './helpers.js';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'ast');

describe('tree-sitter is initialised only for code files', () => {
  it('preparing hooks for text files initialises nothing, and the hooks still answer', async () => {
    const hooks = await prepareAstHooks(['README.md', 'notes.txt', 'config.yaml', 'x.nim'], 'refuse');
    expect(hooks.newSyntaxErrors('notes.txt', 'a', 'b {')).toEqual([]);
    expect(treeSitterState()).toEqual({ initialised: false, grammars: [] });
    const error = catchError(() => hooks.applyAst('x.nim', 'proc a() = discard', { action: 'ast', path: 'x.nim', astPath: 'A', astAction: 'remove', content: '' }));
    expect(error.code).toBe('E_PARSE');
    expect(error.message).toContain('.nim');
    expect(treeSitterState().initialised).toBe(false);
  });

  it('a code file loads exactly its grammar, once', async () => {
    await prepareAstHooks(['a.py', 'b.py'], 'refuse');
    await prepareAstHooks(['c.py'], 'refuse');
    expect(treeSitterState()).toEqual({ initialised: true, grammars: ['python'] });
  });

  it('knows code files by extension without loading anything', () => {
    expect(isCodeFile('src/a.TS')).toBe(true);
    expect(isCodeFile('notes.txt')).toBe(false);
    expect(isCodeFile('a.yaml')).toBe(false); // the pack's YAML grammar does not load with web-tree-sitter 0.25.10
    expect(grammarsFor(['a.ts', 'b.ts', 'c.tsx', 'd.h', 'e.txt'])).toEqual(['typescript', 'tsx', 'c']);
  });

  it('no ast/ module imports web-tree-sitter at load time (only types, and one lazy require)', () => {
    const files = fs
      .readdirSync(SRC, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      const source = fs.readFileSync(path.join(SRC, file), 'utf8');
      for (const line of source.split('\n')) {
        if (/from 'web-tree-sitter'/.test(line)) expect(line, file).toMatch(/^import type /);
      }
    }
  });
});
