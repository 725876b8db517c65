// /mcp over real HTTP with the MCP SDK's own client: listing and calling tools, permissions, rate limits,
// auth, and the audit trail (entry point "mcp").
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { keepAlivePoster } from '../helpers/keep-alive.js';
import { slowRead } from './batch-tools.js';

describe('MCP endpoint', () => {
  let t: TestApp;
  let url: URL;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startApp({}, { tools: [...BUILTIN_TOOLS, slowRead] });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`${address}/mcp`);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
  });

  const connect = async (token: string) => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const text = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

  it('initializes and lists only the tools the session may call, with hints', async () => {
    const session = await t.createSession({ profile: 'read-only' });
    const client = await connect(session.token);
    expect(client.getServerVersion()?.name).toBe('toolgate');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('read_file');
    expect(names).toContain('slow_read');
    expect(names).not.toContain('write_file');
    expect(tools.find((tool) => tool.name === 'read_file')!.annotations).toMatchObject({
      readOnlyHint: true,
    });
  });

  it('calls tools through the pipeline: text plus structured content, errors as isError', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    const client = await connect(session.token);
    await client.listTools(); // lets the client validate structuredContent against the output schemas
    const write = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'docs/a.md', content: '# A\nbody\n' },
    })) as CallToolResult;
    expect(write.isError).toBeFalsy();
    expect(text(write)).toBe('Created docs/a.md (9 bytes)');
    expect(write.structuredContent).toEqual({
      path: 'docs/a.md',
      bytesWritten: 9,
      created: true,
      dryRun: false,
    });

    const read = (await client.callTool({
      name: 'read_file',
      arguments: { path: 'docs/a.md' },
    })) as CallToolResult;
    expect(text(read)).toBe('1\t# A\n2\tbody');
    expect(read.structuredContent).toMatchObject({ content: '# A\nbody', totalLines: 2 });

    const missing = (await client.callTool({
      name: 'read_file',
      arguments: { path: 'nope.md' },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Error FILE_NOT_FOUND: No such file or directory: nope.md/);
    expect(missing._meta?.['toolgate/error']).toMatchObject({ code: 'FILE_NOT_FOUND', type: 'user_error' });

    const escape = (await client.callTool({
      name: 'read_file',
      arguments: { path: '../../etc/passwd' },
    })) as CallToolResult;
    expect(escape.isError).toBe(true);
    expect(text(escape)).toMatch(/^Error PATH_OUTSIDE_WORKSPACE/);
    expect(text(escape)).not.toContain(t.dataDir);

    const invalid = (await client.callTool({
      name: 'read_file',
      arguments: { offset: 0 },
    })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Error VALIDATION_FAILED: .*path: is required/);

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
    const rows = audit.body.entries as {
      tool: string;
      entryPoint: string;
      status: string;
      errorCode: string | null;
    }[];
    expect(rows.map((row) => [row.tool, row.entryPoint, row.status, row.errorCode]).reverse()).toEqual([
      ['write_file', 'mcp', 'success', null],
      ['read_file', 'mcp', 'success', null],
      ['read_file', 'mcp', 'error', 'FILE_NOT_FOUND'],
      ['read_file', 'mcp', 'error', 'PATH_OUTSIDE_WORKSPACE'],
      ['read_file', 'mcp', 'error', 'VALIDATION_FAILED'],
    ]);
  });

  it('refuses a tool outside the session profile with a permission error, and audits the refusal', async () => {
    const session = await t.createSession({ profile: 'read-only' });
    const client = await connect(session.token);
    const result = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'x.txt', content: 'x' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Error PERMISSION_DENIED: Tool write_file needs the "write" permission/);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&status=refused`));
    expect(audit.body.entries).toMatchObject([
      { tool: 'write_file', entryPoint: 'mcp', errorCode: 'PERMISSION_DENIED' },
    ]);
  });

  it("applies the session's rate limit to MCP calls", async () => {
    const session = await t.createSession({
      profile: 'read-only',
      files: { 'r.txt': 'r\n' },
      rateLimits: { 'tool:read_file': { limit: 2, windowSeconds: 60 } },
    });
    const client = await connect(session.token);
    const results: CallToolResult[] = [];
    for (let i = 0; i < 3; i++) {
      results.push(
        (await client.callTool({ name: 'read_file', arguments: { path: 'r.txt' } })) as CallToolResult,
      );
    }
    expect(results.map((r) => r.isError === true)).toEqual([false, false, true]);
    expect(text(results[2])).toMatch(/^Error RATE_LIMITED: /);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&status=refused`));
    expect(audit.body.entries).toMatchObject([{ entryPoint: 'mcp', errorCode: 'RATE_LIMITED' }]);
  });

  it('refuses the admin key with 403 and a missing or wrong token with 401', async () => {
    await expect(connect(ADMIN_KEY)).rejects.toMatchObject({ code: 403, message: /PERMISSION_DENIED/ });
    await expect(connect('tgs_not_a_real_token_000000')).rejects.toThrow(/401|Unauthorized/i);
    const res = await t.http
      .post('/mcp')
      .set('authorization', `Bearer ${ADMIN_KEY}`)
      .set('accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/session token/);
  });

  it('answers GET /mcp without Accept: text/event-stream with 405', async () => {
    const session = await t.createSession();
    const res = await t.http.get('/mcp').set('authorization', `Bearer ${session.token}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('answers a single tools/call on its fast path exactly as the SDK transport does', async () => {
    const session = await t.createSession({
      profile: 'read-only',
      // Text that JSON escapes: the fast path splices in the data's JSON instead of serialising it again.
      files: { 'a.txt': 'alpha\n', 'q.txt': '"quoted" \\ tab\t ü \u2028 😀\n'.repeat(500) },
    });
    const post = (body: object, headers: Record<string, string> = {}) =>
      t.http
        .post('/mcp')
        .set('authorization', `Bearer ${session.token}`)
        .set('accept', 'application/json, text/event-stream')
        .set(headers)
        .send(body);
    // Without callIds, which differ per call.
    const comparable = (body: { result?: { _meta?: Record<string, unknown> } }) => {
      const copy = structuredClone(body);
      if (copy.result?._meta) delete copy.result._meta['toolgate/callId'];
      return copy;
    };
    const calls = [
      { name: 'read_file', arguments: { path: 'a.txt' } },
      { name: 'read_file', arguments: { path: 'q.txt', offset: 2 } },
      { name: 'read_file', arguments: { path: 'missing.txt' } },
      { name: 'no_such_tool', arguments: {} },
      { name: 'write_file', arguments: { path: 'b.txt', content: 'x' } },
      { name: 'list_directory' },
    ];
    for (const [i, params] of calls.entries()) {
      const fast = await post({ jsonrpc: '2.0', id: i, method: 'tools/call', params });
      // `_meta` sends the same call through the SDK's server and transport.
      const sdk = await post({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { ...params, _meta: {} },
      });
      expect(fast.status, JSON.stringify(params)).toBe(sdk.status);
      expect(fast.headers['content-type']).toMatch(/^application\/json/);
      expect(comparable(fast.body)).toEqual(comparable(sdk.body));
    }
    // What the fast path must leave to the SDK still gets the SDK's answers.
    const notAcceptable = await post(
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: calls[0] },
      {
        accept: 'application/json',
      },
    );
    expect(notAcceptable.status).toBe(406);
    const badVersion = await post(
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: calls[0] },
      {
        'mcp-protocol-version': '1999-01-01',
      },
    );
    expect(badVersion.status).toBe(400);
  });

  it('cancels a fast-path call when its client disconnects, on a connection that made calls before', async () => {
    const session = await t.createSession({ profile: 'read-only' });
    // One keep-alive connection: the client-gone hook is the connection's, shared by its calls.
    const poster = keepAlivePoster(url, {
      authorization: `Bearer ${session.token}`,
      accept: 'application/json, text/event-stream',
    });
    const slowReadCall = (id: number, ms: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow_read', arguments: { ms } },
    });
    expect(await poster.answered(slowReadCall(1, 0))).toBe(200);
    expect(await poster.answered(slowReadCall(2, 0))).toBe(200);
    const started = Date.now();
    const req = poster.send(slowReadCall(3, 5000));
    req.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    req.destroy();
    type Row = { tool: string; status: string };
    let rows: Row[] = [];
    while (rows.length < 3 && Date.now() - started < 4000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = (await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`))).body.entries as Row[];
    }
    // The third call ended when its client left, well before its 5 s sleep was over.
    expect(rows).toHaveLength(3);
    expect(rows[0].tool).toBe('slow_read');
    expect(rows[0].status).not.toBe('success');
    expect(Date.now() - started).toBeLessThan(4000);
    poster.close();
  });
});
