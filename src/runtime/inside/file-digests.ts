// SHA-256 of workspace files, remembered by inode identity (device, inode, size, mtime, ctime) so a
// conditional GET of an unchanged file does not read it twice. Any change to the file changes its ctime.
import { createHash } from 'node:crypto';
import type { promises as fs, Stats } from 'node:fs';

const MAX_REMEMBERED = 4096;
const remembered = new Map<string, string>();

const keyOf = (stat: Stats): string => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;

export function rememberDigest(stat: Stats, sha256: string): void {
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(keyOf(stat), sha256);
}

/** The hash of the open file `handle` (whose fstat is `stat`), read through it unless remembered. */
export async function digestOf(handle: fs.FileHandle, stat: Stats, signal?: AbortSignal): Promise<string> {
  const known = remembered.get(keyOf(stat));
  if (known) return known;
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let position = 0; ;) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  const digest = hash.digest('hex');
  rememberDigest(stat, digest);
  return digest;
}
