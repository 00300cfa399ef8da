import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/helpers/setup.ts'],
    globalSetup: ['test/helpers/postgres-global.ts'],
    // A deadline for a test that hangs, not a speed check: tests that start a dozen CLI processes in
    // a row take 20 s on a busy machine, and two files run at once (below).
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one file at a time on two CPUs (CPUs - 1). Many files here mostly wait on
    // child processes (gateways, PostgreSQL, a three-minute cluster job test), so two at once keep
    // both CPUs busy and cut the suite's time by about a third; every wait in the tests is a
    // condition with a deadline, never a fixed sleep, so they hold under the shared load.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
