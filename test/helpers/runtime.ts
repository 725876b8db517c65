// A Workspace over a host directory for unit tests of service parts that take one (the code index):
// a real session runtime, started unisolated on that directory, as TOOLGATE_SANDBOX=none would.
import { spawn } from 'node:child_process';
import { findPrlimit, findShell } from '../../src/runtime/runner/host.js';
import { runtimeBundle } from '../../src/runtime/bundle.js';
import { unisolatedRuntimeBackend } from '../../src/runtime/backends/unisolated.js';
import { runtimeEnv, RUNTIME_NODE_FLAGS } from '../../src/runtime/backends/env.js';
import type { RuntimeBackend } from '../../src/runtime/backends/types.js';
import { SessionRuntime } from '../../src/runtime/session-runtime.js';
import { Workspace } from '../../src/runtime/workspace.js';

export interface WorkspaceAtOptions {
  /**
   * The runtime's PATH instead of the fixed one: a machine without some program (ripgrep) is a PATH that
   * does not lead to it. The runtime process is started the same way, only its environment differs.
   */
  readonly path?: string;
}

export function workspaceAt(
  root: string,
  options: WorkspaceAtOptions = {},
): { workspace: Workspace; close(): Promise<void> } {
  const shell = findShell();
  const bundle = runtimeBundle();
  const backend = unisolatedRuntimeBackend(shell, findPrlimit(), bundle, 'unit test');
  const runtime = new SessionRuntime(
    'unit-test',
    root,
    undefined,
    options.path === undefined ? backend : withPath(backend, options.path, shell, bundle),
    { idleMs: 60_000, hangMs: 10_000, quotaBytes: 0 },
    { started: () => undefined, crashed: () => undefined, stderr: () => undefined },
  );
  return { workspace: new Workspace(runtime), close: () => runtime.stop() };
}

/**
 * The unisolated backend, its runtime started the same way (same program, flags, directory) with only
 * PATH replaced; process.env is not touched.
 */
function withPath(
  backend: RuntimeBackend,
  searchPath: string,
  shell: string,
  bundle: string,
): RuntimeBackend {
  return {
    ...backend,
    start: (request) =>
      spawn(process.execPath, [...RUNTIME_NODE_FLAGS, bundle], {
        cwd: request.workspaceRoot,
        env: {
          ...runtimeEnv(request.workspaceRoot, shell, findPrlimit(), false, request.quotaBytes, undefined),
          PATH: searchPath,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
  };
}
