/**
 * Node's module compile cache for the one-shot commands (Node ≥ 22.1,
 * `module.enableCompileCache`): V8 keeps the code it compiled for the CLI's
 * chunks and a later process loads it instead of compiling again (measured:
 * `edit --dry-run` ~7% less CPU on Node 22 and 24; docs/benchmarks.md, "CLI
 * start-up, round 3"). Node 20 has no such cache: nothing happens there.
 *
 * Where: in this user's private runtime folder ($XDG_RUNTIME_DIR), the one
 * the warm hook server's socket lives in (hook-socket.ts: 0700, ours, not a
 * link — or not used), never a temp folder (Node's own pick, or the socket's
 * fallback when there is no runtime folder: no cache then). A cache entry is
 * code this process runs: V8 checks it against a hash of the source, so an
 * entry someone else planted for our source would run their bytecode as us.
 * A folder that is another user's, open to others, or a link is not used
 * (the command then compiles as before). `NODE_COMPILE_CACHE` set by the
 * person is theirs (Node enabled it at start); `EDITWARDEN_COMPILE_CACHE=off`
 * or Node's `NODE_DISABLE_COMPILE_CACHE` turns ours off.
 *
 * Loaded by bin/editwarden as one CommonJS file (scripts/bundle-cli.mjs),
 * before the CLI: Node's built-ins only.
 */
import module from 'node:module';
import path from 'node:path';
import { ensurePrivateDir, socketDir } from './hook-socket.js';

type Enable = (dir: string) => { status?: number; directory?: string } | undefined;

/** The folder the cache goes in, or null when none may be used (not this Node, turned off, a folder not private and ours). */
export function compileCacheDir(env: NodeJS.ProcessEnv): string | null {
  // NODE_DISABLE_COMPILE_CACHE: Node would ignore the call anyway (the test run sets it); no folder is made then.
  if (env.EDITWARDEN_COMPILE_CACHE === 'off' || env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return null;
  return privateCacheDir(env, 'compile-cache');
}

/**
 * `name` in this user's private runtime folder, made 0700 if missing, or null when it may not hold compiled code.
 * The one rule for every cache of code we run (Node's compile cache here, the V8 code cache of code-cache.ts).
 */
export function privateCacheDir(env: NodeJS.ProcessEnv, name: string): string | null {
  // No runtime folder (ssh without logind, CI): the socket folder falls back to the temp folder, which an agent's
  // command may write under a client's own sandbox (Codex's workspace-write allows /tmp) — code planted there would
  // run as the next editwarden. A socket there is only a door the hook checks; a cache entry is code: none, then.
  if (!env.XDG_RUNTIME_DIR) return null;
  const base = socketDir(env);
  if (ensurePrivateDir(base) !== null) return null;
  const dir = path.join(base, name);
  return ensurePrivateDir(dir) === null ? dir : null;
}

/**
 * Turns the cache on for what this process loads from now on; the folder used, or null. `enable`: Node's, by default
 * (undefined on a Node without the cache); null says "this Node has none".
 */
export function enableCompileCache(env: NodeJS.ProcessEnv, enable: Enable | null | undefined = (module as { enableCompileCache?: Enable }).enableCompileCache): string | null {
  if (typeof enable !== 'function') return null;
  const dir = compileCacheDir(env);
  if (dir === null) return null;
  try {
    enable(dir);
  } catch {
    // A cache that cannot be used only costs the compile.
    return null;
  }
  return dir;
}
