// Turns the operations of a V4A patch into the new content of each file, without writing anything: the
// same plans (and so the same all-or-nothing commit, history and undo) as a unified diff's in
// patch-plan.ts. Reads go through the session runtime; placing chunks is v4a-apply.ts, in a worker.
import type { EditContext } from './edit-context.js';
import { toolgateError } from '../lib/errors.js';
import type { PlannedWrite } from './file-commit.js';
import { load, type FilePlan } from './patch-plan.js';
import { encodeText } from './text-file.js';
import { editJob } from './edit-work.js';
import type { V4aOperation } from './v4a-parse.js';

/** Every path an operation reads or writes, for the file locks. */
export const v4aPaths = (op: V4aOperation): string[] =>
  op.kind === 'update' && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path];

async function resolveFile(ctx: EditContext, path: string) {
  const target = await ctx.workspace.resolve(path);
  if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'The patch names the workspace root');
  return target;
}

export async function planV4aOperation(
  ctx: EditContext,
  op: V4aOperation,
  expected: Record<string, string> = {},
): Promise<FilePlan> {
  const target = await resolveFile(ctx, op.kind === 'update' ? (op.moveTo ?? op.path) : op.path);
  const from = op.kind === 'update' && op.moveTo !== undefined ? await resolveFile(ctx, op.path) : undefined;
  const source = await load(ctx, from ?? target, expected[(from ?? target).relative]);
  if (op.kind === 'add') {
    if (source.exists) {
      throw toolgateError('ALREADY_EXISTS', `The patch adds ${target.relative}, which already exists`, {
        suggestion: `Change it with "*** Update File: ${op.path}" instead, or delete it first ("*** Delete File:").`,
      });
    }
    const additions = op.content === '' ? 0 : op.content.split('\n').length - 1;
    const writes: PlannedWrite[] = [{ relative: target.relative, bytes: Buffer.from(op.content, 'utf8') }];
    return { status: 'added', target, additions, deletions: 0, writes };
  }
  if (!source.exists) {
    throw toolgateError(
      'FILE_NOT_FOUND',
      `The patch ${op.kind === 'delete' ? 'deletes' : 'updates'} ${(from ?? target).relative}, which does not exist`,
      {
        suggestion:
          op.kind === 'delete'
            ? 'Drop that "*** Delete File:" section; check the path with list_directory or glob.'
            : 'Create it with "*** Add File:" and "+" lines, or check the path with list_directory or glob.',
      },
    );
  }
  if (op.kind === 'delete') {
    const deletions = source.text === '' ? 0 : source.text.replace(/\n$/, '').split('\n').length;
    return {
      status: 'deleted',
      target,
      additions: 0,
      deletions,
      writes: [{ relative: target.relative, bytes: null }],
    };
  }
  if (
    from &&
    from.relative !== target.relative &&
    (await ctx.workspace.stat(target.relative, { follow: false })).stat
  ) {
    throw toolgateError(
      'ALREADY_EXISTS',
      `The patch moves ${from.relative} onto ${target.relative}, which already exists`,
      {
        suggestion: 'Move it to a free path, or delete the other file in an earlier apply_patch call.',
      },
    );
  }
  // Placing chunks costs up to file lines × chunk lines per level: a worker's job (edit-jobs.ts).
  const result = await editJob(ctx, 'placeV4a', {
    text: source.text,
    chunks: op.chunks,
    path: (from ?? target).relative,
  });
  const bytes = encodeText(source, result.text);
  const moved = from !== undefined && from.relative !== target.relative;
  const writes: PlannedWrite[] = moved
    ? [
        { relative: from.relative, bytes: null },
        { relative: target.relative, bytes, mode: source.mode },
      ]
    : [
        {
          relative: target.relative,
          bytes,
          mode: source.mode,
          previous: source.raw ? { bytes: source.raw, mode: source.mode } : undefined,
        },
      ];
  return {
    status: moved ? 'renamed' : 'modified',
    target,
    ...(moved ? { from } : {}),
    additions: result.additions,
    deletions: result.deletions,
    writes,
    match: result.level,
  };
}
