import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const shared = {
  include: ['test/**/*.test.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Temp dirs a test file made with tempDir are removed when it ends.
  setupFiles: ['test/setup-temp-dirs.ts'],
  // Test files share a worker's module cache instead of importing the app afresh for each file: that
  // took 137 of the suite's 505 s here. Every test builds its own app (buildApp) on its own temp data
  // dir and workspace, and no test changes process-wide state (env, cwd, umask, globals), so nothing
  // a file leaves behind is seen by the next one.
  isolate: false,
  // At least two test files at a time: vitest's default (cores - 1) is one worker on a 2-core machine,
  // and most of a test's time is spent waiting on child processes (runtimes, sandboxes, servers), not
  // on the worker's CPU: 313 s with one worker here, 213 s with two. TOOLGATE_TEST_WORKERS overrides.
  maxWorkers: Number(process.env.TOOLGATE_TEST_WORKERS ?? Math.max(2, availableParallelism() - 1)),
};

// The suite runs against the bwrap runtime (TOOLGATE_SANDBOX=auto); with TOOLGATE_TEST_BOTH_SANDBOXES=1
// (set by .ci/run) it runs a second time against the unisolated runtime (TOOLGATE_SANDBOX=none).
export default defineConfig({
  test: {
    ...shared,
    // A fresh temp dir per run; the run fails when a test leaves anything in it (see the file).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { test: { ...shared, name: 'bwrap' } },
      ...(process.env.TOOLGATE_TEST_BOTH_SANDBOXES === '1'
        ? [{ test: { ...shared, name: 'none', env: { TOOLGATE_TEST_SANDBOX: 'none' } } }]
        : []),
    ],
  },
});
