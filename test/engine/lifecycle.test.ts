// The parts' lifecycle list (src/services.ts): deleting a session runs every part's forgetSession, in the
// documented order, through the real app; closing runs every part's close in the shutdown order.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

const admin = { authorization: `Bearer ${ADMIN_KEY}` };

describe('service lifecycles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('declares forgetting, sweeping and closing in the documented order', () => {
    const names = (kind: 'forgetSession' | 'sweep' | 'close') =>
      t.app.services.parts.filter((part) => part[kind] !== undefined).map((part) => part.name);
    expect(names('forgetSession')).toEqual([
      'jobs',
      'shells',
      'mcp-clients',
      'language-servers',
      'history',
      'snapshots',
      'runtimes',
      'leases',
      'egress',
      'preview',
      'workspaces',
      'code-index',
      'events',
    ]);
    expect(names('sweep')).toEqual(['runtimes', 'audit', 'idempotency', 'approvals', 'blobs']);
    expect(names('close')).toEqual([
      'tool-folders',
      'jobs',
      'shells',
      'mcp-clients',
      'language-servers',
      'runtimes',
      'leases',
      'egress',
      'preview',
      'tools',
      'cpu-workers',
      'event-loop',
      'code-index',
      'audit',
      'rate-limit',
      'database',
      'tracing',
    ]);
  });

  it('a deleted session is forgotten by every part that holds something of it', async () => {
    const { services } = t.app;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers: admin,
      payload: { profile: 'execute', files: { 'notes.txt': 'one\n' } },
    });
    expect(created.statusCode).toBe(201);
    const session = created.json<{ id: string; token: string }>();
    const call = (tool: string, input: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/sessions/${session.id}/tools/${tool}`,
        headers: { authorization: `Bearer ${session.token}` },
        payload: input as object,
      });
    services.events.watch(session.id);
    expect(
      (await call('edit_file', { path: 'notes.txt', old_string: 'one', new_string: 'two' })).statusCode,
    ).toBe(200);
    const job = await call('run_command', { command: 'sleep 30', background: true });
    expect(job.statusCode).toBe(200);

    const historyDir = path.join(t.dataDir, 'history', session.id);
    const snapshotDir = path.join(t.dataDir, 'snapshots', session.id);
    const workspaceDir = services.workspaces.dirFor(session.id);
    // Each part holds something of the session before it is deleted…
    expect(services.jobs.sessionsWithJobs()).toContain(session.id);
    expect(existsSync(historyDir)).toBe(true);
    expect(existsSync(snapshotDir)).toBe(true);
    expect(services.runtimes.get(session.id)).toBeDefined();
    expect(existsSync(workspaceDir)).toBe(true);
    expect(services.events.oldestId(session.id)).toBeDefined();

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/v1/sessions/${session.id}`,
      headers: admin,
    });
    expect(deleted.statusCode).toBe(204);

    // …and nothing after.
    expect(await services.sessions.get(session.id)).toBeUndefined();
    expect(services.jobs.sessionsWithJobs()).not.toContain(session.id);
    expect(existsSync(historyDir)).toBe(false);
    expect(existsSync(snapshotDir)).toBe(false);
    expect(services.runtimes.get(session.id)).toBeUndefined();
    expect(existsSync(workspaceDir)).toBe(false);
    expect(services.events.oldestId(session.id)).toBeUndefined();
  });
});
