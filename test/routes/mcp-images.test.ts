// A code kernel's chart reaches an MCP client as image content (issue 40): run_code through /mcp with
// the MCP SDK's own client, a matplotlib figure shown in the cell, and the result carries the text and a
// PNG image block the client can show or hand to its model. Needs python3 with ipykernel,
// jupyter_client and matplotlib where the runtime runs (the host's Debian packages on bwrap).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { kernelHostMissing } from '../helpers/kernel.js';

const hostHasKernel = !kernelHostMissing('the MCP image tests');

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe.skipIf(!hostHasKernel)('MCP: a kernel chart as image content', () => {
  let t: TestApp;
  let client: Client | undefined;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  it('run_code with a matplotlib figure answers text and a PNG image block', async () => {
    const session = await t.createSession({ profile: 'execute' });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${address}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      }),
    );
    const result = (await client.callTool(
      {
        name: 'run_code',
        arguments: {
          code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()',
          timeout_ms: 60_000,
        },
      },
      undefined,
      { timeout: 120_000 },
    )) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
    expect(result.content[0]).toMatchObject({ type: 'text' });
    const images = result.content.filter((c) => c.type === 'image');
    expect(images).toHaveLength(1);
    const image = images[0] as { type: 'image'; data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(0, 4)).toEqual(PNG_MAGIC);
  }, 180_000);
});
