/**
 * Loads tree-sitter (the wasm binding) and the prebuilt grammars of the
 * `tree-sitter-wasms` package, lazily and once per process. Grammars that no
 * npm package ships (Vala) are built here and shipped in this package's own
 * `grammars/` folder, each with its licence and how it was built.
 *
 * Each grammar gets its own instance of the web-tree-sitter runtime. The
 * grammars of tree-sitter-wasms 0.1.13 were built for an older runtime, and in
 * one shared runtime their external scanners clash: after PHP is loaded, Lua
 * files parse into ERROR nodes; loaded concurrently, Rust fails with "bad
 * export type for 'tree_sitter_python_external_scanner_create'". A runtime per
 * grammar costs ~20 ms of initialisation per language used and removes the
 * whole class of problem.
 *
 * Lua's grammar is worse: its scanner keeps state in module memory, so only
 * the first parse in a runtime is right (the second parse of `local x = 1`
 * yields ERROR nodes). Lua parsers are therefore used once each, from a small
 * pool of fresh runtimes that is refilled in the background.
 *
 * Must never: download anything (grammars are resolved inside node_modules),
 * import web-tree-sitter at module load (a command that touches no code file
 * must not pay its start-up), or hand out a half-initialised parser.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
/** Grammars whose parser is only right for its first parse; see above. */
const ONE_SHOT = new Set(['lua']);
/** Parses one AST request and its syntax guard need at most (outline, new text, old text). */
const ONE_SHOT_POOL = 4;
const spares = new Map<string, LoadedGrammar[]>();
const refilling = new Map<string, Promise<void>>();
/** Loads run one after another (wasm instantiation is CPU-bound anyway; no interleaving surprises). */
let queue: Promise<unknown> = Promise.resolve();

const require = createRequire(import.meta.url);

/** Directory holding `tree-sitter-<grammar>.wasm` files, found through node's resolver (no network, no copy). */
function grammarDirectory(): string {
  return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

/**
 * Grammars this package ships itself, in `grammars/<id>/` at the package root
 * (found from this module's own URL, which the CLI bundle keeps): no npm
 * package has them. Each folder holds the wasm, the grammar's licence and a
 * README naming the upstream commit and the build command.
 */
const SHIPPED_GRAMMARS: ReadonlySet<string> = new Set(['vala']);

export function grammarFile(grammar: string): string {
  if (SHIPPED_GRAMMARS.has(grammar)) return fileURLToPath(new URL(`../../grammars/${grammar}/tree-sitter-${grammar}.wasm`, import.meta.url));
  return path.join(grammarDirectory(), `tree-sitter-${grammar}.wasm`);
}

/**
 * A fresh instance of web-tree-sitter. Taken from the CommonJS build with its
 * require-cache entry dropped: unlike an ES module (kept for the life of the
 * process), an instance nobody references any more can be garbage-collected,
 * which matters for Lua's one-parse runtimes.
 */
async function isolatedRuntime(): Promise<typeof import('web-tree-sitter')> {
  const entry = require.resolve('web-tree-sitter');
  delete require.cache[entry];
  const mod = require(entry) as typeof import('web-tree-sitter');
  delete require.cache[entry];
  await mod.Parser.init();
  return mod;
}

async function load(grammar: string): Promise<LoadedGrammar> {
  const mod = await isolatedRuntime();
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
      .then(async (result) => {
        loaded.set(grammar, result);
        if (ONE_SHOT.has(grammar)) await refill(grammar, result);
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

async function refill(grammar: string, first?: LoadedGrammar): Promise<void> {
  const pool = spares.get(grammar) ?? [];
  spares.set(grammar, pool);
  if (first && !pool.includes(first)) pool.push(first);
  while (pool.length < ONE_SHOT_POOL) pool.push(await load(grammar));
}

/** Makes sure a one-shot grammar has its pool of fresh parsers (no-op for other grammars). */
export async function ensureParsers(grammar: string): Promise<void> {
  await loadGrammar(grammar);
  if (!ONE_SHOT.has(grammar)) return;
  let running = refilling.get(grammar);
  if (!running) {
    running = refill(grammar).finally(() => refilling.delete(grammar));
    refilling.set(grammar, running);
  }
  await running;
}

/**
 * The parser of an already loaded grammar, or undefined (the synchronous path
 * never loads). For a one-shot grammar each call hands out a parser nobody
 * used yet and starts refilling the pool in the background.
 */
export function parserFor(grammar: string): Parser | undefined {
  if (!ONE_SHOT.has(grammar)) return loaded.get(grammar)?.parser;
  const taken = spares.get(grammar)?.shift();
  if (taken) void ensureParsers(grammar).catch(() => undefined);
  return taken?.parser;
}

/** True when each parse of this grammar needs a fresh parser (its trees cannot seed an incremental parse). */
export function isOneShot(grammar: string): boolean {
  return ONE_SHOT.has(grammar);
}

/**
 * The grammars among `grammars` that do not load (for `editwarden doctor`): each one's wasm is loaded and set on a
 * parser — the file is there and whole, it links against the runtime and its ABI version is one the runtime takes.
 * Unlike loadGrammar, they share one runtime: a runtime costs ~15 ms of CPU to start (a doctor starting one per
 * grammar spent ~0.6 s of its ~1.2 s there), and the clashes that make commands take one per grammar are in how the
 * grammars parse, which this never does. A runtime that saw a load fail is not trusted for the next one. Nothing
 * here goes into the process's cache: the runtime is dropped when the check ends.
 */
export async function grammarsThatDoNotLoad(grammars: readonly string[], fileOf: (grammar: string) => string = grammarFile): Promise<string[]> {
  const failed: string[] = [];
  let runtime: typeof import('web-tree-sitter') | undefined;
  for (const grammar of grammars) {
    try {
      runtime ??= await isolatedRuntime();
      const language = await runtime.Language.load(fileOf(grammar));
      const parser = new runtime.Parser();
      parser.setLanguage(language);
      parser.delete();
    } catch {
      failed.push(grammar);
      runtime = undefined;
    }
  }
  return failed;
}

/** What this process has initialised so far (for tests and diagnostics). */
export function treeSitterState(): { initialised: boolean; grammars: string[] } {
  return { initialised: pending.size > 0, grammars: [...loaded.keys()].sort() };
}
