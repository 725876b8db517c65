// Direct access to a workspace directory on the host, for arranging a test's files and checking results
// (not through a tool): put writes a file, creating parents; text reads one as UTF-8.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface WorkspaceFiles {
  /** Writes a file directly on disk (not through a tool), creating parents. */
  put(relative: string, content: string | Buffer): void;
  /** The file's bytes on disk, as UTF-8. */
  text(relative: string): string;
}

export const workspaceFiles = (dir: string): WorkspaceFiles => ({
  put(relative, content) {
    const file = path.join(dir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  },
  text: (relative) => readFileSync(path.join(dir, relative), 'utf8'),
});
