import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/store/sqlite-driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { childSession, REPO_ROOT, startChildServer, waitFor, type ChildServer } from './child-server.js';

const PLUGINS = path.join(REPO_ROOT, 'test/fixtures/ops-plugins');

let running: ChildServer | undefined;

/**
 * A server with the given grace period and one slow_wait call in flight: resolves once the call has
 * started inside the tool (its marker file exists), so a signal sent next really interrupts it.
 */
async function serverWithCallInFlight(graceSeconds: number, callMs: number) {
  const dataDir = tempDir('toolgate-shutdown-');
  const configFile = path.join(dataDir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ shutdown: { graceSeconds } }));
  const server = await startChildServer({
    dataDir,
    env: { TOOLGATE_CONFIG: configFile, TOOLGATE_PLUGINS_DIR: PLUGINS },
  });
  running = server;
  const session = await childSession(server, { profile: 'read-only' });
  const inFlight = session.call('slow_wait', { ms: callMs });
  await waitFor(() => existsSync(path.join(dataDir, 'workspaces', session.id, 'started')));
  return { server, dataDir, inFlight };
}

afterEach(() => {
  if (running && running.proc.exitCode === null && running.proc.signalCode === null)
    running.proc.kill('SIGKILL');
  running = undefined;
});

describe('graceful shutdown of the server process', () => {
  it('on SIGTERM finishes the in-flight call, refuses new work, closes SQLite cleanly and exits 0', async () => {
    const { server, dataDir, inFlight } = await serverWithCallInFlight(10, 1500);

    server.proc.kill('SIGTERM');
    await waitFor(() => server.logs.some((line) => line.includes('shutting down')));
    // New work is not accepted while draining: the listener is closed (connection refused) or
    // Fastify answers 503.
    const late = await fetch(`${server.url}/healthz`).then(
      (res) => res.status,
      () => 'refused',
    );
    expect(late === 'refused' || late === 503).toBe(true);

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ waitedMs: 1500 });
    expect(await server.exited).toEqual({ code: 0, signal: null });

    // SQLite was closed, not abandoned: the WAL was checkpointed into the database and removed.
    const wal = path.join(dataDir, 'toolgate.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(path.join(dataDir, 'toolgate.db'), { readonly: true });
    const row = db.prepare('SELECT status, http_status FROM audit WHERE tool = ?').get('slow_wait');
    db.close();
    expect(row).toEqual({ status: 'success', http_status: 200 });
  });

  it('aborts calls still running when the grace period ends, then exits 0', async () => {
    const { server, inFlight } = await serverWithCallInFlight(0.5, 30_000);
    const signalledAt = Date.now();
    server.proc.kill('SIGTERM');

    const res = await inFlight;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SHUTTING_DOWN');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
  });

  it('exits at once on a second signal', async () => {
    const { server, inFlight } = await serverWithCallInFlight(60, 30_000);
    const lost = inFlight.catch(() => 'connection lost');
    server.proc.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const secondAt = Date.now();
    server.proc.kill('SIGINT');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(2_000);
    await lost;
  });
});
