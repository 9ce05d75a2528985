/** AST paths and the syntax guard: the public surface of ast/. */
export { prepareAstHooks, grammarsFor, isCodeFile } from './hooks.js';
export { AstService, type SyntaxPolicy } from './service.js';
export { syntaxError, type AstSyntaxIssue } from './syntax.js';
export { resolveAstPath, parseAstPath, nearestPaths } from './resolve.js';
export { applyAstAction, reindent, dedent, type AstAction } from './actions.js';
export type { AstEntry } from './outline.js';
export { LANGUAGES, UNLOADABLE_GRAMMARS, languageForPath } from './languages/index.js';
export type { LanguageSpec, DeclKind } from './spec.js';
export { treeSitterState } from './grammars.js';
