// Helpers for file-tool tests: a session with direct access to its workspace directory on disk.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InjectRequest } from '../helpers/api.js';
import { tempDir, type AnyTestApp } from '../helpers/app.js';
import { workspaceFiles, type WorkspaceFiles } from '../helpers/workspace-files.js';

export interface FileSession<Req = InjectRequest> extends WorkspaceFiles {
  id: string;
  token: string;
  dir: string;
  call(tool: string, input: unknown): Req;
}

export async function fileSession<T extends AnyTestApp>(
  t: T,
  body: Record<string, unknown> = {},
): Promise<FileSession<ReturnType<T['call']>>> {
  const session = await t.createSession({ profile: 'read-write', ...body });
  const dir = path.join(t.dataDir, 'workspaces', session.id);
  mkdirSync(dir, { recursive: true });
  return {
    id: session.id,
    token: session.token,
    dir,
    ...workspaceFiles(dir),
    call: (tool, input) => t.call(session, tool, input) as ReturnType<T['call']>,
  };
}

/**
 * A temp directory outside any workspace, with the given files: the target of escape attempts. Removed
 * when the test file ends (tempDir).
 */
export function outsideDir(files: Record<string, string>): string {
  const dir = tempDir('toolgate-outside-');
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return dir;
}
