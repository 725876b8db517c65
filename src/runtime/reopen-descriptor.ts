// A file the runtime holds open, reopened for writing by the service through /proc/<pid>/fd/<n>. Used for
// uploads (routes/files.ts): the runtime creates the temp file (resolving the path confined, O_EXCL) and
// names its descriptor; the service writes the request body into that very file, with no second process
// and no copy through the frame pipe between them, and the runtime then syncs and renames it.
//
// No workspace path is looked up by the service here: /proc/<pid>/fd/<n> is a link to the open file
// itself, not to a name, so swapping a directory for a symlink cannot redirect it. A descriptor number is
// still the runtime's word, and a runtime that commands have tampered with could name another of its open
// files; so only a regular file on the workspace's own file system is accepted (checked before and after
// the open, by device and inode), opened write-only without creating, truncating or following anything
// further. Every other file the sandbox sees on that device is under a read-only bind mount, and the
// open of such a file for writing fails (EROFS) because the link keeps the sandbox's mount.
import { constants, promises as fs, type Stats } from 'node:fs';

export type FileHandle = fs.FileHandle;

/** Flags of the reopen: no controlling tty, no blocking on a FIFO, and nothing created or truncated. */
const WRITE_ONLY = constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK;

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;

/** The device of the workspace root (a directory the service made; it never looks inside). */
export const deviceOf = async (workspaceRoot: string): Promise<number | undefined> =>
  (await fs.stat(workspaceRoot).catch(() => undefined))?.dev;

/**
 * A write-only handle on the regular file that process `pid` (a host pid) holds as descriptor `fd`, when
 * that file lives on device `device`; undefined when it cannot be had (no /proc, no permission to look
 * into the process, another kind of file), and the caller then sends the bytes the slow way.
 */
export async function reopenForWriting(
  pid: number,
  fd: number,
  device: number,
): Promise<FileHandle | undefined> {
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(fd) || pid <= 0 || fd < 0) return undefined;
  const link = `/proc/${pid}/fd/${fd}`;
  let before: Stats;
  try {
    before = await fs.stat(link);
  } catch {
    return undefined;
  }
  if (!before.isFile() || before.dev !== device) return undefined;
  let handle: FileHandle;
  try {
    handle = await fs.open(link, WRITE_ONLY);
  } catch {
    return undefined;
  }
  try {
    const after = await handle.stat();
    if (after.isFile() && sameFile(before, after)) return handle;
  } catch {
    // fall through: closed below
  }
  await handle.close().catch(() => undefined);
  return undefined;
}
