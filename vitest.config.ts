import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // global-setup: builds dist/ when it is older than src/, so the binary the tests drive is never stale.
    // global-temp: a private TMPDIR for the run; the run fails when a test leaves anything in it.
    globalSetup: ['test/global-setup.ts', 'test/global-temp.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real processes and real disks: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
  },
});
