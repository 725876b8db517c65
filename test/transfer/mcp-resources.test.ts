// Workspace files as MCP resources, through the MCP SDK's own client over real HTTP: listing, text and
// binary reads (blob = base64 of the exact bytes), errors for missing files and foreign URIs, the
// read permission, and an audit row per read.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

describe('MCP resources', () => {
  let t: TestApp;
  let url: URL;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startApp();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`${address}/mcp`);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
  });

  const connect = async (token: string) => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  it('lists workspace files and reads text as text, binary as a base64 blob', async () => {
    const s = await t.createSession({ files: { 'README.md': '# hi\n', 'src/a b.py': 'print(1)\n' } });
    const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), randomBytes(5000)]);
    await t.http
      .put(`/v1/sessions/${s.id}/files/img/logo.png`)
      .set('authorization', `Bearer ${s.token}`)
      .send(image);
    const client = await connect(s.token);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual(['README.md', 'img/logo.png', 'src/a b.py']);
    const py = resources.find((r) => r.name === 'src/a b.py')!;
    expect(py.uri).toBe('workspace:///src/a%20b.py');
    const text = await client.readResource({ uri: py.uri });
    expect(text.contents[0]).toMatchObject({ uri: py.uri, text: 'print(1)\n', mimeType: 'text/x-python' });
    const blob = await client.readResource({ uri: 'workspace:///img/logo.png' });
    expect(blob.contents[0].mimeType).toBe('image/png');
    expect(Buffer.from((blob.contents[0] as { blob: string }).blob, 'base64').equals(image)).toBe(true);
    const rows = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&tool=file_download`));
    expect(rows.body.entries.filter((e: { entryPoint: string }) => e.entryPoint === 'mcp')).toHaveLength(2);
  });

  it('answers a missing file, a path outside and a foreign URI with errors', async () => {
    const s = await t.createSession();
    const client = await connect(s.token);
    await expect(client.readResource({ uri: 'workspace:///nope.txt' })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(client.readResource({ uri: 'workspace:///../../etc/passwd' })).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Unknown resource/);
  });

  it('refuses sessions that may not read files', async () => {
    const s = await t.createSession({ excludeTools: ['read_file'] });
    const client = await connect(s.token);
    await expect(client.listResources()).rejects.toThrow(/excluded/);
  });
});
