/**
 * The process-wide grammar cache must start empty here: the modules are
 * imported afresh (vi.resetModules), since a worker runs file after file in
 * one process (vitest.config.ts, isolate: false) and another file may have
 * loaded grammars already.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';

let grammarsFor: typeof import('../../src/ast/hooks.js').grammarsFor;
let isCodeFile: typeof import('../../src/ast/hooks.js').isCodeFile;
let prepareAstHooks: typeof import('../../src/ast/hooks.js').prepareAstHooks;
let treeSitterState: typeof import('../../src/ast/grammars.js').treeSitterState;
// From the fresh modules too: it knows an error by the fresh errors module's class.
let catchError: typeof import('./helpers.js').catchError;

beforeAll(async () => {
  vi.resetModules();
  ({ grammarsFor, isCodeFile, prepareAstHooks } = await import('../../src/ast/hooks.js'));
  ({ treeSitterState } = await import('../../src/ast/grammars.js'));
  ({ catchError } = await import('./helpers.js'));
});

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
