/**
 * Node's built-ins that only some paths of a command use, required on first
 * use. An ES module's `import … from 'node:child_process'` loads the module
 * (and `net` and `dgram` behind it) when the importing file loads, so every
 * command that merely bundles a file able to spawn paid for it: `undo`,
 * `checkpoint`, `report`, `init` and the MCP server's start spawn nothing.
 * Required here, each is loaded by the first call that needs it
 * (test/cli/lazy-commands.test.ts pins which commands load which).
 *
 * Must never: import anything of editwarden, or load a module before it is asked for.
 */
import { createRequire } from 'node:module';

// Not named `require`: the bundles rewrite `import.meta.url` into code that calls the real one (scripts/bundle-cli.mjs).
const requireBuiltin = createRequire(import.meta.url);

/** `node:child_process`, loaded on the first spawn. */
export function childProcess(): typeof import('node:child_process') {
  return requireBuiltin('node:child_process') as typeof import('node:child_process');
}
