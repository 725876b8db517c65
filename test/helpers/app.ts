// Test harness: a real app (buildApp) on its own temp data dir, driven with supertest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ResponseConformance } from './conformance.js';

export const ADMIN_KEY = 'tga_test_admin_key_0123456789';

export interface TestApp {
  app: FastifyInstance;
  dataDir: string;
  http: ReturnType<typeof supertest>;
  admin: (req: supertest.Test) => supertest.Test;
  createSession(body?: Record<string, unknown>): Promise<{ id: string; token: string; [k: string]: unknown }>;
  call(session: { id: string; token: string }, tool: string, input: unknown): supertest.Test;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export function tempDir(prefix = 'toolgate-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export async function startApp(
  env: Record<string, string> = {},
  options: BuildOptions & { dataDir?: string } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDir();
  const config = loadConfig({
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_API_KEY: ADMIN_KEY,
    // The whole suite runs with each backend: .ci/run sets TOOLGATE_TEST_SANDBOX=none for a second pass.
    TOOLGATE_SANDBOX: process.env.TOOLGATE_TEST_SANDBOX ?? 'auto',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await buildApp(config, { logger: false, ...options });
  const conformance = new ResponseConformance(app);
  conformance.install();
  await app.ready();
  const http = supertest(app.server);
  const admin = (req: supertest.Test) => req.set('authorization', `Bearer ${ADMIN_KEY}`);
  return {
    app,
    dataDir,
    http,
    admin,
    async createSession(body = {}) {
      const res = await admin(http.post('/v1/sessions')).send(body);
      if (res.status !== 201)
        throw new Error(`createSession failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    call(session, tool, input) {
      return http
        .post(`/v1/sessions/${session.id}/tools/${tool}`)
        .set('authorization', `Bearer ${session.token}`)
        .send(input as object);
    },
    async close({ keepData = false } = {}) {
      await app.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
      if (conformance.violations.length > 0) {
        throw new Error(
          `responses that do not match the OpenAPI document:\n  ${[...new Set(conformance.violations)].join('\n  ')}`,
        );
      }
    },
  };
}
