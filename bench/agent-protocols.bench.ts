// read_file calls per second through the agent entry points, against the single REST call measured in
// the same run as the baseline: a batch of 10 calls per request (toolgate and OpenAI format) and MCP
// tools/call (a single tools/call takes the endpoint's fast path). Prints calls/s and the ratio to REST (median of 3
// alternating rounds).
import { fmt, load, startServer, type LoadResult } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = 3;
const BATCH = 10;
const content =
  Array.from({ length: 40 }, (_, i) => `line ${i + 1}: const value${i} = ${i};`).join('\n') + '\n';

const server = await startServer();
const session = await server.session({ profile: 'read-only', files: { 'src/small.ts': content } });
const headers = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
const args = { path: 'src/small.ts' };

interface Case {
  name: string;
  callsPerRequest: number;
  request: Parameters<typeof load>[0];
}

function batchCase(format: string, body: unknown): Case {
  return {
    name: `batch, ${format} format, ${BATCH} reads`,
    callsPerRequest: BATCH,
    request: {
      url: `${server.url}/v1/sessions/${session.id}/calls`,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    },
  };
}

const cases: Case[] = [
  {
    name: 'REST read_file (baseline)',
    callsPerRequest: 1,
    request: {
      url: `${server.url}/v1/sessions/${session.id}/tools/read_file`,
      method: 'POST',
      headers,
      body: JSON.stringify(args),
    },
  },
  batchCase('toolgate', {
    calls: Array.from({ length: BATCH }, () => ({ name: 'read_file', arguments: args })),
  }),
  batchCase('OpenAI', {
    tool_calls: Array.from({ length: BATCH }, (_, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name: 'read_file', arguments: JSON.stringify(args) },
    })),
  }),
  {
    name: 'MCP tools/call read_file',
    callsPerRequest: 1,
    request: {
      url: `${server.url}/mcp`,
      method: 'POST',
      headers: { ...headers, accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read_file', arguments: args },
      }),
    },
  },
];

for (const { request } of cases) await load({ ...request, duration: 1 }); // warm-up
// Rounds alternate the cases so a load spike on a shared machine hits all of them, not one; the round
// with the median throughput of each case is reported.
const rounds: LoadResult[][] = cases.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, { request }] of cases.entries())
    rounds[i].push(await load({ ...request, duration: DURATION }));
}
const results = rounds.map(
  (runs) => [...runs].sort((a, b) => a.requestsPerSec - b.requestsPerSec)[runs.length >> 1],
);

const baseline = results[0].requestsPerSec * cases[0].callsPerRequest;
for (const [i, { name, callsPerRequest }] of cases.entries()) {
  const r = results[i];
  const callsPerSec = r.requestsPerSec * callsPerRequest;
  console.log(
    `${name.padEnd(36)} ${fmt(r.requestsPerSec, 0).padStart(6)} req/s  ${fmt(callsPerSec, 0).padStart(6)} calls/s  ` +
      `p50 ${fmt(r.p50Ms, 1)} ms  p99 ${fmt(r.p99Ms, 1)} ms  ratio to REST ${fmt(callsPerSec / baseline)}` +
      (r.errors || r.non2xx ? `  errors ${r.errors} non2xx ${r.non2xx}` : ''),
  );
}
await server.close();
if (rounds.flat().some((r) => r.errors > 0 || r.non2xx > 0)) process.exit(1);
