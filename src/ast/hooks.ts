/**
 * The bridge between the edit engine and tree-sitter: load the grammars the
 * given files need (async, once per process), then hand the engine
 * synchronous hooks.
 *
 * Must never: initialise tree-sitter when none of the files is in a language
 * with a grammar — editing a README stays as fast as it was.
 */
import type { EditwardenError } from '../errors.js';
import { isEditwardenError } from '../errors.js';
import { ensureParsers } from './grammars.js';
import { languageForPath } from './languages/index.js';
import { AstService, type SyntaxPolicy } from './service.js';

/** Grammars the given files need (unique), without loading anything. */
export function grammarsFor(paths: readonly string[]): string[] {
  const grammars = new Set<string>();
  for (const p of paths) {
    const spec = languageForPath(p);
    if (spec) grammars.add(spec.grammar);
  }
  return [...grammars];
}

/** True when the file is in a language the syntax guard / AST paths know. */
export function isCodeFile(path: string): boolean {
  return languageForPath(path) !== undefined;
}

/**
 * Loads what `paths` need and returns the engine hooks (an AstService: call
 * `dispose()` when done to free parse trees at once). A grammar that fails to
 * load makes AST requests on its files fail with E_PARSE and skips the guard
 * for them; it never fails the preparation.
 */
export async function prepareAstHooks(paths: readonly string[], policy: SyntaxPolicy = 'refuse'): Promise<AstService> {
  const failures = new Map<string, EditwardenError>();
  await Promise.all(
    grammarsFor(paths).map((grammar) =>
      ensureParsers(grammar).catch((error: unknown) => {
        if (isEditwardenError(error)) failures.set(grammar, error);
        else throw error;
      }),
    ),
  );
  return new AstService(policy, failures);
}
