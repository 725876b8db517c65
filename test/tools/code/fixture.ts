// Copies the multi-language fixture repository into a fresh session's workspace.
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyTestApp } from '../../helpers/app.js';

export const FIXTURE_REPO = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/code/repo',
);

export async function fixtureSession(
  t: AnyTestApp,
  body: Record<string, unknown> = { profile: 'read-only' },
) {
  const session = await t.createSession(body);
  const dir = t.app.services.workspaces.dirFor(session.id);
  cpSync(FIXTURE_REPO, dir, { recursive: true });
  return { ...session, dir };
}
