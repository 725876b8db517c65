// The boundary of confinement, checked from the source: outside src/runtime/inside, only files that touch
// the service's own data (data dir, plugin dir, cgroups, /proc, the runtime bundle) may use the file system
// or start processes. Everything that touches a workspace goes through the session runtime. (ESLint's
// no-restricted-imports enforces the same for the tool, code, contract, engine, policy, protocol and route layers.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Files outside the runtime allowed to use node:fs or child_process, and why. */
const ALLOWED: Record<string, string> = {
  'cpu/cpu-worker.ts': 'reads /proc/thread-self to lower its own thread priority (never a workspace path)',
  'config/read-file.ts': 'reads the config file',
  'contract/plugins.ts': "loads plugin modules from the operator's plugin dir",
  'routes/health.ts': 'checks the data dir and the workspaces base dir are writable',
  'jobs/job-log.ts': 'job logs live in the data dir',
  'jobs/job-manager.ts': 'job log directories in the data dir',
  'store/admin-key.ts': 'the admin key file in the data dir',
  'store/audit.ts': 'the audit journal in the data dir',
  'store/blobs.ts': 'uploaded blobs in the data dir',
  'sandbox/templates.ts': "reads the operator's template directories (never a workspace)",
  'store/history.ts': 'history blobs in the data dir (workspace side goes through the runtime)',
  'snapshots/blob-store.ts':
    'snapshot blobs and manifests in the data dir (workspace side goes through the runtime)',
  'sandbox/workspaces.ts': 'creates and removes workspace roots (after the runtime emptied them)',
  'sandbox/overlay-workspaces.ts':
    "forks' lower trees (hard links to snapshot blobs), upper and work dirs in the data dir; never looks into a workspace",
  'runtime/runner/cgroup.ts': 'pids cgroups under /sys/fs/cgroup',
  'runtime/runner/cpu-cgroup.ts': "the sessions' cpu cgroups under /sys/fs/cgroup",
  'runtime/runner/host.ts': "the sandbox's generated /etc files, the host layout of /bin and /lib",
  'runtime/runner/runner.ts': 'probes bwrap with a scratch workspace of its own',
  'runtime/runner/spawn.ts': "starts the bwrap probe (the runtimes' commands start inside them)",
  'runtime/bundle.ts': 'writes the bundled runtime program to the temp dir',
  'ops/disk.ts': 'statfs of the data dir for readiness and metrics',
  'ops/capacity/host.ts': "reads /proc/meminfo, /proc/loadavg and the kernel's pid limits for admission",
  'preview/ingress.ts': "makes the directory of the previews' ingress socket in the data dir",
  'preview/fd-receiver.ts':
    'starts the ingress socket receiver (python3), which takes connected sockets from runtimes, never a file',
  'ops/startup.ts': 'creates the data dir and proves it writable before anything else starts',
  'runtime/backends/bwrap.ts': 'starts bwrap; resolves the node binary to bind',
  'runtime/backends/unisolated.ts': 'starts the unisolated runtime',
  'runtime/backends/docker/index.ts':
    "gives the workspace root itself (never anything inside) to the container's user; resolves the node binary and the data dir",
  'runtime/backends/docker/orphans.ts':
    "asks whether a container's directory of workspaces (its data dir's) still exists; never looks inside",
  'runtime/backends/docker/pool.ts':
    "makes a pooled container's empty workspace root and renames it onto a session's (the root itself, never inside)",
  'runtime/backends/host-pids.ts': "reads the host's /proc to find a held command's pid",
  'runtime/reopen-descriptor.ts':
    "reopens an upload's temp file through /proc/<pid>/fd/<n>: the runtime's open file, never a workspace path",
  'console/assets.ts': "reads the operator console's static files (console/ and uPlot) at start",
  'sources/folder/load.ts': "reads tool folders (definition.json, the entry) from the operator's tools dir",
  'lib/make-dirs.ts': 'mkdir -p with the real error; used inside the runtime and for the data dir',
  'sources/folder/watch.ts': "watches the operator's tools dir for tool folders added, changed or removed",
  'network/egress.ts': "the egress proxy's per-session Unix sockets in the data dir",
  'network/resolver.ts': "reads the operator's hosts file for the egress proxy",
  'network/splice-forwarder.ts':
    "starts the egress path's splice forwarders (python3), handed sockets only, never a file",
  'evals/dataset.ts':
    "reads eval datasets from the operator's files (a case's workspace files go through a session)",
  'evals/shipped.ts': 'lists the datasets shipped in evals/',
  'evals/eval-runs.ts': 'eval runs and their reports in the data dir',
  'runtime/wiring.ts':
    'looks for language server binaries (gopls, rust-analyzer, jdtls) in the system dirs the runtime sees',
};

// Type-only imports (a ChildProcess type) do not touch anything.
const USES_FS =
  /^import\s+(?!type\b)[^;]*?from\s+'((node:)?(fs|fs\/promises|child_process)|execa|fast-glob)'/m;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(SRC, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

describe('the workspace I/O boundary', () => {
  it('only the runtime, and files that touch the service’s own data, use the file system', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.startsWith('runtime/inside/'))
      .filter((file) => USES_FS.test(readFileSync(path.join(SRC, file), 'utf8')))
      .filter((file) => !(file in ALLOWED));
    expect(offenders).toEqual([]);
  });

  it('every allowed file still exists and still needs it (the list does not go stale)', () => {
    for (const file of Object.keys(ALLOWED)) {
      expect(USES_FS.test(readFileSync(path.join(SRC, file), 'utf8')), file).toBe(true);
    }
  });
});
