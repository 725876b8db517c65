// Builds the OpenAPI document from a throwaway app (temp data dir), so `npm run openapi` and the
// staleness test produce exactly the same JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export const OPENAPI_FILE = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../openapi/openapi.json',
);

export async function renderOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-openapi-'));
  const app = await buildApp(
    loadConfig({
      TOOLGATE_DATA_DIR: dataDir,
      TOOLGATE_API_KEY: 'openapi-generation',
      TOOLGATE_SANDBOX: 'none',
      LOG_LEVEL: 'silent',
    }),
    { logger: false },
  );
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
