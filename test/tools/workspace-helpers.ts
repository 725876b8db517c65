// Helpers for file-tool tests: a session with direct access to its workspace directory on disk.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../helpers/app.js';

export interface FileSession {
  id: string;
  token: string;
  dir: string;
  /** Writes a file directly on disk (not through a tool), creating parents. */
  put(relative: string, content: string | Buffer): void;
  /** The file's bytes on disk, as UTF-8. */
  text(relative: string): string;
  call(tool: string, input: unknown): ReturnType<TestApp['call']>;
}

export async function fileSession(t: TestApp, body: Record<string, unknown> = {}): Promise<FileSession> {
  const session = await t.createSession({ profile: 'read-write', ...body });
  const dir = path.join(t.dataDir, 'workspaces', session.id);
  mkdirSync(dir, { recursive: true });
  return {
    id: session.id,
    token: session.token,
    dir,
    put(relative, content) {
      const file = path.join(dir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    },
    text: (relative) => readFileSync(path.join(dir, relative), 'utf8'),
    call: (tool, input) => t.call(session, tool, input),
  };
}
