/**
 * The unit tier's promise kept at run time (setupFiles of the `unit` project
 * in vitest.config.ts): a unit test starts no process. test/tiers.ts already
 * keeps out every file whose imports reach `node:child_process`; this catches
 * what an import graph cannot see, such as a dependency that spawns. Every
 * function of `node:child_process` that starts a process throws in the unit
 * worker, and `syncBuiltinESMExports` makes `import { spawn } from
 * 'node:child_process'` see the same throwing function.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(
        `a unit test started a process (child_process.${name}): the unit tier runs no process (docs/architecture.md, "Test tiers"). ` +
          'Test the pure part here, or move the test that needs a process to a file whose imports show it (import node:child_process there), which puts it in the integration tier.',
      );
    },
  });
}
syncBuiltinESMExports();
