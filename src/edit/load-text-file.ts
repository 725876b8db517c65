// A text file read for editing, through the session runtime (see src/text/text-file.ts for decoding).
import { isToolgateError, toolgateError } from '../lib/errors.js';
import type { Workspace } from '../runtime/workspace.js';
import { decodeText, MISSING_FILE, type TextFile } from './text-file.js';

/**
 * Reads a file for editing through the runtime, enforcing the size cap; a missing file gives MISSING_FILE.
 * The raw bytes come back too (for the history snapshot).
 */
export async function loadTextFile(
  workspace: Workspace,
  relative: string,
  maxBytes: number,
): Promise<TextFile & { raw?: Buffer }> {
  // One runtime operation: a missing file, a directory or FIFO, and the size cap all come back from it.
  const file = await workspace.readFile(relative, maxBytes).catch((err: unknown) => {
    if (!isToolgateError(err)) throw err;
    if (err.code === 'FILE_NOT_FOUND') return null;
    if (err.code === 'FILE_TOO_LARGE') {
      throw toolgateError(
        'FILE_TOO_LARGE',
        `${relative} is larger than the edit limit of ${maxBytes} bytes`,
        {
          suggestion: 'Split the file, or replace it whole with write_file.',
          details: err.details,
        },
      );
    }
    throw err;
  });
  if (!file) return MISSING_FILE;
  return { ...decodeText(file.bytes, relative, file.stat.mode), raw: file.bytes };
}
