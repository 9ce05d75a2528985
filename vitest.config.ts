import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real processes and real disks: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
  },
});
