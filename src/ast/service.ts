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
import { newUnexpectedIndents } from './python-indent.js';
import { findNewErrors, parse, type AstSyntaxIssue, type ParseText } from './syntax.js';
import { TreeCache } from './tree-cache.js';

export type SyntaxPolicy = NonNullable<EngineHooks['syntaxPolicy']>;

/** The last question the guard answered: the engine plans and then writes, asking the same twice. */
interface Verdict {
  path: string;
  before: string | null;
  after: string;
  issues: AstSyntaxIssue[];
}

/** Frees trees of services nobody disposed (wasm memory is not garbage-collected). */
const finalizer = new FinalizationRegistry<TreeCache>((cache) => cache.clear());

function supportedList(): string {
  return LANGUAGES.filter((l) => Object.keys(l.declarations).length > 0)
    .map((l) => l.label)
    .join(', ');
}

export class AstService implements Required<Pick<EngineHooks, 'applyAst' | 'newSyntaxErrors' | 'syntaxPolicy'>> {
  private readonly cache = new TreeCache();
  private verdict: Verdict | null = null;

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
    const last = this.verdict;
    // Identical texts compare in microseconds (same string, or a memcmp), against a parse of the file.
    if (last && last.path === path && last.after === after && last.before === before) return last.issues;
    const spec = languageForPath(path);
    let parser = spec ? parserFor(spec.grammar) : undefined;
    if (!spec || !parser) return [];
    const oneShot = isOneShot(spec.grammar);
    const parseText: ParseText = (text, old) => {
      // A one-shot grammar needs a fresh parser for every parse, and its trees cannot seed another.
      const p = parser ?? parserFor(spec.grammar);
      parser = oneShot ? undefined : p;
      return p ? parse(p, text, oneShot ? undefined : old) : null;
    };
    const oldTree = before === null ? undefined : this.cache.get(path, before);
    const run = findNewErrors(parseText, before, after, oldTree);
    if (!run) return [];
    if (spec.grammar === 'python') run.issues = [...run.issues, ...newUnexpectedIndents(run.tree, before, after, parseText)];
    if (run.oldTree && before !== null) this.cache.keep(path, before, run.oldTree);
    this.cache.keep(path, after, run.tree);
    this.verdict = { path, before, after, issues: run.issues };
    return run.issues;
  };

  /** Frees every tree this service holds. */
  dispose(): void {
    this.cache.clear();
    this.verdict = null;
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
    const cached = this.cache.get(path, text);
    if (cached) return cached;
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
    this.cache.keep(path, text, tree);
    return tree;
  }
}
