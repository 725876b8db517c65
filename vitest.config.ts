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

/**
 * The tests that depend on what the session runtime is (file tools, commands, jobs, confinement, the race
 * soak, tool folders, MCP sources): the docker project runs these, not the whole suite, since the rest
 * (routes, stores, policies, engines) does not change with the backend.
 */
const RUNTIME_DEPENDENT = [
  'test/tools/edit/**/*.test.ts',
  'test/tools/filesystem/**/*.test.ts',
  'test/tools/execution/run_command.test.ts',
  'test/tools/execution/jobs.test.ts',
  'test/tools/execution/shells.test.ts',
  'test/routes/interactive.test.ts',
  'test/tools/execution/terminals.test.ts',
  'test/tools/execution/kernels.test.ts',
  'test/sandbox/runner-isolation.test.ts',
  'test/runtime/special-files.test.ts',
  'test/sources/**/*.test.ts',
  'test/system/race.test.ts',
  // Previews: a connection into the session goes through its runtime, wherever that runs.
  'test/preview/preview.test.ts',
];

/**
 * What the unisolated runtime (TOOLGATE_SANDBOX=none) is run against in the second pass: the tests that
 * go through a session runtime (the docker list, and every tool, transfer, snapshot, preview, sandbox,
 * network and code-intelligence test), not the routes, stores, policies and engines, which do not change
 * with the backend. The race soak runs CI-sized there: nothing is isolated on this backend.
 */
const UNISOLATED_PASS = [
  ...RUNTIME_DEPENDENT,
  'test/runtime/**/*.test.ts',
  'test/sandbox/**/*.test.ts',
  'test/tools/**/*.test.ts',
  'test/transfer/**/*.test.ts',
  'test/snapshots/**/*.test.ts',
  'test/preview/**/*.test.ts',
  'test/network/**/*.test.ts',
  'test/code/**/*.test.ts',
  'test/sources/**/*.test.ts',
];

/**
 * The tests whose outcome rests on the stores (sessions, audit and stats, history and undo, todos,
 * checkpoints, approvals, idempotency, tool switches, the console's API, the API's own tests): the
 * postgres project runs these again with every app and store on PostgreSQL (test/helpers/postgres.ts).
 */
const STATE_TOUCHING = [
  'test/store/**/*.test.ts',
  'test/routes/sessions.test.ts',
  'test/routes/smoke.test.ts',
  'test/routes/audit-stats.test.ts',
  'test/routes/console-api.test.ts',
  'test/routes/tool-switches.test.ts',
  'test/routes/duplicates.test.ts',
  'test/policies/approvals.test.ts',
  'test/policies/idempotency.test.ts',
  'test/policies/operator-reads.test.ts',
  'test/snapshots/changes.test.ts',
  'test/snapshots/checkpoints.test.ts',
  'test/tools/state/todos.test.ts',
  'test/tools/edit/safety.test.ts',
  'test/ops/retention.test.ts',
  'test/ops/capacity.test.ts',
  // Three replicas behind HAProxy (TOOLGATE_TEST_REPLICAS): on PostgreSQL here, on a shared SQLite file in bwrap.
  'test/system/replicas.test.ts',
];

// The suite runs against the bwrap runtime (TOOLGATE_SANDBOX=auto); with TOOLGATE_TEST_BOTH_SANDBOXES=1
// (set by .ci/run) the runtime-dependent part (UNISOLATED_PASS) runs a second time against the unisolated
// runtime (TOOLGATE_SANDBOX=none). With
// TOOLGATE_TEST_DOCKER=1 (set by .ci/run once dockerd runs and the runtime images are built) the
// runtime-dependent tests run a third time on the docker backend, in the python image (tool folders
// run Python). With TOOLGATE_TEST_BOTH_ENGINES=1 and a test server in TOOLGATE_TEST_DATABASE_URL (both set
// by .ci/run) the state-touching tests run once more with the stores on PostgreSQL.
export default defineConfig({
  test: {
    ...shared,
    // A fresh temp dir per run; the run fails when a test leaves anything in it (see the file).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { test: { ...shared, name: 'bwrap' } },
      ...(process.env.TOOLGATE_TEST_BOTH_SANDBOXES === '1'
        ? [
            {
              test: {
                ...shared,
                name: 'none',
                include: UNISOLATED_PASS,
                env: { TOOLGATE_TEST_SANDBOX: 'none', TOOLGATE_RACE_CALLS: '120' },
              },
            },
          ]
        : []),
      ...(process.env.TOOLGATE_TEST_DOCKER === '1'
        ? [
            {
              test: {
                ...shared,
                name: 'docker',
                include: RUNTIME_DEPENDENT,
                env: {
                  TOOLGATE_TEST_SANDBOX: 'docker',
                  TOOLGATE_TEST_RUNTIME_IMAGE: 'toolgate/runtime-python:1',
                  // The soak's CI size on this project (the bwrap project runs the 2,000-call one).
                  TOOLGATE_RACE_CALLS: '120',
                },
              },
            },
          ]
        : []),
      ...(process.env.TOOLGATE_TEST_BOTH_ENGINES === '1' && process.env.TOOLGATE_TEST_DATABASE_URL
        ? [
            {
              test: {
                ...shared,
                name: 'postgres',
                include: STATE_TOUCHING,
                env: { TOOLGATE_TEST_POSTGRES: '1' },
              },
            },
          ]
        : []),
    ],
  },
});
