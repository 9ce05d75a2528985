/**
 * The suite's three tiers, decided by rule so that a new test file lands in
 * the right one without anyone editing a list (vitest.config.ts builds its
 * three projects from `classifyTests`; docs/architecture.md, "Test tiers"):
 *
 * - `e2e`: a path matching `E2E_PATTERNS` — the package installed from its
 *   tarball, the GitHub Action, the documented commands, the demo, the real
 *   coding-agent clients, the event-log flood. Chosen by name, because what makes them end-to-end
 *   (a registry install, a real client, a real build) is not visible in an
 *   import.
 * - `unit`: every other file whose imports, followed through the repository
 *   (test helpers and `src/` alike), reach no process, thread or network
 *   module (`PROCESS_MODULES`) and not the built package (`editwarden`,
 *   which is `dist/`), and whose own test code (the file and the test helpers
 *   it imports) makes no temp tree (`node:os`, `test/temp-dirs.ts`,
 *   `mkdtemp`). Such a file needs no build, no process and no disk of its own.
 * - `integration`: the rest — real files, processes, the sandbox.
 *
 * The rule fails closed: a relative import that does not resolve, or a
 * test file's `import()` of a computed name, counts as reaching the world, so
 * a file the rule cannot read goes to `integration`, never to `unit`. (A
 * computed name in src/ is not followed: the product never imports dist/,
 * and test/unit-guard.ts fails a unit test that starts a process anyway.)
 */
import fs from 'node:fs';
import path from 'node:path';

export type Tier = 'unit' | 'integration' | 'e2e';
export const TIERS: readonly Tier[] = ['unit', 'integration', 'e2e'];

/** Files (repository-relative, `/`-separated) that are end-to-end by name: prefixes, so a `pack-install-x.test.ts` from another branch joins its tier. */
export const E2E_PATTERNS: readonly RegExp[] = [
  /^test\/package\/pack-install[^/]*\.test\.ts$/,
  /^test\/package\/fresh-machine[^/]*\.test\.ts$/,
  /^test\/package\/action[^/]*\.test\.ts$/,
  /^test\/package\/docs-commands[^/]*\.test\.ts$/,
  /^test\/cli\/demo[^/]*\.test\.ts$/,
  /^test\/integrations\/(claude-code|gemini-cli|codex)[^/]*\.test\.ts$/,
  // opencode, Copilot CLI and Qwen Code, each a real client against the scripted model (the plugin's own test is not one).
  /^test\/integrations\/(opencode|copilot-cli|qwen-code)\.test\.ts$/,
  // The event log flooded by 100 real sandboxed commands of 10,000 files each: minutes, like the client runs.
  /^test\/runs\/log-flood[^/]*\.test\.ts$/,
];

/** Modules that start a process or a thread, or open a socket: a file that reaches one is not a unit test. */
const PROCESS_MODULES: ReadonlySet<string> = new Set(['child_process', 'worker_threads', 'cluster', 'net', 'tls', 'dgram', 'http', 'https', 'http2', 'inspector'].flatMap((m) => [m, `node:${m}`]));

/** The package's own name: importing it loads the build in dist/, which only exists after a build. */
const OWN_PACKAGE = /^editwarden(\/|$)/;

/** What a test file's own code uses to make a temp tree. */
const TEMP_TREE_MODULES: ReadonlySet<string> = new Set(['os', 'node:os']);
const TEMP_TREE_TEXT = /\bmkdtemp/;
const TEMP_DIRS_HELPER = 'test/temp-dirs.ts';

/**
 * The module names a source text imports: static `import … from`, bare
 * `import '…'`, `export … from`, `import('…')` and `require('…')`. A dynamic
 * import of a computed name is reported as `null` (unknown). Text that only looks like an
 * import (inside a string or a comment) is reported too: a false import can
 * only move a file out of `unit`, never into it.
 */
export function importsOf(text: string): Array<string | null> {
  const found: Array<string | null> = [];
  const statics = /(?:^|[\s;}])(?:import|export)\s+(?:[^'"`;]*?\s+from\s+)?['"]([^'"\n]+)['"]/g;
  for (const m of text.matchAll(statics)) found.push(m[1]!);
  // import('…') and require('…') (also through createRequire): a literal name, or unknown.
  const dynamics = /\b(?:import|require)\s*\(\s*([^)]*)\)/g;
  for (const m of text.matchAll(dynamics)) {
    // `import()` with nothing inside is not a call (it is prose about one, in a comment).
    if (m[1]!.trim() === '') continue;
    const literal = /^\s*['"]([^'"\n]+)['"]\s*$/.exec(m[1]!);
    found.push(literal ? literal[1]! : null);
  }
  return found;
}

/** The repository file a relative import names (TypeScript's `.js` → `.ts` mapping), or null when none exists. */
function resolveRelative(fromFile: string, specifier: string, exists: (file: string) => boolean): string | null {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  const candidates = [target];
  if (/\.js$/.test(target)) candidates.unshift(target.replace(/\.js$/, '.ts'));
  if (/\.mjs$/.test(target)) candidates.unshift(target.replace(/\.mjs$/, '.mts'));
  if (!/\.[cm]?[jt]s$/.test(target)) candidates.push(`${target}.ts`, `${target}/index.ts`);
  return candidates.find(exists) ?? null;
}

export interface TierReasons {
  tier: Tier;
  /** Why the file is not `unit` (empty for a unit file): e.g. `test/x.ts imports node:child_process`. */
  reasons: string[];
}

/** Reads repository files by relative path; injectable so the rule can be tested on made-up trees. */
export interface SourceTree {
  read(file: string): string;
  exists(file: string): boolean;
}

function diskTree(root: string): SourceTree {
  return {
    read: (file) => fs.readFileSync(path.join(root, file), 'utf8'),
    exists: (file) => {
      try {
        return fs.statSync(path.join(root, file)).isFile();
      } catch {
        return false;
      }
    },
  };
}

/** What one file says on its own: the local files it imports and why it alone is not unit. */
interface FileFacts {
  imports: string[];
  reasons: string[];
}

function factsOf(file: string, tree: SourceTree): FileFacts {
  const text = tree.read(file);
  const imports: string[] = [];
  const reasons: string[] = [];
  // The test's own code (not the product it tests) is where a temp tree would be made.
  const ownCode = file.startsWith('test/');
  if (ownCode && file === TEMP_DIRS_HELPER) reasons.push(`${file} makes temp folders`);
  if (ownCode && TEMP_TREE_TEXT.test(text)) reasons.push(`${file} makes a temp folder (mkdtemp)`);
  for (const specifier of importsOf(text)) {
    if (specifier === null) {
      // Test code that loads a module by a computed name may be loading the build (`await import(dist)`); the product
      // in src/ never imports dist/, and a process it starts through such a name is caught by test/unit-guard.ts.
      if (ownCode) reasons.push(`${file} imports a computed module name`);
    } else if (specifier.startsWith('.')) {
      const target = resolveRelative(file, specifier, tree.exists);
      if (target === null) reasons.push(`${file} imports ${specifier}, which does not resolve`);
      else imports.push(target);
    } else if (PROCESS_MODULES.has(specifier)) reasons.push(`${file} imports ${specifier}`);
    else if (OWN_PACKAGE.test(specifier)) reasons.push(`${file} imports the built package (${specifier})`);
    else if (ownCode && TEMP_TREE_MODULES.has(specifier)) reasons.push(`${file} imports ${specifier} (temp folders)`);
  }
  return { imports, reasons };
}

/** Classifies test files of one tree; each file is read once however many tests import it. */
export class TierClassifier {
  private readonly facts = new Map<string, FileFacts>();

  constructor(private readonly tree: SourceTree) {}

  /** The tier of one test file (repository-relative path) and, when it is not `unit`, why. */
  tierOf(testFile: string): TierReasons {
    if (E2E_PATTERNS.some((p) => p.test(testFile))) return { tier: 'e2e', reasons: [`${testFile} matches an end-to-end name`] };
    const reasons: string[] = [];
    const seen = new Set<string>([testFile]);
    const queue = [testFile];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const facts = this.factsOf(file);
      reasons.push(...facts.reasons);
      for (const next of facts.imports) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    return { tier: reasons.length === 0 ? 'unit' : 'integration', reasons };
  }

  private factsOf(file: string): FileFacts {
    let facts = this.facts.get(file);
    if (!facts) {
      facts = factsOf(file, this.tree);
      this.facts.set(file, facts);
    }
    return facts;
  }
}

/** Every `*.test.ts` file under test/ at any depth (repository-relative, sorted): what the suite's include pattern matches. */
function testFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(rel);
      } else if (entry.name.endsWith('.test.ts')) out.push(rel);
    }
  };
  walk('test');
  return out.sort();
}

/** Every test file of the repository at `root`, by tier. */
export function classifyTests(root: string): Record<Tier, string[]> {
  const classifier = new TierClassifier(diskTree(root));
  const byTier: Record<Tier, string[]> = { unit: [], integration: [], e2e: [] };
  for (const file of testFiles(root)) byTier[classifier.tierOf(file).tier].push(file);
  return byTier;
}

/** What the sequencer knows of a test file: its tier, the duration recorded for it on an earlier run (ms), its size. */
export interface RunFacts {
  tier: Tier;
  duration: number | undefined;
  size: number;
}

/** Run order, end-to-end tier first: the tier whose files take longest. */
const RUN_ORDER: readonly Tier[] = ['e2e', 'integration', 'unit'];

/**
 * Longest first (the classic longest-processing-time schedule: the workers end
 * close together). Files with a recorded duration are ordered by it; a file
 * never run here has none and goes first (it may be long), ordered by tier,
 * end-to-end first, then by size, larger first.
 */
export function longestFirst(a: RunFacts, b: RunFacts): number {
  if (a.duration !== undefined && b.duration !== undefined) return b.duration - a.duration;
  if (a.duration !== undefined) return 1;
  if (b.duration !== undefined) return -1;
  return RUN_ORDER.indexOf(a.tier) - RUN_ORDER.indexOf(b.tier) || b.size - a.size;
}
