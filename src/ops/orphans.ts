// Crash recovery for atomic writes: a write interrupted by a crash (kill -9, power loss) can leave its
// temp file (`.<name>.tg-<hex>.tmp`, see tools/shared/atomic-write.ts) beside the target. The target
// itself is always whole; the temp file is junk that would show up in listings and count against quotas.
// Removed in the background after start; only files older than this process, so a write in progress
// is never touched.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ToolLogger } from '../core/context.js';

const TEMP_FILE = /^\..+\.tg-[0-9a-f]{12}\.tmp$/;

export async function removeOrphanedTempFiles(
  baseDir: string,
  startedAt: number,
  logger: ToolLogger,
): Promise<number> {
  let removed = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(full);
      } else if (entry.isFile() && TEMP_FILE.test(entry.name)) {
        const stat = await fs.lstat(full).catch(() => undefined);
        if (stat && stat.mtimeMs < startedAt) {
          await fs.rm(full, { force: true });
          removed++;
        }
      }
    }
  };
  await walk(baseDir);
  if (removed > 0) logger.info({ removed }, 'removed temp files left by interrupted writes');
  return removed;
}
