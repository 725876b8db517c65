// Live enable/disable: PATCH /v1/categories/{name} and /v1/tools/{name} refuse new calls at once in every
// session, persist across a restart, are audited, and show in the listings and MCP (with list_changed).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';

describe('tool and category switches', () => {
  let t: InjectApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('disabling a category refuses new calls at once, is audited, and survives a restart', async () => {
    const dataDir = tempDir();
    t = await injectApp({}, { dataDir });
    const session = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'alpha\n' } });
    expect((await t.call(session, 'write_file', { path: 'b.txt', content: 'b' })).status).toBe(200);

    const patched = await t.admin(t.http.patch('/v1/categories/edit')).send({ enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'edit', enabled: false, enabledTools: [] });
    expect(patched.body.tools).toContain('write_file');

    const refused = await t.call(session, 'write_file', { path: 'c.txt', content: 'c' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'TOOL_DISABLED', type: 'permission_error' });
    expect(refused.body.error.message).toBe('Category edit is disabled by the operator');
    expect((await t.call(session, 'read_file', { path: 'a.txt' })).status).toBe(200);

    const asSession = await t.http.get('/v1/tools').set('authorization', `Bearer ${session.token}`);
    const names = asSession.body.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('read_file');
    expect(names).not.toContain('write_file');
    const asAdmin = await t.admin(t.http.get('/v1/tools?category=edit'));
    expect(asAdmin.body.tools.every((tool: { enabled: boolean }) => tool.enabled === false)).toBe(true);
    const openai = await t.admin(t.http.get('/v1/tools?format=openai'));
    expect(JSON.stringify(openai.body)).not.toContain('"write_file"');

    const audit = await t.admin(t.http.get('/v1/audit?tool=category:edit'));
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0]).toMatchObject({
      category: 'edit',
      caller: 'admin',
      entryPoint: 'admin',
      inputSummary: '{"category":"edit","enabled":false}',
    });
    const refusedRow = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&status=refused`));
    expect(JSON.stringify(refusedRow.body)).toContain('TOOL_DISABLED');

    await t.close({ keepData: true });
    t = await injectApp({}, { dataDir });
    const again = await t.call(session, 'write_file', { path: 'c.txt', content: 'c' });
    expect(again.body.error?.code).toBe('TOOL_DISABLED');
    const categories = await t.admin(t.http.get('/v1/categories'));
    expect(categories.body.categories.find((c: { name: string }) => c.name === 'edit').enabled).toBe(false);

    await t.admin(t.http.patch('/v1/categories/edit')).send({ enabled: true });
    expect((await t.call(session, 'write_file', { path: 'c.txt', content: 'c' })).status).toBe(200);
  });

  it('disabling one tool hides it from MCP tools/list and notifies connected clients', async () => {
    t = await injectApp();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const session = await t.createSession({ profile: 'read-only' });
    const client = new Client({ name: 'switch-test', version: '1.0.0' });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${address}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('grep');
      // The client opens its notification stream after initialize; give it a moment to be there.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const patched = await t.admin(t.http.patch('/v1/tools/grep')).send({ enabled: false });
      expect(patched.body).toMatchObject({ name: 'grep', enabled: false });
      await changed;
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('grep');
      const call = await client.callTool({ name: 'grep', arguments: { pattern: 'x' } });
      expect(call.isError).toBe(true);
      expect(JSON.stringify(call.content)).toContain('disabled by the operator');
    } finally {
      await client.close();
    }
  });

  it('only the admin may switch, and only known names', async () => {
    t = await injectApp();
    const session = await t.createSession();
    const bySession = await t.http
      .patch('/v1/tools/grep')
      .set('authorization', `Bearer ${session.token}`)
      .send({ enabled: false });
    expect(bySession.body.error.code).toBe('ADMIN_REQUIRED');
    expect((await t.admin(t.http.patch('/v1/categories/nope')).send({ enabled: false })).status).toBe(404);
    expect((await t.admin(t.http.patch('/v1/tools/nope')).send({ enabled: false })).status).toBe(404);
    const bad = await t.admin(t.http.patch('/v1/tools/grep')).send({ enabled: 'no' });
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });
});
