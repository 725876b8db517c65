// Workspace quotas (limits.workspaceMaxBytes, 0 = none): write tools call checkWriteQuota before
// writing. Usage is measured on disk each time, so files created by commands count too; concurrent
// writes can overshoot by at most one write.
import { promises as fs } from 'node:fs';
import type { ToolContext } from '../core/context.js';
import { toolgateError } from '../core/errors.js';
import type { ResolvedPath } from './workspace.js';

type QuotaContext = Pick<ToolContext, 'limits' | 'services' | 'session'>;

/**
 * Refuses (507 QUOTA_EXCEEDED) a write that would grow the workspace past its quota. `newBytes` is the
 * target's size after the write; replacing a file only counts the difference, and shrinking always passes.
 */
export async function checkWriteQuota(
  ctx: QuotaContext,
  target: ResolvedPath,
  newBytes: number,
): Promise<void> {
  const limitBytes = ctx.limits.workspaceMaxBytes;
  if (limitBytes === 0) return;
  const existing = await fs.lstat(target.absolute).catch(() => undefined);
  const growth = newBytes - (existing?.isFile() ? existing.size : 0);
  if (growth <= 0) return;
  const usedBytes = await ctx.services.workspaces.usage(ctx.session.id);
  if (usedBytes + growth > limitBytes) {
    throw toolgateError(
      'QUOTA_EXCEEDED',
      `Writing ${target.relative} would grow the workspace to ${usedBytes + growth} bytes; the quota is ${limitBytes}`,
      {
        suggestion: 'Delete files that are no longer needed (delete_file), or write less.',
        details: { usedBytes, limitBytes, growthBytes: growth },
      },
    );
  }
}
