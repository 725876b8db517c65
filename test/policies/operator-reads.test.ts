// The operator's views of a session (the console opening it: GET …/changes and …/checkpoints with the
// admin key) are not the agent's calls: audited as operator reads (their own entry point), never counted
// in the session's stats, never spending its rate-limit budget or parked by its approval list, and left
// out of the session's audit timeline unless asked for (operatorReads=true).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('operator reads', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('leave the session its rate limit, stats and timeline, and are audited as operator reads', async () => {
    const s = await t.createSession({
      profile: 'full',
      files: { 'a.txt': 'a\n' },
      rateLimits: { '*': { limit: 2, windowSeconds: 60 } },
      // Even a session whose approval list names the category: the operator is not parked.
      approval: ['workspace'],
    });
    // What a console watching the session's activity sees: only its agent's calls.
    const seen: string[] = [];
    const unsubscribe = t.app.services.events.subscribe(s.id, ({ type, data }) => {
      if (type === 'tool_call_start') seen.push(data.tool as string);
    });
    // The console opening the session, a few times.
    for (let i = 0; i < 3; i++) {
      const changes = await t.admin(t.http.get(`/v1/sessions/${s.id}/changes?format=json`));
      expect(changes.status).toBe(200);
      const checkpoints = await t.admin(t.http.get(`/v1/sessions/${s.id}/checkpoints`));
      expect(checkpoints.status).toBe(200);
      expect((await t.admin(t.http.get(`/v1/sessions/${s.id}/todos`))).status).toBe(200);
    }
    // The agent's budget is whole: two calls pass, the third is limited.
    expect((await t.call(s, 'read_file', { path: 'a.txt' })).status).toBe(200);
    expect((await t.call(s, 'list_directory', {})).status).toBe(200);
    expect((await t.call(s, 'file_info', { path: 'a.txt' })).status).toBe(429);
    unsubscribe();
    expect(seen).toEqual(['read_file', 'list_directory', 'file_info']);

    const stats = await t.admin(t.http.get(`/v1/stats?sessionId=${s.id}`));
    expect(stats.body.totals).toMatchObject({ total: 3, success: 2, refused: 1 });
    expect(Object.keys(stats.body.byTool).sort()).toEqual(['file_info', 'list_directory', 'read_file']);

    type Row = { tool: string; entryPoint: string; caller: string };
    const timeline = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
    expect((timeline.body.entries as Row[]).map((row) => row.entryPoint)).toEqual(['rest', 'rest', 'rest']);
    const everything = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&operatorReads=true`));
    const operator = (everything.body.entries as Row[]).filter((row) => row.entryPoint === 'operator');
    expect(operator.map((row) => [row.tool, row.caller]).sort()).toEqual(
      [
        ...Array(3).fill(['checkpoint_list', 'admin']),
        ...Array(3).fill(['workspace_changes', 'admin']),
      ].sort(),
    );
  });

  it('the same routes called with the session token are the agent’s calls', async () => {
    const s = await t.createSession({
      profile: 'full',
      rateLimits: { '*': { limit: 1, windowSeconds: 60 } },
    });
    const auth = `Bearer ${s.token}`;
    expect((await t.http.get(`/v1/sessions/${s.id}/checkpoints`).set('authorization', auth)).status).toBe(
      200,
    );
    expect((await t.http.get(`/v1/sessions/${s.id}/checkpoints`).set('authorization', auth)).status).toBe(
      429,
    );
    const timeline = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
    expect(timeline.body.entries).toHaveLength(2);
  });
});
