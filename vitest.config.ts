import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { classifyTests, longestFirst, TIERS, type Tier } from './test/tiers.js';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

// The three tiers (docs/architecture.md, "Test tiers"), decided by test/tiers.ts from each file's name and imports:
// a new test file lands in its tier without anyone editing a list. `--project unit` (npm run test:unit) runs one.
const byTier = classifyTests(ROOT);

/**
 * The longest files first, so the workers finish together (a long file started last is the run's whole tail):
 * by the duration vitest recorded for each file on this machine, and on a fresh clone (no record yet) end-to-end
 * first, then integration, then unit, each larger file first.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const facts = (spec: TestSpecification) => {
      const key = `${spec.project.name}:${path.relative(ROOT, spec.moduleId)}`;
      return { tier: spec.project.name as Tier, duration: this.ctx.cache.getFileTestResults(key)?.duration, size: this.ctx.cache.getFileStats(key)?.size ?? 0 };
    };
    return [...files].sort((a, b) => longestFirst(facts(a), facts(b)));
  }
}

export default defineConfig({
  test: {
    // Run once per `vitest run`, whichever tiers it runs (a project of its own would run them once per project):
    // global-setup: builds dist/ when it is older than src/, so the binary the tests drive is never stale.
    // global-temp: a private TMPDIR for the run; the run fails when a test leaves anything in it.
    globalSetup: ['test/global-setup.ts', 'test/global-temp.ts'],
    // Two workers per core: an integration test spends much of its time waiting (on the child process it started,
    // a socket, a sleep, an fsync) while its worker holds no CPU, so with one worker per core a core sits idle.
    // Measured on 2 cores (docs/benchmarks.md, "Test tiers"): twelve of the slowest integration files took 87 s
    // with 2 workers, 77 s with 3, 59 s with 4 and 59 s with 6, for the same CPU time (74-75 s).
    maxWorkers: 2 * os.availableParallelism(),
    sequence: { sequencer: LongestFirst },
    // vitest's own report, then one line with each tier's counts and time (test/tier-summary.ts; .ci/run prints it).
    reporters: ['default', './test/tier-summary.ts'],
    // Inline projects inherit nothing from this config: each tier states its own options.
    projects: TIERS.filter((tier) => byTier[tier].length > 0).map((tier) => ({
      test: {
        name: tier,
        include: byTier[tier],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        // Unit and integration files share their worker's process and module cache instead of each starting a fresh
        // one: CPU is the suite's floor on 2 cores, and this cut a fifth of the integration tier's (294 s → 237 s) and
        // a quarter of the unit tier's (36.5 s → 27.5 s; docs/benchmarks.md, "Suite time"). It also runs the product as
        // a long-running process, as the MCP and hook servers are: a default object shared by every config of the
        // process was found this way (test/config/fresh-defaults.test.ts). A test that needs modules fresh from their
        // start imports them after vi.resetModules() (test/ast/lazy.test.ts). e2e keeps a process per file (eight
        // files, each its own process trees: nothing to gain).
        isolate: tier === 'e2e',
        // The unit tier's promise kept at run time too: a process started there fails the test (test/unit-guard.ts).
        // The other tiers make temp trees: each file's are removed when it ends (test/temp-dirs-setup.ts).
        setupFiles: tier === 'unit' ? ['test/unit-guard.ts'] : ['test/temp-dirs-setup.ts'],
      },
    })),
  },
});
