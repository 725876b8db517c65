// A forked session's workspace is an overlayfs view (read-only lower trees of the parent's snapshot plus
// the session's own upper dir), mounted when its runtime starts, in a mount namespace of the runtime's
// own: `unshare -m` runs a tiny shell that mounts the overlay over the (empty) workspace directory and
// then execs bwrap, which binds it at /workspace as usual. The service's mount table never holds it, a
// runtime restart mounts it again, and the mount disappears with the runtime's last process.
import type { OverlayMount } from './types.js';

/** The mount options: layers relative to the mount's cwd; redirect_dir so directories can be renamed. */
export const overlayOptions = (mount: OverlayMount): string =>
  `lowerdir=${mount.lowerDirs.join(':')},upperdir=${mount.upperDir},workdir=${mount.workDir},redirect_dir=on`;

/** Names in the option string are ours (hex and session ids); anything else is refused, not escaped. */
const SAFE_LAYER = /^[A-Za-z0-9_./-]+$/;

/**
 * `file` and `args` that run `command` with the overlay mounted at `target` in a private mount namespace.
 * Needs real root (CAP_SYS_ADMIN): the caller only asks for it when the probe said overlays work.
 */
export function withOverlay(
  mount: OverlayMount,
  target: string,
  command: string,
  args: readonly string[],
): { file: string; args: string[] } {
  for (const dir of [...mount.lowerDirs, mount.upperDir, mount.workDir]) {
    if (!SAFE_LAYER.test(dir) || dir.split('/').includes('..')) throw new Error(`bad overlay layer: ${dir}`);
  }
  const script = 'cd "$1" && mount -t overlay overlay -o "$2" "$3" && shift 3 && exec "$@"';
  return {
    file: 'unshare',
    args: [
      '--mount',
      '--propagation',
      'private',
      '/bin/sh',
      '-c',
      script,
      'toolgate-overlay',
      mount.cwd,
      overlayOptions(mount),
      target,
      command,
      ...args,
    ],
  };
}
