// Writes a new session's seed files into its workspace, each through path confinement and atomically.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fromFsError, toolgateError } from '../core/errors.js';
import { writeFileAtomic } from '../tools/shared/atomic-write.js';
import type { Workspace } from './workspace.js';

export async function writeSeedFiles(workspace: Workspace, files: Record<string, string>): Promise<void> {
  for (const [filePath, content] of Object.entries(files)) {
    const target = await workspace.resolve(filePath);
    if (target.relative === '.')
      throw toolgateError('INVALID_PATH', 'A seed file cannot be the workspace root');
    try {
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await writeFileAtomic(target.absolute, content);
    } catch (err) {
      throw fromFsError(err, target.relative);
    }
  }
}
