// Direct access to a workspace directory on the host, for arranging a test's files and checking results
// (not through a tool): put writes a file, creating parents; text reads one as UTF-8.
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface WorkspaceFiles {
  /** Writes a file directly on disk (not through a tool), creating parents. */
  put(relative: string, content: string | Buffer): void;
  /** The file's bytes on disk, as UTF-8. */
  text(relative: string): string;
}

/**
 * On the docker backend the runtime is not root (uid 65534): what a test puts in a workspace as root is
 * given to that user, as if the runtime had written it (the service itself never writes there).
 */
const RUNTIME_OWNER = process.env.TOOLGATE_TEST_SANDBOX === 'docker' ? 65534 : undefined;

export const workspaceFiles = (dir: string): WorkspaceFiles => ({
  put(relative, content) {
    const file = path.join(dir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    if (RUNTIME_OWNER === undefined) return;
    for (let at = file; at.startsWith(dir) && at !== dir; at = path.dirname(at))
      chownSync(at, RUNTIME_OWNER, RUNTIME_OWNER);
  },
  text: (relative) => readFileSync(path.join(dir, relative), 'utf8'),
});
