// TOOLGATE_SANDBOX=none: the same runtime program, started directly in the workspace directory with
// the service's privileges. Nothing confines it; every status reports `isolated: false`.
import { spawn } from 'node:child_process';
import type { RuntimeBackend, RuntimeStart } from './types.js';
import { ingressEnv, runtimeEnv, RUNTIME_NODE_FLAGS } from './env.js';
import { launchInCpuGroup } from '../runner/cpu-cgroup.js';

export function unisolatedRuntimeBackend(
  shell: string,
  prlimit: string | undefined,
  bundle: string,
  detail: string,
): RuntimeBackend {
  return {
    name: 'none',
    isolated: false,
    detail,
    nodePath: process.execPath,
    start(request: RuntimeStart) {
      // Overlay workspaces are only made for the bwrap backend (see sandbox/overlay-workspaces.ts).
      if (request.overlay) throw new Error('the unisolated runtime cannot mount an overlay workspace');
      // Nothing confines its network either: the egress socket is offered (proxy variables point at it),
      // but a command may connect anywhere the host can. Only tools in the service (web_fetch) are held.
      const env = {
        ...runtimeEnv(
          request.workspaceRoot,
          shell,
          prlimit,
          false,
          request.quotaBytes,
          request.egressSocket,
          request.egressCopy,
        ),
        ...ingressEnv(request.ingressDir),
      };
      const launch = launchInCpuGroup(
        { file: process.execPath, args: [...RUNTIME_NODE_FLAGS, bundle] },
        request.cpuGroup,
      );
      return spawn(launch.file, launch.args, {
        cwd: request.workspaceRoot,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    },
    // No pid namespace: the pid the runtime sees is the host's.
    runtimePid: (runtime) => runtime.pid,
    hostPid: (_runtime, _innerRuntimePid, innerPid) => innerPid,
  };
}
