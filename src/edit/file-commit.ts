// Writes a file the safe way: keep the previous version in the history, write atomically (inside the
// session runtime), remember the new state for read-before-write checks, and put everything back if a
// later write of the same change fails.
import type { EditContext } from './edit-context.js';
import { fromFsError, isToolgateError } from '../lib/errors.js';
import { checkWriteQuota } from '../sandbox/quota.js';
import { changeRef, rememberFile } from './file-guard.js';
import { sha256 } from '../lib/text.js';

export interface PlannedWrite {
  /** Workspace-relative path, as resolved by the runtime. */
  relative: string;
  /** New bytes, or null to delete the file. */
  bytes: Buffer | null;
  mode?: number;
  /** What is there now, when the caller has just read it: saves the history a second read. */
  previous?: { bytes: Uint8Array; mode: number | undefined };
}

/** Applies several writes as one change (one undo step); on failure restores what was already written. */
export async function commitWrites(
  ctx: EditContext,
  tool: string,
  writes: readonly PlannedWrite[],
): Promise<void> {
  const { history } = ctx.services;
  const change = changeRef(ctx, tool);
  for (const write of writes) {
    if (write.bytes !== null) await checkWriteQuota(ctx, write.relative, write.bytes.length);
  }
  const done: PlannedWrite[] = [];
  try {
    for (const write of writes) {
      if (write.bytes === null) {
        await history.stash(change, ctx.workspace, write.relative);
        await ctx.services.fileReads.forget(ctx.session.id, write.relative);
      } else {
        await history.snapshot(change, ctx.workspace, write.relative, write.previous);
        const written = await ctx.workspace.writeFile(write.relative, write.bytes, write.mode);
        await rememberFile(ctx, write.relative, written.stat, sha256(write.bytes));
      }
      done.push(write);
    }
  } catch (err) {
    await rollBack(ctx, change.changeId, done);
    throw isToolgateError(err) ? err : fromFsError(err, writes[done.length]?.relative ?? '.');
  }
  await history.prune(
    ctx.session.id,
    writes.map((w) => w.relative),
  );
}

/** Puts back every file of a half-applied change from its history entries, then forgets the change. */
async function rollBack(ctx: EditContext, changeId: string, done: readonly PlannedWrite[]): Promise<void> {
  const { history } = ctx.services;
  for (const write of [...done].reverse()) {
    const entry = (await history.latestChange(ctx.session.id, write.relative)).find(
      (e) => e.changeId === changeId && e.path === write.relative,
    );
    if (!entry) continue;
    if (entry.kind === 'absent') await ctx.workspace.remove(write.relative).catch(() => undefined);
    else await history.restoreInto(ctx.workspace, ctx.session.id, entry).catch(() => undefined);
    await ctx.services.fileReads.forget(ctx.session.id, write.relative);
  }
  await history.drop(ctx.session.id, changeId);
}
