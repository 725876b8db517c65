// Read-before-write safety. A session may change an existing file only if the file is as the session
// last saw it (read_file, or its own last write): else 409 FILE_CHANGED_SINCE_READ. Whether a file the
// session never read may be changed is the session's `metadata.requireReadBeforeEdit` (default false:
// allowed). `expected_sha256` is an explicit compare-and-swap on top of that.
import { Type } from 'typebox';
import type { EditContext } from './edit-context.js';
import { toolgateError } from '../lib/errors.js';
import type { FileStat } from '../runtime/ops/index.js';
import type { ChangeRef } from '../store/history.js';

export const ExpectedSha256 = Type.Optional(
  Type.String({
    pattern: '^[0-9a-fA-F]{64}$',
    description:
      'Compare-and-swap: the SHA-256 of the file as you last saw it (read_file or file_info return it). ' +
      'The change is refused with 409 if the file differs.',
  }),
);

export const requiresReadBeforeEdit = (ctx: EditContext): boolean =>
  ctx.session.metadata.requireReadBeforeEdit === true;

/** `current` is the hash of the file's bytes now, undefined when it does not exist. */
export async function checkFresh(
  ctx: EditContext,
  relative: string,
  current: string | undefined,
  expected?: string,
): Promise<void> {
  if (expected !== undefined && expected.toLowerCase() !== current) {
    throw toolgateError('CONFLICT', `${relative} is not the version you expected (expected_sha256 differs)`, {
      suggestion: 'Read the file again and redo the change on its current content.',
      details: { expected: expected.toLowerCase(), actual: current ?? null },
    });
  }
  if (current === undefined) return;
  const seen = await ctx.services.fileReads.get(ctx.session.id, relative);
  if (seen && seen.sha256 !== current) {
    throw toolgateError(
      'FILE_CHANGED_SINCE_READ',
      `${relative} has changed since this session last read it`,
      {
        suggestion: 'Read the file again (read_file) and redo the change on its current content.',
        details: { readAt: new Date(seen.readAt).toISOString() },
      },
    );
  }
  if (!seen && expected === undefined && requiresReadBeforeEdit(ctx)) {
    throw toolgateError('FILE_NOT_READ', `${relative} has not been read in this session`, {
      suggestion: 'Read the file with read_file first (this session requires it), or pass expected_sha256.',
    });
  }
}

/** Remembers a file's state as known to the session (after it read or wrote it). */
export function rememberFile(
  ctx: EditContext,
  relative: string,
  stat: Pick<FileStat, 'mtimeMs' | 'size'>,
  sha256: string,
): Promise<void> {
  return ctx.services.fileReads.record(ctx.session.id, relative, {
    sha256,
    mtimeMs: stat.mtimeMs,
    size: stat.size,
  });
}

/** Locks are per session and relative path: two sessions never share a file. */
export const lockKey = (ctx: EditContext, relative: string): string => `${ctx.session.id}\0${relative}`;

export const changeRef = (ctx: EditContext, tool: string): ChangeRef => ({
  sessionId: ctx.session.id,
  changeId: ctx.callId,
  tool,
});
