// Writes a new session's seed files into its workspace, each through the session runtime (path checks
// and atomic writes happen there).
import { toolgateError } from '../lib/errors.js';
import type { Workspace } from '../runtime/workspace.js';

export async function writeSeedFiles(workspace: Workspace, files: Record<string, string>): Promise<void> {
  for (const [filePath, content] of Object.entries(files)) {
    const { relative } = await workspace.resolve(filePath);
    if (relative === '.') throw toolgateError('INVALID_PATH', 'A seed file cannot be the workspace root');
    await workspace.writeFile(relative, Buffer.from(content, 'utf8'));
  }
}
