/**
 * The CLI a thin client (hook-client.ts, hook-shell-client.ts, edit-client.ts) runs in its own process when no
 * warm server takes its call: the hook server's CommonJS bundle (dist/cli-command/hook-server/cli.cjs), which holds
 * the hook, edit and shell commands themselves, compiled with the V8 code cache of an earlier run (code-cache.ts) —
 * instead of the shared ES module bundle's 30–60 chunks, compiled again on every call; the shared bundle when no
 * cache may be used (no private runtime folder, or turned off). The one-shot commands' flag
 * (`--liftoff-only`) is set first, as bin/editwarden sets it, and is part of the cache entry's identity.
 *
 * Imported by the thin clients: Node's built-ins only, and the loader is required only here, on this slow path.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** What a thin client calls of the CLI. */
export interface InProcessCli {
  main(argv: string[]): Promise<void>;
  run(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv }): Promise<number>;
  tolerateClosedReaders(): void;
}

/**
 * Sets the one-shot flag and loads the CLI (import.meta.dirname: dist/cli/, where tsc put this module) for `command`
 * (hook, edit or shell: each keeps its own cache entry, holding the code its runs compiled — a shell run from an
 * entry an edit made compiled ~20 ms more).
 */
export async function inProcessCli(command: 'hook' | 'edit' | 'shell'): Promise<InProcessCli> {
  const flags = ['--liftoff-only'];
  const v8 = await import('node:v8');
  for (const flag of flags) v8.setFlagsFromString(flag);
  // Not named `require`: in a CommonJS bundle that would shadow the bundle's own, and esbuild would rename it.
  const requireHere = createRequire(path.join(import.meta.dirname, 'in-process.js'));
  const cache = requireHere('../hook-client/code-cache.cjs') as { codeCacheDir(env: NodeJS.ProcessEnv): string | null; loadBundle(file: string, env: NodeJS.ProcessEnv, flags: readonly string[], variant: string): unknown };
  // Without a cache the whole server bundle costs more to compile than the shared bundle's chunks the command needs
  // (`edit --dry-run` ~20 ms of CPU more on Node 20): the shared bundle then, as before; and for a build without it.
  if (cache.codeCacheDir(process.env) !== null) {
    const file = path.join(import.meta.dirname, '../cli-command/hook-server/cli.cjs');
    try {
      return cache.loadBundle(file, process.env, flags, command) as InProcessCli;
    } catch (error) {
      if (!((error as NodeJS.ErrnoException).code === 'ENOENT' && (error as NodeJS.ErrnoException).path === file)) throw error;
    }
  }
  const { pathToFileURL } = await import('node:url');
  return (await import(pathToFileURL(path.join(import.meta.dirname, '../cli-bundle/cli.mjs')).href)) as InProcessCli;
}
