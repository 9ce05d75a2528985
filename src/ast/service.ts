/**
 * The language-aware services the edit engine and the CLI use: outline a
 * file, apply an AST request, find the syntax errors an edit introduced.
 * Synchronous once the grammars are loaded (prepareAstHooks does that), so the
 * pure engine can call it without becoming async.
 *
 * Must never: load a grammar or initialise tree-sitter on its own (the async
 * preparation decides that), or leak trees: every tree it keeps is in a small
 * bounded cache that `dispose()` (or garbage collection) frees.
 */
import type { Tree } from 'web-tree-sitter';
import { EditwardenError, ErrorCode } from '../errors.js';
import type { AstApplication, AstRequest, EngineHooks } from '../edit/types.js';
import { applyAstAction } from './actions.js';
import { isOneShot, parserFor } from './grammars.js';
import { LANGUAGES, languageForPath } from './languages/index.js';
import { buildOutline, type AstEntry } from './outline.js';
import { parseAstPath, resolveAstPath } from './resolve.js';
import type { LanguageSpec } from './spec.js';
import { findNewErrors, parse, type AstSyntaxIssue } from './syntax.js';

export type SyntaxPolicy = NonNullable<EngineHooks['syntaxPolicy']>;

/** Trees kept for incremental re-parsing of the next edit to the same file. */
const CACHE_SIZE = 4;

interface Cached {
  text: string;
  tree: Tree;
}

/** Frees trees of services nobody disposed (wasm memory is not garbage-collected). */
const finalizer = new FinalizationRegistry<Map<string, Cached>>((cache) => {
  for (const entry of cache.values()) entry.tree.delete();
  cache.clear();
});

function supportedList(): string {
  return LANGUAGES.filter((l) => Object.keys(l.declarations).length > 0)
    .map((l) => l.label)
    .join(', ');
}

export class AstService implements Required<Pick<EngineHooks, 'applyAst' | 'newSyntaxErrors' | 'syntaxPolicy'>> {
  private readonly cache = new Map<string, Cached>();

  constructor(
    readonly syntaxPolicy: SyntaxPolicy,
    /** Grammars that failed to load, by grammar id, so AST requests can say why. */
    private readonly failures: ReadonlyMap<string, EditwardenError> = new Map(),
  ) {
    finalizer.register(this, this.cache, this);
  }

  /** The addressable declarations of a file. */
  outline(path: string, text: string): AstEntry[] {
    const spec = this.astLanguage(path);
    return buildOutline(spec, text, this.tree(spec, path, text));
  }

  /** Resolves an AST path; throws E_AST_NOT_FOUND / E_AST_AMBIGUOUS. */
  resolve(path: string, text: string, astPath: string): AstEntry {
    const spec = this.astLanguage(path);
    const tree = this.tree(spec, path, text);
    // Outline only the way to the path; the whole outline is needed only to suggest paths when it is missing.
    const partial = buildOutline(spec, text, tree, parseAstPath(astPath).base);
    try {
      return resolveAstPath(partial, astPath, path);
    } catch (error) {
      if (error instanceof EditwardenError && error.code === ErrorCode.AST_NOT_FOUND) {
        return resolveAstPath(buildOutline(spec, text, tree), astPath, path);
      }
      throw error;
    }
  }

  readonly applyAst = (path: string, text: string, request: AstRequest): AstApplication => {
    const entry = this.resolve(path, text, request.astPath);
    const result = applyAstAction(text, entry, request.astAction, request.content);
    return { text: result.text, line: result.line, notes: result.notes };
  };

  readonly newSyntaxErrors = (path: string, before: string | null, after: string): AstSyntaxIssue[] => {
    if (this.syntaxPolicy === 'off') return [];
    const spec = languageForPath(path);
    const parser = spec ? parserFor(spec.grammar) : undefined;
    if (!spec || !parser) return [];
    const cached = this.cache.get(path);
    const reuse = cached !== undefined && before !== null && cached.text === before;
    if (cached) this.cache.delete(path);
    if (cached && !reuse) cached.tree.delete();
    try {
      const run = findNewErrors(parser, before, after, reuse ? cached.tree : undefined, !isOneShot(spec.grammar));
      this.keep(path, after, run.tree);
      return run.issues;
    } finally {
      if (reuse) cached.tree.delete();
    }
  };

  /** Frees every tree this service holds. */
  dispose(): void {
    for (const entry of this.cache.values()) entry.tree.delete();
    this.cache.clear();
    finalizer.unregister(this);
  }

  private astLanguage(path: string): LanguageSpec {
    const spec = languageForPath(path);
    if (!spec || Object.keys(spec.declarations).length === 0) {
      const ext = path.includes('.') ? path.slice(path.lastIndexOf('.')) : path;
      throw new EditwardenError({
        code: ErrorCode.PARSE,
        message: `AST paths are not available for ${path}: no tree-sitter grammar with addressable declarations for "${ext}" files.`,
        hint: `Use old_text/new_text for this file. AST paths work in: ${supportedList()}.`,
        path,
      });
    }
    return spec;
  }

  private tree(spec: LanguageSpec, path: string, text: string): Tree {
    const cached = this.cache.get(path);
    if (cached && cached.text === text) return cached.tree;
    const parser = parserFor(spec.grammar);
    if (!parser) {
      throw (
        this.failures.get(spec.grammar) ??
        new EditwardenError({
          code: ErrorCode.PARSE,
          message: `The ${spec.label} grammar is not loaded for ${path}.`,
          hint: 'Internal: prepare the AST hooks with this path before applying AST requests (prepareAstHooks).',
          path,
        })
      );
    }
    const tree = parse(parser, text);
    this.keep(path, text, tree);
    return tree;
  }

  private keep(path: string, text: string, tree: Tree): void {
    const old = this.cache.get(path);
    if (old && old.tree !== tree) old.tree.delete();
    this.cache.delete(path);
    this.cache.set(path, { text, tree });
    while (this.cache.size > CACHE_SIZE) {
      const [oldestPath, oldest] = this.cache.entries().next().value as [string, Cached];
      oldest.tree.delete();
      this.cache.delete(oldestPath);
    }
  }
}
