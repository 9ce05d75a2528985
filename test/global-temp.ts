/**
 * Every test removes what it creates in the temp folder, and the run proves
 * it: before any test file runs, TMPDIR is pointed at a fresh private folder
 * (`editwarden-test-run-*` inside the caller's temp folder), which every
 * worker, every child process that inherits the environment and every
 * `os.tmpdir()` then uses; when the run ends, a folder that is not empty
 * fails the run (exit code 1) and the leftovers are listed, each with the
 * prefix that names the helper that made it. The folder is removed either
 * way, so a failed run leaves nothing behind in the caller's temp folder.
 *
 * Sandboxed commands see their own private /tmp (bubblewrap's tmpfs, with
 * TMPDIR=/tmp inside), so what they write there vanishes with the sandbox and
 * is never counted; the project roots they run in live here and are.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export const RUN_PREFIX = 'editwarden-test-run-';
export const XDG_PREFIX = 'editwarden-test-xdg-';

/** The entries left in `dir`, sorted, each with `/` after a folder. */
/**
 * Node's own module compile cache (Node >= 22.1, written by npm and any tool that enables it): a runtime's cache,
 * not a test's leftover. The run turns it off (NODE_DISABLE_COMPILE_CACHE below), but a child whose environment is
 * an allowlist (a sandboxed command's, a client's hook) does not carry that switch and still writes it there.
 */
const RUNTIME_CACHES = new Set(['node-compile-cache/']);

export function leftovers(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .filter((name) => !RUNTIME_CACHES.has(name))
    .sort();
}

/** The report printed when a run leaves files behind: one line per prefix, with a count and examples. */
export function describeLeftovers(names: readonly string[]): string {
  const byPrefix = new Map<string, string[]>();
  for (const name of names) {
    // mkdtemp adds 6 random characters after the prefix: group by what comes before them.
    const prefix = name.replace(/[A-Za-z0-9]{6}\/?$/, '*');
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), name]);
  }
  const lines = [...byPrefix].map(([prefix, all]) => `  ${prefix}  ×${all.length}  (e.g. ${all.slice(0, 2).join(', ')})`);
  return `tests left ${names.length} entr${names.length === 1 ? 'y' : 'ies'} in the temp folder; every test must remove what it creates (try/finally, afterEach or afterAll):\n${lines.join('\n')}`;
}

/**
 * The test run's Node processes without NODE_EXTRA_CA_CERTS, npm keeping the
 * same trust.
 *
 * Node 20 reads and parses the file NODE_EXTRA_CA_CERTS names when each
 * process starts, whether or not it ever speaks TLS (Node 22 and 24 read it on
 * first use). Where it names a machine's whole bundle (/etc/ssl/certs/
 * ca-certificates.crt, 144 certificates here) that is ~50 ms of CPU per
 * process: `node -e 0` 76 → 28 ms, `editwarden edit --dry-run` 221 → 171 ms
 * (20 interleaved runs each, load 20-22; docs/benchmarks.md, "Suite time").
 * The suite starts thousands of Node processes (the CLI, hook clients,
 * servers, sandboxed builds), none of which speaks TLS to a real host but npm
 * (test/package/pack-install.test.ts installs the tarball's dependencies from
 * the registry through the local cache). So the run drops the variable and
 * gives npm the same trust through its own `cafile` setting: Node's built-in
 * roots plus the extra file's certificates, which is what the variable meant
 * (npm's `cafile` replaces the roots, so both go in). A `cafile` or `ca` the
 * person set for npm is theirs and left alone.
 *
 * Removes NODE_EXTRA_CA_CERTS from `env`; when it named a readable file and npm has no CA setting of its own, writes
 * Node's roots and that file's certificates to `dir`/npm-ca.pem and points npm's `cafile` at it. Returns the file
 * written, or null.
 */
export function dropEagerCaBundle(env: NodeJS.ProcessEnv, dir: string): string | null {
  const extra = env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_EXTRA_CA_CERTS;
  if (!extra || env.npm_config_cafile !== undefined || env.npm_config_ca !== undefined) return null;
  let added: string;
  try {
    added = fs.readFileSync(extra, 'utf8');
  } catch {
    // Node itself warns and goes on without a file it cannot read: npm keeps Node's roots alone.
    return null;
  }
  const file = path.join(dir, 'npm-ca.pem');
  fs.writeFileSync(file, `${tls.rootCertificates.join('\n')}\n${added}`, { mode: 0o600 });
  env.npm_config_cafile = file;
  return file;
}

export default function setup(): () => void {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), RUN_PREFIX)));
  // The person's own config and trust records (XDG folders) are never the real user's: a run has its own, empty
  // ones beside its temp folder (not in it: a trust record a test leaves is not a leftover of that test's files).
  const xdg = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), XDG_PREFIX)));
  // XDG_RUNTIME_DIR too: the hook server's socket folder and the MCP HTTP token live there, not in the run's TMPDIR.
  for (const [name, sub] of [
    ['XDG_CONFIG_HOME', 'config'],
    ['XDG_DATA_HOME', 'data'],
    ['XDG_RUNTIME_DIR', 'runtime'],
  ] as const) {
    fs.mkdirSync(path.join(xdg, sub), { mode: 0o700 });
    process.env[name] = path.join(xdg, sub);
  }
  process.env.TMPDIR = dir;
  // A hook server a test's hook started ends itself soon after the run, not ten minutes later.
  process.env.EDITWARDEN_HOOK_SERVER_IDLE_MS ??= '20000';
  // npm (and any Node tool) on Node >= 22.1 turns on Node's module compile
  // cache, which lives in os.tmpdir()/node-compile-cache: a tool's cache, not
  // a test's leftover. The run keeps it off, so the folder proves only what
  // tests leave (seen on Node 22 in CI: the pack-install test's npm children).
  process.env.NODE_DISABLE_COMPILE_CACHE = '1';
  // ~50 ms of CPU off every Node process the run starts on Node 20, npm keeping its trust (dropEagerCaBundle above).
  dropEagerCaBundle(process.env, xdg);
  return () => {
    const left = leftovers(dir);
    fs.rmSync(xdg, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    // A killed build may still be finishing its last writes: retry the removal.
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    if (left.length === 0) return;
    console.error(`\n${describeLeftovers(left)}\n`);
    // A throwing teardown is only logged by vitest; the exit code is what fails `npm test` and CI.
    process.exitCode = 1;
  };
}
