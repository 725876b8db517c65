import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

/** The value of one sample line, e.g. sample(text, 'toolgate_active_sessions') or with labels. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('refuses callers without the admin key', async () => {
    expect((await t.http.get('/metrics')).status).toBe(401);
    const session = await t.createSession({ profile: 'read-only' });
    const res = await t.http.get('/metrics').set('authorization', `Bearer ${session.token}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ADMIN_REQUIRED');
  });

  it('counts calls by tool, category and outcome, with durations and active sessions', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    expect((await t.call(session, 'write_file', { path: 'a.txt', content: 'x' })).status).toBe(200);
    expect((await t.call(session, 'write_file', { path: 'b.txt', content: 'y' })).status).toBe(200);
    expect((await t.call(session, 'read_file', { path: 'missing.txt' })).status).toBe(404);
    const readOnly = await t.createSession({ profile: 'read-only' });
    expect((await t.call(readOnly, 'write_file', { path: 'c.txt', content: 'z' })).status).toBe(403);
    expect((await t.call(session, 'no_such_tool', {})).status).toBe(404);

    const res = await t.admin(t.http.get('/metrics'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(sample(text, 'toolgate_tool_calls_total', { tool: 'write_file', status: 'success' })).toBe(2);
    expect(
      sample(text, 'toolgate_tool_calls_total', {
        tool: 'read_file',
        category: 'filesystem',
        status: 'error',
        code: 'FILE_NOT_FOUND',
      }),
    ).toBe(1);
    expect(
      sample(text, 'toolgate_tool_calls_total', {
        tool: 'write_file',
        status: 'refused',
        code: 'PERMISSION_DENIED',
      }),
    ).toBe(1);
    // Unknown tool names share one label value, so garbage names cannot blow up the series count.
    expect(sample(text, 'toolgate_tool_calls_total', { tool: 'unknown', code: 'TOOL_NOT_FOUND' })).toBe(1);
    expect(text).not.toContain('no_such_tool');
    expect(sample(text, 'toolgate_tool_call_duration_seconds_count', { tool: 'write_file' })).toBe(3);
    expect(sample(text, 'toolgate_active_sessions')).toBe(3);
    expect(sample(text, 'toolgate_running_jobs')).toBe(0);
    expect(sample(text, 'toolgate_rate_limit_rejections_total')).toBeUndefined();
    expect(text).toContain('# TYPE toolgate_rate_limit_rejections_total counter');
    expect(sample(text, 'toolgate_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reads the running-jobs gauge from the source a jobs service registers', async () => {
    let running = 4;
    t.app.services.metrics.setSource('toolgate_running_jobs', () => running);
    expect(sample((await t.admin(t.http.get('/metrics'))).text, 'toolgate_running_jobs')).toBe(4);
    running = 1;
    expect(sample((await t.admin(t.http.get('/metrics'))).text, 'toolgate_running_jobs')).toBe(1);
  });

  it('counts calls refused by a session rate limit as rate-limit rejections', async () => {
    const session = await t.createSession({
      profile: 'read-only',
      rateLimits: { '*': { limit: 1, windowSeconds: 60 } },
    });
    expect((await t.call(session, 'list_directory', {})).status).toBe(200);
    expect((await t.call(session, 'list_directory', {})).status).toBe(429);
    expect((await t.call(session, 'list_directory', {})).status).toBe(429);
    const text = (await t.admin(t.http.get('/metrics'))).text;
    expect(
      sample(text, 'toolgate_rate_limit_rejections_total', {
        tool: 'list_directory',
        category: 'filesystem',
      }),
    ).toBe(2);
    expect(
      sample(text, 'toolgate_tool_calls_total', {
        tool: 'list_directory',
        status: 'refused',
        code: 'RATE_LIMITED',
      }),
    ).toBe(2);
  });

  it('exposes free space of the data filesystem and each session’s disk use, without keeping runtimes busy', async () => {
    const session = await t.createSession({ profile: 'full', files: { 'a.txt': 'x'.repeat(1000) } });
    expect(
      (await t.call(session, 'run_command', { command: 'head -c 5000 /dev/zero | tr "\\0" y' })).status,
    ).toBe(200);
    const runtime = t.app.services.runtimes.get(session.id)!;
    const before = runtime.lastActivity;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = (await t.admin(t.http.get('/metrics'))).text;
    expect(sample(text, 'toolgate_data_free_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'toolgate_data_free_inodes')).toBeGreaterThan(0);
    expect(sample(text, 'toolgate_session_workspace_bytes', { session: session.id })).toBe(1000);
    expect(sample(text, 'toolgate_session_workspace_files', { session: session.id })).toBe(1);
    expect(sample(text, 'toolgate_session_log_bytes', { session: session.id })).toBe(5000);
    // A scrape is not activity: idle runtimes still stop on time.
    expect(runtime.lastActivity).toBe(before);
    // A stopped runtime is not started for a scrape; its logs are still counted.
    await runtime.stop();
    const after = (await t.admin(t.http.get('/metrics'))).text;
    expect(runtime.state).toBe('stopped');
    expect(sample(after, 'toolgate_session_workspace_bytes', { session: session.id })).toBeUndefined();
    expect(sample(after, 'toolgate_session_log_bytes', { session: session.id })).toBe(5000);
  });
});
