// The isolated backend: the runtime runs in a bubblewrap namespace that holds the workspace at
// /workspace, the system read-only, and nothing else of the host: no data dir, no other workspace.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { namespaceArgs, SANDBOX_WORKSPACE, type HostLayout } from '../runner/bwrap-args.js';
import type { RuntimeBackend, RuntimeProcess, RuntimeStart } from './types.js';
import { findChild, findDescendant } from './host-pids.js';
import {
  ingressEnv,
  runtimeEnv,
  RUNTIME_NODE_FLAGS,
  SANDBOX_EGRESS_SOCKET,
  SANDBOX_INGRESS_DIR,
} from './env.js';
import { withOverlay } from './overlay-mount.js';
import { launchInCpuGroup } from '../runner/cpu-cgroup.js';

const NODE = '/toolgate/node';
const BUNDLE = '/toolgate/runtime.cjs';
/** The environment of bwrap itself: fixed, never a caller's. */
const HOST_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

export function bwrapRuntimeBackend(
  bwrap: string,
  layout: HostLayout,
  bundle: string,
  detail: string,
): RuntimeBackend {
  const node = realpathSync(process.execPath);
  /** Host pid of each runtime's node process, found once (bwrap → its pid 1 → node). */
  const runtimeHostPids = new WeakMap<RuntimeProcess, number>();
  const runtimePid = (runtime: RuntimeProcess, innerRuntimePid: number): number | undefined => {
    if (runtime.pid === undefined) return undefined;
    let nodePid = runtimeHostPids.get(runtime);
    if (nodePid === undefined) {
      nodePid = findDescendant(runtime.pid, innerRuntimePid);
      if (nodePid === undefined) return undefined;
      runtimeHostPids.set(runtime, nodePid);
    }
    return nodePid;
  };
  return {
    name: 'bwrap',
    isolated: true,
    detail,
    nodePath: NODE,
    start(request: RuntimeStart) {
      const egress = request.egressSocket !== undefined ? SANDBOX_EGRESS_SOCKET : undefined;
      const env = {
        ...runtimeEnv(
          SANDBOX_WORKSPACE,
          layout.shell,
          layout.prlimit,
          true,
          request.quotaBytes,
          egress,
          request.egressCopy,
        ),
        ...ingressEnv(request.ingressDir && SANDBOX_INGRESS_DIR),
      };
      // Its own network namespace always (--unshare-all): loopback only. The egress socket is the way out.
      const args = namespaceArgs(layout, request.workspaceRoot, env);
      if (request.egressSocket !== undefined)
        args.push('--bind', request.egressSocket, SANDBOX_EGRESS_SOCKET);
      // Previews: the service's ingress socket, which the runtime dials out to (read-only: it can connect,
      // never create or remove anything there).
      if (request.ingressDir !== undefined) args.push('--ro-bind', request.ingressDir, SANDBOX_INGRESS_DIR);
      // Tool folders and MCP server packages, at their host paths so commands name them alike in both
      // backends; read-only, and after the private /tmp so a folder under /tmp is still seen.
      for (const dir of request.readOnlyPaths) args.push('--ro-bind', dir, dir);
      args.push('--ro-bind', node, NODE, '--ro-bind', bundle, BUNDLE, '--chdir', SANDBOX_WORKSPACE);
      args.push('--', NODE, ...RUNTIME_NODE_FLAGS, BUNDLE);
      // A forked session's copy-on-write workspace is mounted first, in a mount namespace of its own.
      const launch = launchInCpuGroup(
        request.overlay
          ? withOverlay(request.overlay, request.workspaceRoot, bwrap, args)
          : { file: bwrap, args },
        request.cpuGroup,
      );
      return spawn(launch.file, launch.args, { cwd: '/', env: HOST_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    },
    runtimePid,
    hostPid(runtime, innerRuntimePid, innerPid) {
      const nodePid = runtimePid(runtime, innerRuntimePid);
      return nodePid === undefined ? undefined : findChild(nodePid, innerPid);
    },
  };
}
