/**
 * Loads tree-sitter (the wasm binding) and the prebuilt grammars of the
 * `tree-sitter-wasms` package, lazily and once per process.
 *
 * Must never: download anything (grammars are resolved inside node_modules),
 * import web-tree-sitter at module load (a command that touches no code file
 * must not pay the ~100 ms start-up), or hand out a half-initialised runtime.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { EditwardenError, ErrorCode } from '../errors.js';

/**
 * Process-wide cache. This is the one piece of module state in ast/: the wasm
 * runtime is global to the process anyway, and a loaded grammar is immutable,
 * so sharing it is safe and saves 5–20 ms per grammar per call.
 */
interface Runtime {
  Parser: typeof Parser;
  Language: typeof Language;
}
let runtime: Promise<Runtime> | undefined;
let ready: Runtime | undefined;
const languages = new Map<string, Promise<Language>>();
const loaded = new Map<string, Language>();
const parsers = new Map<string, Parser>();

const require = createRequire(import.meta.url);

/** Directory holding `tree-sitter-<grammar>.wasm` files, found through node's resolver (no network, no copy). */
export function grammarDirectory(): string {
  return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

export function grammarFile(grammar: string): string {
  return path.join(grammarDirectory(), `tree-sitter-${grammar}.wasm`);
}

async function initRuntime(): Promise<Runtime> {
  const mod = await import('web-tree-sitter');
  await mod.Parser.init();
  ready = { Parser: mod.Parser, Language: mod.Language };
  return ready;
}

/** Loads (once) and returns the grammar; rejects with E_PARSE when the wasm cannot be loaded. */
export function loadGrammar(grammar: string): Promise<Language> {
  let pending = languages.get(grammar);
  if (!pending) {
    runtime ??= initRuntime();
    pending = runtime
      .then((rt) => rt.Language.load(grammarFile(grammar)))
      .then((language) => {
        loaded.set(grammar, language);
        return language;
      })
      .catch((error: unknown) => {
        // Forget the failure so a later call reports it again instead of a stale promise.
        languages.delete(grammar);
        throw new EditwardenError(
          {
            code: ErrorCode.PARSE,
            message: `The tree-sitter grammar "${grammar}" could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
            hint: 'Edit this file with old_text/new_text instead of an AST path; the syntax guard is skipped for it.',
          },
          { cause: error },
        );
      });
    languages.set(grammar, pending);
  }
  return pending;
}

/** A parser for an already loaded grammar, or undefined when it has not been loaded yet (the sync path never loads). */
export function parserFor(grammar: string): Parser | undefined {
  const language = loaded.get(grammar);
  // `loaded` is only filled after the runtime is ready.
  if (!language || !ready) return undefined;
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new ready.Parser();
    parser.setLanguage(language);
    parsers.set(grammar, parser);
  }
  return parser;
}

/** What this process has initialised so far (for tests and diagnostics). */
export function treeSitterState(): { initialised: boolean; grammars: string[] } {
  return { initialised: runtime !== undefined, grammars: [...loaded.keys()].sort() };
}
