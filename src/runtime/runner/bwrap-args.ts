// The bubblewrap command line for one sandboxed command: fresh namespaces (no network), the system
// read-only, only the session's workspace writable at /workspace, private /tmp and /proc, a minimal /dev.
// Nothing of the data dir is visible except the three small /etc files toolgate generates for the sandbox.
import path from 'node:path';
import type { ResourceLimits } from './types.js';
import { prlimitArgs } from './prlimit.js';

export const SANDBOX_WORKSPACE = '/workspace';
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;
/** Private tmpfs sizes: a writable tmpfs is RAM, so it must be bounded. */
const TMP_BYTES = 256 * 1024 * 1024;
const SHM_BYTES = 64 * 1024 * 1024;

/** Files of the host's /etc that programs need to start; secrets (shadow, ssh keys…) are not among them. */
const ETC_FILES = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'nsswitch.conf',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'mime.types',
  'protocols',
  'services',
  'os-release',
  'debian_version',
  'bash.bashrc',
  'profile',
  'inputrc',
  'gitconfig',
  'python3',
  'python3.11',
];

/** How the host lays out its top-level system directories (merged /usr or not), found once at start. */
export interface HostLayout {
  /** Top-level entries such as /bin: a symlink target (e.g. "usr/bin") or "dir" to bind it read-only. */
  readonly topLevel: ReadonlyArray<{ name: string; symlink?: string }>;
  /** Directory with the generated passwd, group and hosts files. */
  readonly etcDir: string;
  readonly shell: string;
  readonly prlimit: string;
}

export function bwrapArgs(
  layout: HostLayout,
  workspaceRoot: string,
  cwd: string,
  command: string,
  limits: ResourceLimits,
  env: Readonly<Record<string, string>>,
): string[] {
  const args = namespaceArgs(layout, workspaceRoot, env);
  args.push('--chdir', cwd === '.' ? SANDBOX_WORKSPACE : path.posix.join(SANDBOX_WORKSPACE, cwd));
  args.push('--', layout.prlimit, ...prlimitArgs(limits, true), layout.shell, '-c', command);
  return args;
}

/**
 * The namespace every sandboxed process of a session lives in (its runtime and, through it, its
 * commands): the workspace at /workspace, the system read-only, private /tmp, /proc and /dev, and a
 * network namespace of its own with nothing but loopback. Never the host's network namespace (bwrap's
 * share-net option): a session with the network reaches out only through its egress socket, bound in by
 * the backend.
 */
export function namespaceArgs(
  layout: HostLayout,
  workspaceRoot: string,
  env: Readonly<Record<string, string>>,
): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--hostname', 'toolgate'];
  // The command's environment is set inside the sandbox only. bwrap itself runs on the host with the
  // service's privileges and a fixed environment: a caller's LD_PRELOAD must never reach it.
  args.push('--clearenv');
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  args.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID));
  args.push('--ro-bind', '/usr', '/usr');
  for (const entry of layout.topLevel) {
    if (entry.symlink !== undefined) args.push('--symlink', entry.symlink, `/${entry.name}`);
    else args.push('--ro-bind', `/${entry.name}`, `/${entry.name}`);
  }
  for (const file of ETC_FILES) args.push('--ro-bind-try', `/etc/${file}`, `/etc/${file}`);
  for (const file of ['passwd', 'group', 'hosts']) {
    args.push('--ro-bind', path.join(layout.etcDir, file), `/etc/${file}`);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev');
  args.push('--size', String(SHM_BYTES), '--tmpfs', '/dev/shm');
  args.push('--size', String(TMP_BYTES), '--tmpfs', '/tmp');
  args.push('--bind', workspaceRoot, SANDBOX_WORKSPACE);
  return args;
}

/** The generated /etc files: the sandbox user has a name and a home, and localhost resolves. */
export const SANDBOX_ETC: Record<string, string> = {
  passwd: `root:x:0:0:root:/root:/bin/sh\nuser:x:${SANDBOX_UID}:${SANDBOX_GID}:toolgate:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  group: `root:x:0:\nuser:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`,
  hosts: '127.0.0.1 localhost toolgate\n::1 localhost ip6-localhost\n',
};
