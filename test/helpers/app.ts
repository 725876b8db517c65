// Test harness: a real app (buildApp) on its own temp data dir. injectApp drives it with app.inject()
// (no socket: what route tests should use); startApp drives it with supertest over a socket, for tests
// that need one (event streams, SDK clients, a URL for another process).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { injectApi, type Api, type InjectRequest } from './api.js';
import { ResponseConformance } from './conformance.js';
import { testSandbox } from './requires.js';
import { dropSchemaOf, onPostgres, schemaOf } from './postgres.js';

export const ADMIN_KEY = 'tga_test_admin_key_0123456789';

/** A request being built: supertest's Test on a socket, InjectRequest with inject. */
interface RequestLike<Req> {
  set(name: string, value: string): Req;
  send(body?: object): Req;
  then: PromiseLike<{ status: number; body: { id: string; token: string } }>['then'];
}

interface HarnessOf<Http, Req> {
  app: FastifyInstance;
  dataDir: string;
  http: Http;
  admin: (req: Req) => Req;
  createSession(body?: Record<string, unknown>): Promise<{ id: string; token: string; [k: string]: unknown }>;
  call(session: { id: string; token: string }, tool: string, input: unknown): Req;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** An app driven over a socket with supertest. */
export type TestApp = HarnessOf<ReturnType<typeof supertest>, supertest.Test>;
/** An app driven with app.inject(): no socket. */
export type InjectApp = HarnessOf<Api, InjectRequest>;
/** Either harness, for helpers that work with both. */
export type AnyTestApp = TestApp | InjectApp;

/** Temp dirs made by tempDir in the current test file, removed when it ends (test/setup-temp-dirs.ts). */
const madeInThisFile = new Set<string>();

/**
 * A new temp dir, removed with everything in it once the test file's tests are done (a test may remove
 * it sooner): data dirs kept for a restart, config files, fixtures, browser profiles alike.
 */
export function tempDir(prefix = 'toolgate-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  madeInThisFile.add(dir);
  return dir;
}

/** Removes every dir tempDir made since the last call: run after each test file. */
export function removeTempDirs(): void {
  for (const dir of madeInThisFile) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  madeInThisFile.clear();
}

type StartOptions = BuildOptions & { dataDir?: string };

async function boot(env: Record<string, string>, options: StartOptions) {
  const dataDir = options.dataDir ?? tempDir();
  // The postgres project (vitest.config.ts) runs the state-touching tests on PostgreSQL: each data dir
  // gets a schema of its own there, which an app restarted on the same dir finds again.
  const database = onPostgres() ? { DATABASE_URL: (await schemaOf(dataDir)).url } : {};
  const config = loadConfig({
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_API_KEY: ADMIN_KEY,
    // The whole suite runs with each backend: .ci/run sets TOOLGATE_TEST_SANDBOX=none for a second pass;
    // without a working bwrap the unisolated runtime (test/helpers/requires.ts).
    TOOLGATE_SANDBOX: testSandbox(),
    TOOLGATE_RUNTIME_IMAGE: process.env.TOOLGATE_TEST_RUNTIME_IMAGE ?? '',
    // Language servers are real processes that cost seconds and CPU: only the tests about them turn them on.
    TOOLGATE_LSP: 'off',
    LOG_LEVEL: 'silent',
    ...database,
    ...env,
  });
  const app = await buildApp(config, { logger: false, ...options });
  const conformance = new ResponseConformance(app);
  conformance.install();
  await app.ready();
  return { app, dataDir, conformance };
}

function harness<Http extends { post(url: string): Req }, Req extends RequestLike<Req>>(
  { app, dataDir, conformance }: Awaited<ReturnType<typeof boot>>,
  http: Http,
): HarnessOf<Http, Req> {
  const admin = (req: Req) => req.set('authorization', `Bearer ${ADMIN_KEY}`);
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
      // Runtime containers outlive the app by design: a test removes those it made with its data.
      if (!keepData && app.services.config.sandbox === 'docker')
        await (await import('./docker.js')).removeContainersOf(dataDir);
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
      if (!keepData) await dropSchemaOf(dataDir);
      if (conformance.violations.length > 0) {
        throw new Error(
          `responses that do not match the OpenAPI document:\n  ${[...new Set(conformance.violations)].join('\n  ')}`,
        );
      }
    },
  };
}

/** The app over a socket, driven with supertest. */
export async function startApp(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestApp> {
  const booted = await boot(env, options);
  return harness(booted, supertest(booted.app.server));
}

/** The app driven with app.inject(): the same harness with no socket. */
export async function injectApp(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<InjectApp> {
  const booted = await boot(env, options);
  return harness(booted, injectApi(booted.app));
}
