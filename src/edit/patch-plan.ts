// Turns a unified diff into the new content of each file it touches, without writing anything: parse
// (diff's parsePatch), resolve paths, check each file is the version the session knows, apply hunks.
// A hunk that does not fit is named, with the closest text in the file.
import type { StructuredPatch } from 'diff';
import { count, patchStatus } from './patch.js';
import { editJob } from './edit-work.js';
import type { EditContext } from './edit-context.js';
import { toolgateError } from '../lib/errors.js';
import type { PlannedWrite } from './file-commit.js';
import { checkFresh } from './file-guard.js';
import { encodeText } from './text-file.js';
import { loadTextFile } from './load-text-file.js';

import type { PatchStatus } from './patch.js';
import type { MatchLevel } from './v4a-apply.js';

/** A path as the runtime resolved it. */
interface ResolvedPath {
  relative: string;
}

export interface FilePlan {
  status: PatchStatus;
  target: ResolvedPath;
  /** For renames: where the file was. */
  from?: ResolvedPath;
  additions: number;
  deletions: number;
  writes: PlannedWrite[];
  /** V4A updates: the loosest level at which a chunk's lines matched the file. */
  match?: MatchLevel;
}

/** Reads a file for a patch and checks it is the version the session (and expected_sha256) knows. */
export async function load(ctx: EditContext, target: ResolvedPath, expected?: string) {
  const file = await loadTextFile(ctx.workspace, target.relative, ctx.limits.editMaxBytes);
  await checkFresh(ctx, target.relative, file.exists ? file.sha256 : undefined, expected);
  return file;
}

/** `expected` maps workspace-relative paths to the SHA-256 the caller expects them to have. */
export async function planFile(
  ctx: EditContext,
  patch: StructuredPatch,
  expected: Record<string, string> = {},
): Promise<FilePlan> {
  const { status, oldName, newName } = patchStatus(patch);
  const target = await ctx.workspace.resolve((newName ?? oldName)!);
  const from = status === 'renamed' ? await ctx.workspace.resolve(oldName!) : undefined;
  if (target.relative === '.' || from?.relative === '.')
    throw toolgateError('NOT_A_FILE', 'The patch names the workspace root');
  const source = await load(ctx, from ?? target, expected[(from ?? target).relative]);
  if (status === 'added' && source.exists) {
    throw toolgateError('ALREADY_EXISTS', `The patch creates ${target.relative}, which already exists`);
  }
  if (status !== 'added' && !source.exists) {
    throw toolgateError(
      'FILE_NOT_FOUND',
      `The patch changes ${(from ?? target).relative}, which does not exist`,
    );
  }
  if (status === 'renamed' && (await ctx.workspace.stat(target.relative, { follow: false })).stat) {
    throw toolgateError('ALREADY_EXISTS', `The patch renames onto ${target.relative}, which already exists`);
  }
  // Fitting hunks (and naming the one that does not fit) is a worker's job (edit-jobs.ts).
  const result = await editJob(ctx, 'applyUnified', {
    text: source.text,
    patch,
    relative: (from ?? target).relative,
  });
  if (status === 'deleted' && result !== '') {
    throw toolgateError(
      'PATCH_FAILED',
      `The patch deletes ${target.relative} but does not remove all of its lines`,
      {
        suggestion: 'A deletion must remove every line of the file; read it again and regenerate the patch.',
      },
    );
  }
  const bytes = encodeText(source, result);
  const previous = source.raw ? { bytes: source.raw, mode: source.mode } : undefined;
  const writes: PlannedWrite[] =
    status === 'deleted'
      ? [{ relative: target.relative, bytes: null }]
      : status === 'renamed'
        ? [
            { relative: from!.relative, bytes: null },
            { relative: target.relative, bytes, mode: source.mode },
          ]
        : [{ relative: target.relative, bytes, mode: source.mode, previous }];
  return { status, target, from, additions: count(patch, '+'), deletions: count(patch, '-'), writes };
}
