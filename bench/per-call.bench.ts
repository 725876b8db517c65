// The per-call cost one agent sees, sequential calls from one client, p50 and p99 per call: the
// official MCP filesystem server (@modelcontextprotocol/server-filesystem) over stdio, a child process
// of this one, as the baseline; toolgate's REST route; toolgate's MCP endpoint (the SDK's Streamable
// HTTP client). The same reads of a 2-line file and the same small edit (a line replaced and back).
// Goals (the per-call cost issue): REST p50 ≤ 1.5× the stdio server's, MCP ≤ 1.2× REST. Loopback only.
// toolgate runs as `npm start` runs it, in a process of its own (bench/child.ts), as the stdio server
// does: an agent never shares the service's event loop, and in one process the client's per-call work
// and the server's would queue behind each other on one thread.
// toolgate is called with a keep-alive node:http client (bench/http-client.ts) for REST and, through the
// SDK's `fetch` option, for MCP; the fetch rows show what undici's fetch adds on the client side, and
// MCP/REST with each on its stock client (the SDK's default transport, fetch for REST). Every call ends
// with its result parsed, as the SDK's clients hand theirs over. Every contestant stays connected and
// they take turns in short rounds, so noise on this shared machine spreads over all of them instead of
// landing on one.
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startToolgateProcess, treeCpuSeconds } from './child.js';
import { keepAliveClient } from './http-client.js';
import { callTool, fmt, percentile } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const ROUND = 100;
const WARMUP = 200;

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

// toolgate, REST and MCP, on the same kind of file, in its own process.
const server = await startToolgateProcess();
const session = await server.session({ profile: 'read-write', files: { 'a.txt': 'one\ntwo\n' } });
const client = keepAliveClient();
const rest = async (tool: string, input: object) => {
  const res = await client.post(
    `${server.url}/v1/sessions/${session.id}/tools/${tool}`,
    JSON.stringify(input),
    {
      authorization: `Bearer ${session.token}`,
      'content-type': 'application/json',
    },
  );
  if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${res.body}`);
  // The result as an object, as every client needs it (and as the SDK's clients hand it over).
  return JSON.parse(res.body) as unknown;
};
/** The SDK's client on its Streamable HTTP transport, over `fetch` (its default, undici's, when none). */
const mcpClient = async (fetch?: typeof client.fetchLike) => {
  const sdkClient = new Client({ name: 'bench', version: '1.0.0' });
  await sdkClient.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      fetch,
    }),
  );
  return sdkClient;
};
const mcp = await mcpClient(client.fetchLike);
// The same SDK client on its default transport, undici's fetch: what an MCP user gets out of the box,
// to set beside the REST route called with fetch. Node's fetch adds an abort listener to the transport's
// one signal per request and drops it only when the request is collected, so the count passes Node's
// warning threshold in a long run: that is the stock client's behaviour, measured as it is, not a leak
// of ours, and the warning is silenced for it.
setMaxListeners(0);
const mcpOnFetch = await mcpClient();

// MCP tools/call as one JSON-RPC POST on the same keep-alive client: the server's share of an MCP call,
// without the SDK client's own per-call work (request tracking, result schema validation).
let rpcId = 0;
const mcpRaw = async (name: string, args: object) => {
  const res = await client.post(
    `${server.url}/mcp`,
    JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
    {
      authorization: `Bearer ${session.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
  );
  if (res.status !== 200 || res.body.includes('"isError":true')) throw new Error(`mcp ${name}: ${res.body}`);
  return JSON.parse(res.body) as unknown;
};

const flip = (i: number) => (i % 2 ? ['TWO', 'two'] : ['two', 'TWO']);
const contestants: Record<string, (i: number) => Promise<unknown>> = {
  'MCP filesystem server, stdio: read': () =>
    stdio.callTool({ name: 'read_text_file', arguments: { path: file } }),
  'toolgate REST: read_file': () => rest('read_file', { path: 'a.txt' }),
  'toolgate MCP: read_file': () => mcp.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }),
  'toolgate MCP, raw JSON-RPC: read_file': () => mcpRaw('read_file', { path: 'a.txt' }),
  'toolgate REST, fetch client: read_file': () =>
    callTool(server.url, session, 'read_file', { path: 'a.txt' }),
  'toolgate MCP, fetch client: read_file': () =>
    mcpOnFetch.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }),
  'MCP filesystem server, stdio: edit': (i) => {
    const [oldText, newText] = flip(i);
    return stdio.callTool({ name: 'edit_file', arguments: { path: file, edits: [{ oldText, newText }] } });
  },
  'toolgate REST: edit_file': (i) => {
    const [old_string, new_string] = flip(i);
    return rest('edit_file', { path: 'a.txt', old_string, new_string });
  },
  'toolgate MCP: edit_file': (i) => {
    const [old_string, new_string] = flip(i);
    return mcp.callTool({ name: 'edit_file', arguments: { path: 'a.txt', old_string, new_string } });
  },
};

const times: Record<string, number[]> = {};
// toolgate's CPU (service and session runtime) in each toolgate contestant's rounds: what a call costs
// the server, which latency alone does not separate from the client's share.
const serverCpu: Record<string, number> = {};
const serverPid = server.proc.pid!;
for (const [label, call] of Object.entries(contestants)) {
  for (let i = 0; i < WARMUP; i++) await call(i);
  times[label] = [];
  serverCpu[label] = 0;
}
for (let done = 0; done < CALLS; done += ROUND) {
  for (const [label, call] of Object.entries(contestants)) {
    const cpuBefore = treeCpuSeconds(serverPid);
    for (let i = 0; i < ROUND; i++) {
      const started = performance.now();
      await call(i);
      times[label].push(performance.now() - started);
    }
    serverCpu[label] += treeCpuSeconds(serverPid) - cpuBefore;
  }
}
await stdio.close();
await mcp.close();
await mcpOnFetch.close();
client.close();
await server.close();
rmSync(dir, { recursive: true, force: true });

const p50 = (label: string) => percentile(times[label], 50);
console.log(`${CALLS} sequential calls each (after ${WARMUP} to warm up), one client, rounds of ${ROUND}`);
const cpuPerCall = (label: string) => (serverCpu[label] / times[label].length) * 1e6;
for (const [label, values] of Object.entries(times)) {
  const cpu = label.startsWith('toolgate') ? `   toolgate CPU ${fmt(cpuPerCall(label), 0)} µs/call` : '';
  console.log(
    `${label.padEnd(40)} p50 ${fmt(percentile(values, 50), 3)} ms   p99 ${fmt(percentile(values, 99), 3)} ms${cpu}`,
  );
}
const ratios = (verb: string, stdioLabel: string, restLabel: string, mcpLabel: string, goals: boolean) =>
  console.log(
    `${verb}: REST/stdio server ${fmt(p50(restLabel) / p50(stdioLabel))}${goals ? ' (goal ≤ 1.5)' : ''}, ` +
      `MCP/REST ${fmt(p50(mcpLabel) / p50(restLabel))}${goals ? ' (goal ≤ 1.2)' : ''}`,
  );
ratios(
  'read',
  'MCP filesystem server, stdio: read',
  'toolgate REST: read_file',
  'toolgate MCP: read_file',
  true,
);
ratios(
  'edit',
  'MCP filesystem server, stdio: edit',
  'toolgate REST: edit_file',
  'toolgate MCP: edit_file',
  false,
);
console.log(
  `read, stock clients: MCP (SDK on fetch)/REST (fetch) ${fmt(
    p50('toolgate MCP, fetch client: read_file') / p50('toolgate REST, fetch client: read_file'),
  )}; MCP raw JSON-RPC/REST on one connection ${fmt(
    p50('toolgate MCP, raw JSON-RPC: read_file') / p50('toolgate REST: read_file'),
  )}`,
);
// The same request costs this machine's server more CPU the longer it sat idle before it (caches and
// the vCPU's wake-up; docs/performance.md): a client that spends longer per call makes the server's
// share grow too, so the raw JSON-RPC row is the endpoint's own cost.
console.log(
  `read, toolgate CPU per call: MCP (SDK client)/REST ${fmt(
    cpuPerCall('toolgate MCP: read_file') / cpuPerCall('toolgate REST: read_file'),
  )}; MCP raw JSON-RPC/REST ${fmt(
    cpuPerCall('toolgate MCP, raw JSON-RPC: read_file') / cpuPerCall('toolgate REST: read_file'),
  )}`,
);
