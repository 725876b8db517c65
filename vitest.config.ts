import { defineConfig } from 'vitest/config';

const shared = {
  include: ['test/**/*.test.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Test files share a worker's module cache instead of importing the app afresh for each file: that
  // took 137 of the suite's 505 s here. Every test builds its own app (buildApp) on its own temp data
  // dir and workspace, and no test changes process-wide state (env, cwd, umask, globals), so nothing
  // a file leaves behind is seen by the next one.
  isolate: false,
};

// The suite runs against the bwrap runtime (TOOLGATE_SANDBOX=auto); with TOOLGATE_TEST_BOTH_SANDBOXES=1
// (set by .ci/run) it runs a second time against the unisolated runtime (TOOLGATE_SANDBOX=none).
export default defineConfig({
  test: {
    ...shared,
    projects: [
      { test: { ...shared, name: 'bwrap' } },
      ...(process.env.TOOLGATE_TEST_BOTH_SANDBOXES === '1'
        ? [{ test: { ...shared, name: 'none', env: { TOOLGATE_TEST_SANDBOX: 'none' } } }]
        : []),
    ],
  },
});
