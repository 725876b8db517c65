// The runtime process's own environment: where it works and how it starts commands. Commands get
// their environment per spawn (see runtime/commands.ts), never this one.
export const runtimeEnv = (
  root: string,
  shell: string,
  prlimit: string | undefined,
  processLimit: boolean,
  quotaBytes: number,
  egressSocket: string | undefined,
  egressCopy = false,
): Record<string, string> => ({
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/tmp',
  LANG: 'C.UTF-8',
  TOOLGATE_RUNTIME_ROOT: root,
  TOOLGATE_RUNTIME_SHELL: shell,
  TOOLGATE_RUNTIME_PRLIMIT: prlimit ?? '',
  TOOLGATE_RUNTIME_PROCESS_LIMIT: processLimit ? '1' : '0',
  TOOLGATE_RUNTIME_QUOTA_BYTES: String(quotaBytes),
  // The runtime relays 127.0.0.1:<port> to this socket and points its commands' proxy variables there.
  ...(egressSocket !== undefined ? { TOOLGATE_RUNTIME_EGRESS: egressSocket } : {}),
  // Its relay copies in JavaScript rather than splice (src/network/splice-forwarder.ts).
  ...(egressCopy ? { TOOLGATE_RUNTIME_EGRESS_COPY: '1' } : {}),
});

/** Where the egress socket appears inside a sandbox. */
export const SANDBOX_EGRESS_SOCKET = '/run/toolgate/egress.sock';

/** Where the directory of the service's ingress socket (previews, src/preview/ingress.ts) appears inside. */
export const SANDBOX_INGRESS_DIR = '/run/toolgate/ingress';
/** The ingress socket's name in its directory. */
export const INGRESS_SOCKET_FILE = 'ingress.sock';
/** Its sibling that takes connected sockets themselves (src/preview/fd-receiver.ts). */
export const INGRESS_FD_SOCKET_FILE = 'ingress-fd.sock';

/** The runtime's variable naming the ingress socket as it sees it (none: no previews). */
export const ingressEnv = (dir: string | undefined): Record<string, string> =>
  dir !== undefined ? { TOOLGATE_RUNTIME_INGRESS: dir } : {};

/**
 * Node flags of every runtime process: an idle runtime should cost little memory (many live sessions
 * each have one). A small young generation and no V8 worker threads save several MB each; the runtime's
 * work is I/O, not JavaScript that needs the optimizing compiler's helpers.
 */
export const RUNTIME_NODE_FLAGS = ['--max-semi-space-size=1', '--v8-pool-size=0'];

/**
 * Runtimes that outlive the service (containers, pods) keep the last this many bytes of each job's output
 * for a service that re-attaches after a restart (see inside/kept-output.ts).
 */
export const KEEP_OUTPUT_BYTES = 1024 * 1024;
