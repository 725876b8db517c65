// fs.Stats → the FileStat the protocol carries, and safe opening of regular files.
import { constants, promises as fs, type Stats } from 'node:fs';
import { toolgateError } from '../../lib/errors.js';
import type { EntryType, FileStat } from '../ops/files.js';

export function entryType(
  stat: Pick<
    Stats,
    | 'isFile'
    | 'isDirectory'
    | 'isSymbolicLink'
    | 'isFIFO'
    | 'isSocket'
    | 'isBlockDevice'
    | 'isCharacterDevice'
  >,
): EntryType {
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'directory';
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isBlockDevice() || stat.isCharacterDevice()) return 'device';
  return 'other';
}

export const toFileStat = (stat: Stats): FileStat => ({
  type: entryType(stat),
  size: stat.size,
  mtimeMs: stat.mtimeMs,
  mode: stat.mode & 0o7777,
  nlink: stat.nlink,
});

export const notRegular = (relative: string, type: EntryType) =>
  type === 'directory'
    ? toolgateError('NOT_A_FILE', `${relative} is a directory`, {
        suggestion: 'Use list_directory to see its contents.',
      })
    : toolgateError('NOT_A_FILE', `${relative} is not a regular file (${type})`, {
        suggestion: 'Only regular files can be read or edited; FIFOs, sockets and devices are refused.',
      });

/**
 * Opens a regular file for reading. O_NONBLOCK makes opening a FIFO return at once instead of waiting for
 * a writer; the type is then checked on the descriptor, so whatever was swapped in under the name, what
 * we read is what we checked.
 */
export async function openRegular(
  absolute: string,
  relative: string,
): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  const handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(relative, entryType(stat));
    return { handle, stat };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}
