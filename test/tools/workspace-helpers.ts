// Helpers for file-tool tests: a session with direct access to its workspace directory on disk.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectRequest } from '../helpers/api.js';
import type { AnyTestApp } from '../helpers/app.js';

export interface FileSession<Req = InjectRequest> {
  id: string;
  token: string;
  dir: string;
  /** Writes a file directly on disk (not through a tool), creating parents. */
  put(relative: string, content: string | Buffer): void;
  /** The file's bytes on disk, as UTF-8. */
  text(relative: string): string;
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
    put(relative, content) {
      const file = path.join(dir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    },
    text: (relative) => readFileSync(path.join(dir, relative), 'utf8'),
    call: (tool, input) => t.call(session, tool, input) as ReturnType<T['call']>,
  };
}

/** A temp directory outside any workspace, with the given files: the target of escape attempts. */
export function outsideDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-outside-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return dir;
}
