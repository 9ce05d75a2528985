#!/usr/bin/env node
/**
 * Bundles the CLI (dist/cli/main.js, tsc's output) into dist/cli-bundle/: an
 * entry, cli.mjs, and one chunk per lazily imported command and per shared
 * part. The binary runs the bundle: one file per command instead of ~80
 * modules resolved, stat'ed and linked one by one, and no CommonJS dependency
 * goes through Node's CJS-to-ESM lexer (measured in bench/startup.bench.mjs).
 *
 * Kept outside: web-tree-sitter (grammars.ts takes a fresh instance of it per
 * grammar from the require cache) and the grammar files of tree-sitter-wasms,
 * both loaded from node_modules at run time.
 *
 * Code that finds files next to itself (`new URL('../..', import.meta.url)`, `import.meta.dirname`:
 * the package root, bin/, samples/, the search worker, package.json) keeps
 * its meaning: each module's `import.meta.url` is rewritten to the URL its
 * tsc output has, computed from the bundle's own URL and a relative path, so
 * the bundle holds no absolute path of the machine that built it.
 *
 * Must never: bundle a file tsc did not type-check (it reads dist/, not src/),
 * or leave a bundle older than the build (npm run build runs it after tsc).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/**
 * Bundles dist/cli/main.js into `outdir` (default dist/cli-bundle/). With
 * `splitting: false` everything, every command included, goes into one file
 * (bench/startup.bench.mjs measures that variant too).
 */
export async function bundleCli({ outdir = path.join(dist, 'cli-bundle'), splitting = true, entry = path.join(dist, 'cli', 'main.js'), plugins = [], format = 'esm' } = {}) {
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const cjs = format === 'cjs';
  // The bundle's own URL: ESM's import.meta.url; in CommonJS (no import.meta) the file's, from __filename, through a
  // name the banner declares (ownPlace says why).
  const selfUrl = cjs ? '__editwardenSelfUrl' : 'import.meta.url';
  const ownUrl = ownPlace(outdir, {
    url: (relative) => `new URL(${JSON.stringify(relative)}, ${selfUrl}).href`,
    dir: (relative) => `__editwardenFileURLToPath(new URL(${JSON.stringify(`${path.dirname(relative)}/`)}, ${selfUrl}))`,
  });
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { cli: entry },
    outdir,
    bundle: true,
    splitting,
    format,
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': cjs ? '.cjs' : '.mjs' },
    chunkNames: 'chunk-[hash]',
    external: ['web-tree-sitter', 'tree-sitter-wasms'],
    define: { __EDITWARDEN_VERSION__: JSON.stringify(version) },
    // CommonJS dependencies inside the bundle call require() for Node's built-ins (a CommonJS bundle has its own).
    banner: cjs
      ? // "use strict" first, or the whole file would run sloppy (a directive counts only at the top).
        { js: "'use strict';\nconst __editwardenFileURLToPath = require('node:url').fileURLToPath; const __editwardenSelfUrl = require('node:url').pathToFileURL(__filename).href;" }
      : { js: "import { createRequire as __editwardenCreateRequire } from 'node:module'; import { fileURLToPath as __editwardenFileURLToPath } from 'node:url'; const require = __editwardenCreateRequire(import.meta.url);" },
    // A CommonJS bundle has no import.meta: a dependency's use of it would silently read undefined (cli-bundle.test.ts).
    logOverride: cjs ? { 'empty-import-meta': 'error' } : {},
    plugins: [...plugins, zodEnglishOnly, commanderSpawnOnUse, ajvOnUse, ownUrl],
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/**
 * The plugin that rewrites `import.meta.url` and `import.meta.dirname` in dist/ modules to the place of the module's
 * own tsc output, as seen from the bundle in `outdir` (`relative`: that output's path from there): code that finds
 * files next to itself finds them from inside a bundle too. `url` and `dir` give the text put in; it must name only
 * what the bundle's first lines declare (its banner), never `require` or `__dirname`: a module may declare its own
 * (ast/grammars.js has `const require = createRequire(import.meta.url)`, which esbuild renames, so a `require(…)` in
 * the text would call the very variable it is initialising — `require2 is not a function`).
 */
function ownPlace(outdir, { url, dir }) {
  return {
    name: 'own-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(dist + path.sep)) return undefined;
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url') && !source.includes('import.meta.dirname')) return { contents: source, loader: 'js' };
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: source.replaceAll('import.meta.dirname', dir(relative)).replaceAll('import.meta.url', url(relative)), loader: 'js' };
      });
    },
  };
}

/**
 * One bundle per command, dist/cli-command/<name>/cli.cjs, which bin/editwarden runs for that command: main.js and
 * the command's module with everything they import, lazily or not, in that one file. The shared bundle's 30–55 chunks
 * per command cost the ES module loader a resolve, a read, a compile and a link each: measured on Node 20 (CPU, median
 * of 7 interleaved, node -e 0 24 ms, load 9–10), `undo --list` 100 → 80 ms, an empty `exec` 188 → 148, the MCP
 * server's start 200 → 140 (with the cuts above). CommonJS, not an ES module: bin/editwarden compiles it through
 * src/cli/code-cache.ts with the V8 code cache an earlier run of it left (a CommonJS file alone was no cheaper; the
 * cache is what pays, docs/benchmarks.md, "The one-shot CLI's compile cache"). `import.meta.url` becomes the file's
 * URL from `__filename`; the build fails on any other `import.meta` (it would read undefined in CommonJS).
 * The shared bundle (dist/cli-bundle/) stays for everything else: `--help`, a mistyped command and the commands
 * listed in SHARED_ONLY.
 *
 * In a command's bundle the table's other commands come from the shared bundle (dist/cli-command/others/*.mjs), so a
 * process that needs another command than the one bin/editwarden picked (only allRegistrars does; bin picks by
 * commandNamed's rule) still gets the real command, never a missing module.
 */
export async function bundleCommands({ outdir = path.join(dist, 'cli-command') } = {}) {
  const table = commandModules();
  fs.rmSync(outdir, { recursive: true, force: true });
  const others = path.join(outdir, 'others');
  fs.mkdirSync(others, { recursive: true });
  const byModule = new Map();
  for (const { name, module, registrar } of table) byModule.set(module, [...(byModule.get(module) ?? []), { name, registrar }]);
  for (const [module, commands] of byModule) {
    const lines = commands.map(({ name, registrar }) => `export const ${registrar} = await COMMANDS[${JSON.stringify(name)}].load();`);
    fs.writeFileSync(path.join(others, `${path.basename(module, '.js')}.mjs`), `import { COMMANDS } from '../../cli-bundle/cli.mjs';\n${lines.join('\n')}\n`);
  }
  const entries = path.join(dist, '.cli-command-entries');
  fs.rmSync(entries, { recursive: true, force: true });
  fs.mkdirSync(entries, { recursive: true });
  try {
    await Promise.all(
      table
        .filter(({ name }) => !SHARED_ONLY.includes(name))
        .map(async ({ name, module }) => {
          const entry = path.join(entries, `${name}.js`);
          fs.writeFileSync(entry, `export * from '../cli/main.js';\n`);
          /** main.js's import of another command's module → that module's registrars from the shared bundle. */
          const fromShared = {
            name: 'other-commands-from-the-shared-bundle',
            setup(b) {
              b.onResolve({ filter: /^\.\/(commands\/[a-z-]+|hook-server)\.js$/ }, (args) => {
                if (args.importer !== path.join(dist, 'cli', 'main.js') || args.path === module || (HELD[name] ?? []).includes(args.path)) return undefined;
                if (!byModule.has(args.path)) throw new Error(`${args.path} is imported by main.js but is no command's module in its table`);
                return { path: `../others/${path.basename(args.path, '.js')}.mjs`, external: true };
              });
            },
          };
          await bundleCli({ outdir: path.join(outdir, name), entry, splitting: false, plugins: [fromShared, builtinsWhereUsed], format: 'cjs' });
        }),
    );
  } finally {
    fs.rmSync(entries, { recursive: true, force: true });
  }
}

/**
 * In one file, esbuild hoists every `import … from 'node:http'` to the top, so a module the command imports lazily
 * (the MCP server's HTTP transport, the network proxy) would load its built-ins at start anyway. Here each of the
 * built-ins that only some paths use is a CommonJS module of the bundle (`module.exports = require('node:http')`):
 * required where the importing module is first run, as in the shared bundle, where that module's chunk is loaded
 * only then. Not every built-in: each importing module wraps a CommonJS one in an object of its own with a getter per
 * export, which for fs, path and the like (imported by ~100 modules, loaded by every command anyway) cost ~10 ms more
 * than it saved (undo --list 80 → 90 ms).
 */
const ON_USE_BUILTINS = /^node:(http|https|http2|tls|zlib|net|dgram|dns|dns\/promises|child_process|worker_threads|readline|readline\/promises|inspector|perf_hooks)$/;

const builtinsWhereUsed = {
  name: 'builtins-where-used',
  setup(b) {
    b.onResolve({ filter: ON_USE_BUILTINS }, (args) => (args.namespace === 'builtin' ? undefined : { path: args.path, namespace: 'builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * Commands without a bundle of their own: `edit`, `hook` and `shell` start as thin clients (bin/editwarden THIN), whose
 * in-process fallback loads the hook server's bundle (src/cli/in-process.ts); `demo` and `apply-proposal` are rare and
 * the largest (~3.8 MB each).
 */
export const SHARED_ONLY = ['edit', 'hook', 'shell', 'demo', 'apply-proposal'];

/**
 * Commands whose bundle holds other commands' modules too, in the same file: `hook-server` runs the `hook` and `edit`
 * commands in its own process (main.ts's run), which must share its modules (the deferred fsyncs it settles, the
 * per-project state it keeps), never load a second copy of them; and the thin clients' fallback runs `hook`, `edit`
 * and `shell` from it.
 */
export const HELD = { 'hook-server': ['./commands/hook.js', './commands/edit.js', './commands/shell.js'] };

/** The command table of dist/cli/main.js: each command's name, the module its `load` imports and the registrar it takes. */
function commandModules() {
  const source = fs.readFileSync(path.join(dist, 'cli', 'main.js'), 'utf8');
  const table = [];
  for (const m of source.matchAll(/^ {4}(?:'([a-z-]+)'|([a-z-]+)): \{$[\s\S]*?^ {8}load: async \(\) => \(await import\('(\.\/[a-z/-]+\.js)'\)\)\.(\w+),$/gm)) {
    table.push({ name: m[1] ?? m[2], module: m[3], registrar: m[4] });
  }
  const declared = (source.match(/^ {8}load: async \(\) =>/gm) ?? []).length;
  if (table.length === 0 || table.length !== declared) throw new Error(`dist/cli/main.js: read ${table.length} of ${declared} commands' modules from its table; update commandModules in scripts/bundle-cli.mjs`);
  return table;
}

/**
 * zod's locales index re-exports the error messages of every language (`export * as locales` in zod/v4, kept
 * whole because the code uses the `z` namespace): ~366 KB, half of zod's chunk, which every command that reads a
 * config parses and compiles (~20 ms of CPU per call). editwarden speaks English, the locale zod configures itself
 * with (`config(en())` in zod/v4/classic), and names no other: the bundle's locales index holds `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * commander requires child_process at the top of lib/command.js for one use: spawning a stand-alone executable
 * subcommand (`git-foo` style), which editwarden never declares. Required there, every command paid for loading it
 * (and net and dgram behind it); in the bundle it is required on that use. Fails the build when the line changed
 * (a commander update), so the rewrite can never silently stop applying (test/cli/lazy-commands.test.ts).
 */
const commanderSpawnOnUse = {
  name: 'commander-spawn-on-use',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      const line = "const childProcess = require('node:child_process');";
      if (!source.includes(line)) throw new Error(`${args.path} no longer has "${line}": update commanderSpawnOnUse in scripts/bundle-cli.mjs`);
      const onUse = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(line, onUse), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * The MCP SDK's Server (and Client) makes its JSON Schema validator, an Ajv instance with every format, in its
 * constructor, and its module imports ajv and ajv-formats at the top: every `editwarden mcp` and hook server ran
 * ajv's ~60 modules and built that instance (~15–25 ms of CPU at start), for the one request that uses it —
 * validating an elicitation's answer, which editwarden never asks for. In the bundle both are required, and the
 * instance made, on the validator's first use: the same Ajv with the same options when anything does use it. Fails
 * the build when a line it rewrites changed (an SDK update), so the rewrite can never silently stop applying
 * (test/cli/lazy-commands.test.ts).
 */
export const ajvOnUse = {
  name: 'ajv-on-use',
  setup(b) {
    b.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/ }, async (args) => {
      let source = await fs.promises.readFile(args.path, 'utf8');
      const rewrites = [
        ["import Ajv from 'ajv';\nimport _addFormats from 'ajv-formats';\n", ''],
        ['const ajv = new Ajv({', "const Ajv = require('ajv').default;\n    const ajv = new Ajv({"],
        ['const addFormats = _addFormats;', "const addFormats = require('ajv-formats').default;"],
        ['constructor(ajv) {\n        this._ajv = ajv ?? createDefaultAjvInstance();\n    }', 'constructor(ajv) {\n        this._given = ajv;\n    }\n    get _ajv() {\n        return (this._given ??= createDefaultAjvInstance());\n    }'],
      ];
      for (const [line, onUse] of rewrites) {
        if (!source.includes(line)) throw new Error(`${args.path} no longer has ${JSON.stringify(line)}: update ajvOnUse in scripts/bundle-cli.mjs`);
        source = source.replace(line, onUse);
      }
      return { contents: source, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Bundles the thin hook client (dist/cli/hook-client.js and hook-socket.js,
 * Node built-ins only) into ONE CommonJS file, dist/hook-client/hook.cjs,
 * which bin/editwarden require()s for `editwarden hook`, and the guarded
 * shell's thin client (hook-shell-client.js, with the runner's spawn-run.js)
 * into dist/hook-client/shell.cjs, for `editwarden shell`, the thin edit
 * (edit-client.js) into dist/hook-client/edit.cjs, for `editwarden edit` (its
 * refusal text, errors.js and output.js, is inlined and run only when a server
 * ends mid-call), and the compile
 * cache's folder check (compile-cache.js) into compile-cache.cjs, which the
 * binary loads before the CLI on a Node that has the cache. CommonJS, one file:
 * every ES module the binary imports costs ~5 ms (the ESM loader reads it
 * through fs/promises, and `import 'node:fs'` builds a facade that loads
 * fs streams), twice per native edit. `import.meta.url` becomes the URL of
 * the module's tsc output, computed from `__dirname`, as in the CLI bundle.
 */
export async function bundleHookClient({ outdir = path.join(dist, 'hook-client') } = {}) {
  // From __dirname, without a URL to parse: every hook runs these.
  const ownUrl = ownPlace(outdir, {
    url: (relative) => `__editwardenUrl.pathToFileURL(__editwardenPath.join(__editwardenDirname, ${JSON.stringify(relative)})).href`,
    dir: (relative) => `__editwardenPath.join(__editwardenDirname, ${JSON.stringify(path.dirname(relative))})`,
  });
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: {
      hook: path.join(dist, 'cli', 'hook-client.js'),
      shell: path.join(dist, 'cli', 'hook-shell-client.js'),
      edit: path.join(dist, 'cli', 'edit-client.js'),
      'compile-cache': path.join(dist, 'cli', 'compile-cache.js'),
      'code-cache': path.join(dist, 'cli', 'code-cache.js'),
    },
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.cjs' },
    // Only Node's built-ins: anything else here would be loaded by every hook.
    external: ['../cli-bundle/cli.mjs'],
    // path and url are loaded by Node's own start-up: naming them here costs a lookup.
    // "use strict" first, or the whole file would run sloppy (a directive counts only at the top).
    banner: { js: "\"use strict\";\nconst __editwardenPath = require('node:path'); const __editwardenUrl = require('node:url'); const __editwardenDirname = __dirname;" },
    plugins: [ownUrl],
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const name of fs.readdirSync(outdir)) lightBuiltins(path.join(outdir, name));
}

/**
 * esbuild's CommonJS form of `import fs from 'node:fs'` is `__toESM(require("node:fs"), 1)`: a new object with a
 * getter copied for every export of the module (~100 for fs), for each importing module — ~0.5 ms of a thin
 * client's ~10 ms over a bare `node`, paid by every hook, guarded command and edit. A built-in needs none of it:
 * an object whose prototype is the module itself, with `default` the module, reads the same for a default import
 * and a namespace import alike. Rewritten in the output (test/cli/thin-client-bundle.test.ts pins it).
 */
const NODE_TO_ESM = /__toESM\(require\("(node:[a-z_/]+)"\), 1\)/g;
const BUILTIN_VIEW = 'var __builtin = (mod) => Object.create(mod, { default: { value: mod, enumerable: true } });\n';

function lightBuiltins(file) {
  const text = fs.readFileSync(file, 'utf8');
  const viewed = text.replace(NODE_TO_ESM, '__builtin(require("$1"))');
  if (viewed === text) return;
  const lighter = viewed.replace(/^"use strict";\n/, (strict) => `${strict}${BUILTIN_VIEW}`);
  if (!lighter.includes(BUILTIN_VIEW)) throw new Error(`${file}: no "use strict" line to put the built-in view after`);
  fs.writeFileSync(file, lighter);
}

/**
 * Bundles the guard launcher (dist/integrations/guard-install.js, Node
 * built-ins only) into ONE CommonJS file, dist/guard-launcher/launch.cjs,
 * that runs `launchMain()` when loaded. `editwarden init` and `trust
 * --guard` copy it into the person's own data folder, outside every
 * repository: the committed hooks run a project-local editwarden only
 * through that copy, which checks the install against the recorded digest
 * first (src/integrations/guard-install.ts). It must find nothing next to
 * itself: it runs from a folder of its own.
 */
export async function bundleGuardLauncher({ outdir = path.join(dist, 'guard-launcher') } = {}) {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { launch: path.join(dist, 'integrations', 'guard-install.js') },
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.cjs' },
    footer: { js: 'module.exports.launchMain();' },
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/**
 * Saves the top-level help as the CLI prints it to a pipe (dist/cli-bundle/help.txt): bin/editwarden answers a lone
 * `--help` with it when the output is not a terminal, without loading the CLI. Made by running the bundle just built
 * (bundleCli removed any older text with its folder, so this run is the CLI's own answer), with no variable that
 * forces colours: the text is commander's, byte for byte.
 */
export function saveHelpText({ outdir = path.join(dist, 'cli-bundle') } = {}) {
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.CLICOLOR_FORCE;
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'editwarden'), '--help'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || r.stdout === '') throw new Error(`editwarden --help failed while saving its text (${r.status}): ${r.stderr}`);
  fs.writeFileSync(path.join(outdir, 'help.txt'), r.stdout);
}

// Run as a script (not imported by the bench): Node gives the main module its real path, so compare real paths.
if (process.argv[1] && fs.realpathSync(path.resolve(process.argv[1])) === fileURLToPath(import.meta.url)) {
  // The commands' own bundles first: the test run's staleness check (test/global-setup.ts) looks at the shared
  // bundle's time, so a build that stops half-way leaves nothing older than it.
  await bundleCommands();
  await bundleCli();
  saveHelpText();
  await bundleHookClient();
  await bundleGuardLauncher();
}
