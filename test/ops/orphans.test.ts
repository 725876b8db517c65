import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectApp, tempDir } from '../helpers/app.js';
import { waitFor } from './child-server.js';

describe('crash recovery of atomic writes', () => {
  // The session's runtime removes them when it starts (nothing of the session is writing then): the
  // service itself never walks a workspace.
  it('removes temp files that interrupted writes left before the start, and nothing else', async () => {
    const dataDir = tempDir('toolgate-orphans-');
    const first = await injectApp({}, { dataDir });
    const session = await first.createSession({ profile: 'read-write' });
    await first.close({ keepData: true });

    // What a kill -9 between the temp write and the rename leaves behind.
    const dir = path.join(dataDir, 'workspaces', session.id, 'src');
    mkdirSync(dir, { recursive: true });
    const orphan = path.join(dir, '.main.ts.tg-0123456789ab.tmp');
    const lookalike = path.join(dir, '.main.ts.tg-notatempfile.tmp');
    const target = path.join(dir, 'main.ts');
    for (const file of [orphan, lookalike, target]) writeFileSync(file, 'x');
    const old = new Date(Date.now() - 60_000);
    for (const file of [orphan, lookalike, target]) utimesSync(file, old, old);

    const second = await injectApp({}, { dataDir });
    try {
      const listed = await second.call(session, 'list_directory', { path: 'src' });
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body.data)).not.toContain('tg-0123456789ab');
      await waitFor(() => !existsSync(orphan), 5_000);
      expect(existsSync(target)).toBe(true);
      expect(existsSync(lookalike)).toBe(true);
    } finally {
      await second.close();
    }
  });
});
