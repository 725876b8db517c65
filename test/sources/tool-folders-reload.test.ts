// Tool folders loaded and unloaded while the service runs: a folder added, changed or removed in the
// tools dir is picked up without a restart — checked first (a bad one is refused with an audit row that
// says why, and the old version keeps serving), listed at once, MCP clients told with
// notifications/tools/list_changed, one audit row per change — and a call in flight finishes on the
// version it started with.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app.js';

const definition = (name: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    name,
    description: `${name} v1`,
    category: 'reloading',
    capabilities: { readsFiles: true },
    parameters: { type: 'object', properties: {} },
    timeout_ms: 20_000,
    ...fields,
  });

/** Writes a folder's files; each file is replaced by a rename, as editors and deploys do. */
function writeFolder(dir: string, folder: string, files: Record<string, string>): void {
  mkdirSync(path.join(dir, folder), { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(dir, folder, name);
    writeFileSync(`${target}.tmp`, content, { mode: name === 'run' ? 0o755 : 0o644 });
    chmodSync(`${target}.tmp`, name === 'run' ? 0o755 : 0o644);
    renameSync(`${target}.tmp`, target);
  }
}

const prints = (json: string, sleep = 0) => `#!/bin/sh\n${sleep ? `sleep ${sleep}\n` : ''}echo '${json}'\n`;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tool folders reload while the service runs', () => {
  let t: TestApp;
  let dir: string;
  let session: { id: string; token: string };
  let client: Client;
  let listChanged = 0;

  beforeAll(async () => {
    dir = tempDir('toolgate-tools-');
    // An operator's tools dir is readable by the runtime's user (a container's is not the service's).
    chmodSync(dir, 0o755);
    writeFolder(dir, 'greet', { 'definition.json': definition('greet'), run: prints('{"version":1}') });
    t = await startApp({ TOOLGATE_TOOLS_DIR: dir });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    session = await t.createSession({ profile: 'read-only' });
    client = new Client({ name: 'reload-test', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${address}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tool = (name: string) => t.admin(t.http.get(`/v1/tools/${name}`));
  const folderRows = async () =>
    (await t.admin(t.http.get('/v1/audit?limit=100'))).body.entries
      .filter((row: { caller: string }) => row.caller === 'toolgate')
      .map((row: { inputSummary: string; status: string; errorCode: string | null }) => ({
        ...JSON.parse(row.inputSummary),
        status: row.status,
        errorCode: row.errorCode,
      }));

  it('picks up an added folder: listed, callable, and MCP clients told', async () => {
    const notified = listChanged;
    writeFolder(dir, 'added', { 'definition.json': definition('added'), run: prints('{"added":true}') });
    await until('the added tool', async () => ((await tool('added')).status === 200 ? true : undefined));
    expect((await t.call(session, 'added', {})).body.data).toEqual({ added: true });
    await until('list_changed', async () => (listChanged > notified ? true : undefined));
    expect((await client.listTools()).tools.map((entry) => entry.name)).toContain('added');
  });

  it('a changed folder replaces the tool; a call in flight finishes on its own version', async () => {
    writeFolder(dir, 'greet', {
      'definition.json': definition('greet', { description: 'greet v1 slow' }),
      run: prints('{"version":1}', 1),
    });
    await until('the slow version', async () =>
      (await tool('greet')).body.description === 'greet v1 slow' ? true : undefined,
    );
    const inFlight = t.call(session, 'greet', {}).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFolder(dir, 'greet', {
      'definition.json': definition('greet', { description: 'greet v2' }),
      run: prints('{"version":2}'),
    });
    await until('v2', async () => ((await tool('greet')).body.description === 'greet v2' ? true : undefined));
    expect((await inFlight).body.data).toEqual({ version: 1 });
    expect((await t.call(session, 'greet', {})).body.data).toEqual({ version: 2 });
  });

  it('refuses a bad change with an audit row saying why, and keeps serving the version before', async () => {
    writeFolder(dir, 'greet', { 'definition.json': '{"name": "greet", "description": "broken"' });
    const refused = await until('the refusal', async () =>
      (await folderRows()).find((row: { change: string }) => row.change === 'refused'),
    );
    expect(refused).toMatchObject({
      folder: 'greet',
      tool: 'greet',
      status: 'error',
      errorCode: 'TOOL_DEFINITION_INVALID',
    });
    expect(refused.problem).toMatch(/greet\/definition\.json: \(file\) is not valid JSON/);
    expect((await tool('greet')).body.description).toBe('greet v2');
    expect((await t.call(session, 'greet', {})).body.data).toEqual({ version: 2 });
  });

  it('a removed folder unloads its tool; one audit row per change, not counted as calls', async () => {
    rmSync(path.join(dir, 'added'), { recursive: true });
    await until('the removal', async () => ((await tool('added')).status === 404 ? true : undefined));
    expect((await t.call(session, 'added', {})).body.error.code).toBe('TOOL_NOT_FOUND');
    const rows = (await folderRows()).reverse();
    expect(rows.map((row: { folder: string; change: string }) => `${row.change} ${row.folder}`)).toEqual([
      'added added',
      'changed greet',
      'changed greet',
      'refused greet',
      'removed added',
    ]);
    const stats = await t.admin(t.http.get('/v1/stats'));
    // The two calls of `added` (one ran, one found no tool), not its added/removed rows.
    expect(stats.body.byTool.added.total).toBe(2);
  });
});
