import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is older than src/: the binary the tests drive is never stale.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real processes and real disks: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
  },
});
