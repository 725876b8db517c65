// Workspace quotas (limits.workspaceMaxBytes, 0 = none): write tools call checkWriteQuota before
// writing. Usage comes from the session runtime, which counts tool writes as they happen and rescans
// after commands (see runtime/inside/usage.ts); commands themselves are held to the quota there.
import type { Config } from '../config.js';
import type { Workspace } from '../runtime/workspace.js';
import { toolgateError } from '../lib/errors.js';

interface QuotaContext {
  readonly limits: Pick<Config['limits'], 'workspaceMaxBytes'>;
  readonly workspace: Workspace;
}

/**
 * Refuses (507 QUOTA_EXCEEDED) a write that would grow the workspace past its quota. `newBytes` is the
 * target's size after the write; replacing a file only counts the difference, and shrinking always passes.
 */
export async function checkWriteQuota(ctx: QuotaContext, relative: string, newBytes: number): Promise<void> {
  const limitBytes = ctx.limits.workspaceMaxBytes;
  if (limitBytes === 0) return;
  const { stat } = await ctx.workspace.stat(relative, { follow: false });
  const growth = newBytes - (stat?.type === 'file' ? stat.size : 0);
  if (growth <= 0) return;
  const usedBytes = (await ctx.workspace.usage()).bytes;
  if (usedBytes + growth > limitBytes) {
    throw toolgateError(
      'QUOTA_EXCEEDED',
      `Writing ${relative} would grow the workspace to ${usedBytes + growth} bytes; the quota is ${limitBytes}`,
      {
        suggestion: 'Delete files that are no longer needed (delete_file), or write less.',
        details: { usedBytes, limitBytes, growthBytes: growth },
      },
    );
  }
}
