// Redundancy detection: identical read-only calls of one batch or one X-Toolgate-Turn run once and are
// answered from the first result (duplicate: true, with a hint); identical side-effecting calls are
// refused with 409 DUPLICATE_CALL unless the tool is idempotent. Audited and counted in stats.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/contract/tool.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

let runs = 0;
const countedRead = defineTool({
  name: 'counted_read',
  category: 'testing',
  description: 'Test tool: counts how often it really ran.',
  capabilities: { readsFiles: true },
  input: Type.Object({ key: Type.String(), mode: Type.String({ default: 'x' }) }),
  output: Type.Object({ run: Type.Integer() }),
  async execute() {
    return { run: ++runs };
  },
});

describe('duplicate calls', () => {
  let t: InjectApp;
  let address: string;
  beforeAll(async () => {
    t = await injectApp({}, { tools: [...BUILTIN_TOOLS, countedRead] });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const batch = (session: { id: string; token: string }, body: object, turn?: string) => {
    const req = t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`);
    return (turn ? req.set('x-toolgate-turn', turn) : req).send(body);
  };

  it('runs identical reads of a batch once, whatever the key order, and counts them', async () => {
    const session = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'alpha\n' } });
    const before = runs;
    const res = await batch(session, {
      calls: [
        { name: 'counted_read', arguments: { key: 'k', mode: 'y' } },
        { name: 'counted_read', arguments: { mode: 'y', key: 'k' } },
        { name: 'counted_read', arguments: { key: 'k' } }, // mode defaults to x: another call
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'a.txt', offset: 1 } }, // the default, spelled out
      ],
    });
    expect(res.status).toBe(200);
    expect(runs - before).toBe(2);
    const [first, second, third, read, readAgain] = res.body.results;
    expect(second).toMatchObject({ success: true, duplicate: true, data: first.data });
    expect(second.hint).toContain(first.callId);
    expect(second.text.startsWith(second.hint)).toBe(true);
    expect(first.duplicate).toBeUndefined();
    expect(third.duplicate).toBeUndefined();
    expect(readAgain).toMatchObject({ duplicate: true, data: read.data });

    // A new batch is a new turn.
    await batch(session, { calls: [{ name: 'counted_read', arguments: { key: 'k', mode: 'y' } }] });
    expect(runs - before).toBe(3);

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
    expect(audit.body.entries.filter((e: { duplicate: boolean }) => e.duplicate)).toHaveLength(2);
    const stats = await t.admin(t.http.get(`/v1/stats?sessionId=${session.id}`));
    expect(stats.body.totals.duplicates).toBe(2);
    expect(stats.body.byTool.counted_read).toMatchObject({ total: 4, duplicates: 1 });
  });

  it('refuses an identical side-effecting call of the batch unless the tool is idempotent', async () => {
    const session = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'alpha\n' } });
    const edit = { path: 'a.txt', old_string: 'alpha', new_string: 'alpha beta' };
    const res = await batch(session, {
      calls: [
        { name: 'edit_file', arguments: edit },
        { name: 'edit_file', arguments: edit },
        { name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
        { name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
      ],
    });
    const [editOnce, editTwice, write, writeAgain] = res.body.results;
    expect(editOnce.success).toBe(true);
    expect(editTwice.error).toMatchObject({
      code: 'DUPLICATE_CALL',
      details: { duplicateOf: editOnce.callId },
    });
    expect(write.success && writeAgain.success).toBe(true);
    const workspace = t.app.services.workspaces.dirFor(session.id);
    expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('alpha beta\n');
  });

  it('detects duplicates across REST and MCP calls that share an X-Toolgate-Turn', async () => {
    const session = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'alpha\n' } });
    const call = (tool: string, input: object, turn?: string) => {
      const req = t.call(session, tool, input);
      return turn ? req.set('x-toolgate-turn', turn) : req;
    };
    const first = await call('read_file', { path: 'a.txt' }, 'turn-1');
    const again = await call('read_file', { path: 'a.txt' }, 'turn-1');
    expect(again.body.metadata).toMatchObject({ duplicate: true, duplicateOf: first.body.callId });
    expect(again.body.data).toEqual(first.body.data);
    expect((await call('read_file', { path: 'a.txt' }, 'turn-2')).body.metadata.duplicate).toBeUndefined();
    expect((await call('read_file', { path: 'a.txt' })).body.metadata.duplicate).toBeUndefined();

    const move = { source: 'a.txt', destination: 'b.txt' };
    expect((await call('move_file', move, 'turn-3')).status).toBe(200);
    const refused = await call('move_file', move, 'turn-3');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DUPLICATE_CALL');
    expect((await call('read_file', { path: 'x' }, 'x'.repeat(201))).status).toBe(400);

    const client = new Client({ name: 'turns', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${address}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}`, 'x-toolgate-turn': 'turn-4' } },
      }),
    );
    try {
      const one = (await client.callTool({
        name: 'read_file',
        arguments: { path: 'b.txt' },
      })) as CallToolResult;
      const two = (await client.callTool({
        name: 'read_file',
        arguments: { path: 'b.txt' },
      })) as CallToolResult;
      const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
      expect(text(one)).not.toMatch(/^Identical to call/);
      expect(text(two)).toMatch(/^Identical to call \S+ earlier in this turn/);
    } finally {
      await client.close();
    }
  });
});
