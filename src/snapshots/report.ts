// A change set as callers see it: per file path, status, lines added and removed (the JSON summary),
// and optionally the whole git patch, cut at a byte limit only where a file's part ends.
import { Type, type Static } from 'typebox';
import { ChangeStatus } from './changes.js';
import { renderChange } from './git-patch.js';
import { gitMode } from './manifest.js';
import type { ChangeSet } from './service.js';

export const ChangedFile = Type.Object({
  path: Type.String({ description: 'Path after the change (before it, for a deleted file)' }),
  oldPath: Type.Optional(Type.String({ description: 'Renamed files: the path before' })),
  status: ChangeStatus,
  binary: Type.Boolean({ description: 'Shown as a GIT binary patch (no line counts)' }),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  oldMode: Type.Optional(Type.String({ description: 'Git mode before (100644, 100755, 120000)' })),
  newMode: Type.Optional(Type.String({ description: 'Git mode after' })),
});

export const ChangeReport = Type.Object({
  since: Type.String({ description: '"start" or the checkpoint id the changes are counted from' }),
  files: Type.Array(ChangedFile),
  totals: Type.Object({ files: Type.Integer(), additions: Type.Integer(), deletions: Type.Integer() }),
  diff: Type.Optional(Type.String({ description: 'The unified diff in git format; `git apply` accepts it' })),
  truncated: Type.Optional(
    Type.Boolean({ description: 'The diff was cut after the last file that fit in max_diff_bytes' }),
  ),
});
export type ChangeReport = Static<typeof ChangeReport>;

export async function reportChanges(
  set: ChangeSet,
  options: { diff: boolean; maxDiffBytes: number },
): Promise<ChangeReport> {
  const files: Static<typeof ChangedFile>[] = [];
  const parts: string[] = [];
  let diffBytes = 0;
  let truncated = false;
  for (const change of set.changes) {
    const rendered = await renderChange(change, set.contentOf);
    const { before, after } = change;
    files.push({
      path: (after ?? before)!.path,
      ...(change.status === 'renamed' ? { oldPath: before!.path } : {}),
      status: change.status,
      binary: rendered.binary,
      additions: rendered.additions,
      deletions: rendered.deletions,
      ...(before ? { oldMode: gitMode(before) } : {}),
      ...(after ? { newMode: gitMode(after) } : {}),
    });
    if (!options.diff || truncated) continue;
    const bytes = Buffer.byteLength(rendered.text);
    if (diffBytes + bytes > options.maxDiffBytes) truncated = true;
    else {
      parts.push(rendered.text);
      diffBytes += bytes;
    }
  }
  return {
    since: set.since,
    files,
    totals: {
      files: files.length,
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
    },
    ...(options.diff ? { diff: parts.join(''), truncated } : {}),
  };
}
