// A Workspace over a host directory for unit tests of service parts that take one (the code index):
// a real session runtime, started unisolated on that directory, as TOOLGATE_SANDBOX=none would.
import { findPrlimit, findShell } from '../../src/runtime/runner/host.js';
import { runtimeBundle } from '../../src/runtime/bundle.js';
import { unisolatedRuntimeBackend } from '../../src/runtime/backends/unisolated.js';
import { SessionRuntime } from '../../src/runtime/session-runtime.js';
import { Workspace } from '../../src/runtime/workspace.js';

export function workspaceAt(root: string): { workspace: Workspace; close(): Promise<void> } {
  const backend = unisolatedRuntimeBackend(findShell(), findPrlimit(), runtimeBundle(), 'unit test');
  const runtime = new SessionRuntime(
    'unit-test',
    root,
    undefined,
    backend,
    { idleMs: 60_000, hangMs: 10_000, quotaBytes: 0 },
    { started: () => undefined, crashed: () => undefined, stderr: () => undefined },
  );
  return { workspace: new Workspace(runtime), close: () => runtime.stop() };
}
