// Writes a file the safe way: keep the previous version in the history, write atomically, remember the
// new state for read-before-write checks, and forget the history entry again if the write fails.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ToolContext } from '../../core/context.js';
import { fromFsError } from '../../core/errors.js';
import { checkWriteQuota } from '../../sandbox/quota.js';
import type { ResolvedPath } from '../../sandbox/workspace.js';
import { writeFileAtomic } from './atomic-write.js';
import { changeRef, rememberFile } from './file-guard.js';
import { sha256 } from './text.js';

export interface PlannedWrite {
  target: ResolvedPath;
  /** New bytes, or null to delete the file. */
  bytes: Buffer | null;
  mode?: number;
}

/** Applies several writes as one change (one undo step); on failure restores what was already written. */
export async function commitWrites(
  ctx: ToolContext,
  tool: string,
  writes: readonly PlannedWrite[],
): Promise<void> {
  const { history } = ctx.services;
  const change = changeRef(ctx, tool);
  for (const write of writes) {
    if (write.bytes !== null) await checkWriteQuota(ctx, write.target, write.bytes.length);
  }
  const done: PlannedWrite[] = [];
  try {
    for (const write of writes) {
      if (write.bytes === null) {
        await history.stash(change, write.target.relative, write.target.absolute);
        ctx.services.fileReads.forget(ctx.session.id, write.target.relative);
      } else {
        await history.snapshot(change, write.target.relative, write.target.absolute);
        await fs.mkdir(path.dirname(write.target.absolute), { recursive: true });
        await writeFileAtomic(write.target.absolute, write.bytes, write.mode);
        await rememberFile(ctx, write.target.relative, write.target.absolute, sha256(write.bytes));
      }
      done.push(write);
    }
  } catch (err) {
    await rollBack(ctx, change.changeId, done);
    throw fromFsError(err, writes[done.length]?.target.relative ?? '.');
  }
  await history.prune(
    ctx.session.id,
    writes.map((w) => w.target.relative),
  );
}

/** Puts back every file of a half-applied change from its history entries, then forgets the change. */
async function rollBack(ctx: ToolContext, changeId: string, done: readonly PlannedWrite[]): Promise<void> {
  const { history } = ctx.services;
  for (const write of [...done].reverse()) {
    const entry = history
      .latestChange(ctx.session.id, write.target.relative)
      .find((e) => e.changeId === changeId && e.path === write.target.relative);
    if (!entry) continue;
    if (entry.kind === 'absent') await fs.rm(write.target.absolute, { force: true });
    else if (entry.blob) {
      const blob = history.blobPath(ctx.session.id, entry.blob);
      await fs.rm(write.target.absolute, { force: true, recursive: true });
      await fs
        .rename(blob, write.target.absolute)
        .catch(() => fs.cp(blob, write.target.absolute, { recursive: true }));
    }
    ctx.services.fileReads.forget(ctx.session.id, write.target.relative);
  }
  await history.drop(ctx.session.id, changeId);
}
