// The per-call cost one agent sees, sequential calls from one client, p50 and p99 per call: the
// official MCP filesystem server (@modelcontextprotocol/server-filesystem) over stdio, a child process
// of this one, as the baseline; toolgate's REST route; toolgate's MCP endpoint (the SDK's Streamable
// HTTP client). The same reads of a 2-line file and the same small edit (a line replaced and back).
// Goals (the per-call cost issue): REST p50 ≤ 1.5× the stdio server's, MCP ≤ 1.2× REST. Loopback only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callTool, fmt, percentile, startServer } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const WARMUP = 200;

async function measure(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  return times;
}

const line = (label: string, times: number[]) =>
  console.log(
    `${label.padEnd(34)} p50 ${fmt(percentile(times, 50), 3)} ms   p99 ${fmt(percentile(times, 99), 3)} ms`,
  );

// The baseline: the MCP filesystem server on a directory of its own.
const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-mcpfs-'));
writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
const fsServerEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const stdio = new Client({ name: 'bench', version: '1.0.0' });
await stdio.connect(
  new StdioClientTransport({ command: process.execPath, args: [fsServerEntry, dir], stderr: 'ignore' }),
);
const file = path.join(dir, 'a.txt');
const stdioRead = await measure(() => stdio.callTool({ name: 'read_text_file', arguments: { path: file } }));
const stdioEdit = await measure((i) =>
  stdio.callTool({
    name: 'edit_file',
    arguments: {
      path: file,
      edits: [i % 2 ? { oldText: 'TWO', newText: 'two' } : { oldText: 'two', newText: 'TWO' }],
    },
  }),
);
await stdio.close();
rmSync(dir, { recursive: true, force: true });

// toolgate, REST and MCP, on the same kind of file.
const server = await startServer();
const session = await server.session({ profile: 'read-write', files: { 'a.txt': 'one\ntwo\n' } });
const rest = (tool: string, input: object) => callTool(server.url, session, tool, input);
const edit = (i: number) =>
  i % 2 ? { old_string: 'TWO', new_string: 'two' } : { old_string: 'two', new_string: 'TWO' };
const restRead = await measure(() => rest('read_file', { path: 'a.txt' }));
const restEdit = await measure((i) => rest('edit_file', { path: 'a.txt', ...edit(i) }));
const mcp = new Client({ name: 'bench', version: '1.0.0' });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${session.token}` } },
  }),
);
const mcpRead = await measure(() => mcp.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }));
const mcpEdit = await measure((i) =>
  mcp.callTool({ name: 'edit_file', arguments: { path: 'a.txt', ...edit(i) } }),
);
await mcp.close();
await server.close();

const p50 = (times: number[]) => percentile(times, 50);
console.log(`${CALLS} sequential calls each (after ${WARMUP} to warm up), one client`);
line('MCP filesystem server, stdio: read', stdioRead);
line('toolgate REST: read_file', restRead);
line('toolgate MCP: read_file', mcpRead);
line('MCP filesystem server, stdio: edit', stdioEdit);
line('toolgate REST: edit_file', restEdit);
line('toolgate MCP: edit_file', mcpEdit);
console.log(
  `read: REST/stdio server ${fmt(p50(restRead) / p50(stdioRead))} (goal ≤ 1.5), ` +
    `MCP/REST ${fmt(p50(mcpRead) / p50(restRead))} (goal ≤ 1.2)`,
);
console.log(
  `edit: REST/stdio server ${fmt(p50(restEdit) / p50(stdioEdit))}, MCP/REST ${fmt(p50(mcpEdit) / p50(restEdit))}`,
);
