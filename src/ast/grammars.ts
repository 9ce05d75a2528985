/**
 * Loads tree-sitter (the wasm binding) and the prebuilt grammars of the
 * `tree-sitter-wasms` package, lazily and once per process.
 *
 * Each grammar gets its own instance of the web-tree-sitter runtime. The
 * grammars of tree-sitter-wasms 0.1.13 were built for an older runtime, and in
 * one shared runtime their external scanners clash: after PHP is loaded, Lua
 * files parse into ERROR nodes; loaded concurrently, Rust fails with "bad
 * export type for 'tree_sitter_python_external_scanner_create'". A runtime per
 * grammar costs ~20 ms of initialisation per language used and removes the
 * whole class of problem.
 *
 * Must never: download anything (grammars are resolved inside node_modules),
 * import web-tree-sitter at module load (a command that touches no code file
 * must not pay its start-up), or hand out a half-initialised parser.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Language, Parser } from 'web-tree-sitter';
import { EditwardenError, ErrorCode } from '../errors.js';

interface LoadedGrammar {
  language: Language;
  parser: Parser;
}

/**
 * Process-wide cache: the one piece of module state in ast/. A loaded grammar
 * and its runtime are immutable and the process is single-threaded, so
 * sharing them is safe and saves the load on every later call.
 */
const pending = new Map<string, Promise<LoadedGrammar>>();
const loaded = new Map<string, LoadedGrammar>();
/** Loads run one after another (wasm instantiation is CPU-bound anyway; no interleaving surprises). */
let queue: Promise<unknown> = Promise.resolve();

const require = createRequire(import.meta.url);

/** Directory holding `tree-sitter-<grammar>.wasm` files, found through node's resolver (no network, no copy). */
export function grammarDirectory(): string {
  return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

export function grammarFile(grammar: string): string {
  return path.join(grammarDirectory(), `tree-sitter-${grammar}.wasm`);
}

/** A fresh module instance of web-tree-sitter: a distinct URL (query) is a distinct ES module. */
async function isolatedRuntime(grammar: string): Promise<typeof import('web-tree-sitter')> {
  const entry = path.join(path.dirname(require.resolve('web-tree-sitter')), 'tree-sitter.js');
  const mod = (await import(`${pathToFileURL(entry).href}?grammar=${encodeURIComponent(grammar)}`)) as typeof import('web-tree-sitter');
  await mod.Parser.init();
  return mod;
}

async function load(grammar: string): Promise<LoadedGrammar> {
  const mod = await isolatedRuntime(grammar);
  const language = await mod.Language.load(grammarFile(grammar));
  const parser = new mod.Parser();
  parser.setLanguage(language);
  return { language, parser };
}

/** Loads (once) and returns the grammar; rejects with E_PARSE when the wasm cannot be loaded. */
export function loadGrammar(grammar: string): Promise<LoadedGrammar> {
  let promise = pending.get(grammar);
  if (!promise) {
    promise = queue
      .catch(() => undefined)
      .then(() => load(grammar))
      .then((result) => {
        loaded.set(grammar, result);
        return result;
      })
      .catch((error: unknown) => {
        // Forget the failure so a later call tries again instead of replaying a stale promise.
        pending.delete(grammar);
        throw new EditwardenError(
          {
            code: ErrorCode.PARSE,
            message: `The tree-sitter grammar "${grammar}" could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
            hint: 'Edit this file with old_text/new_text instead of an AST path; the syntax guard is skipped for it.',
          },
          { cause: error },
        );
      });
    pending.set(grammar, promise);
    queue = promise;
  }
  return promise;
}

/** The parser of an already loaded grammar, or undefined (the synchronous path never loads). */
export function parserFor(grammar: string): Parser | undefined {
  return loaded.get(grammar)?.parser;
}

/** What this process has initialised so far (for tests and diagnostics). */
export function treeSitterState(): { initialised: boolean; grammars: string[] } {
  return { initialised: pending.size > 0, grammars: [...loaded.keys()].sort() };
}
