// read_file through toolgate (auth, validation, path confinement, audit + stats) vs a bare Fastify
// route doing the same fs read, in the same run. Reports both and the ratio (target >= 0.8), and the
// ratio with every policy on — permissions, a rate limit that never binds — (target >= 0.75).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { fmt, load, startServer, type LoadResult } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
/** The runtime issue's goal is stated at 50 connections. */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const content =
  Array.from({ length: 40 }, (_, i) => `line ${i + 1}: const value${i} = ${i};`).join('\n') + '\n';

const server = await startServer();
const session = await server.session({ profile: 'read-only', files: { 'src/small.ts': content } });
const filePath = path.join(server.app.services.workspaces.dirFor(session.id), 'src/small.ts');
const limited = await server.session({
  profile: 'read-only',
  files: { 'src/small.ts': content },
  rateLimits: {
    '*': { limit: 10_000_000, windowSeconds: 60 },
    filesystem: { limit: 10_000_000, windowSeconds: 60 },
  },
});

const bare = Fastify({ logger: false });
bare.post<{ Body: { path: string } }>('/read', async (request) => {
  const text = await fs.readFile(path.join(path.dirname(filePath), path.basename(request.body.path)), 'utf8');
  return { success: true, data: { path: request.body.path, content: text } };
});
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareAddress = bare.server.address();
const bareUrl = `http://127.0.0.1:${typeof bareAddress === 'object' && bareAddress ? bareAddress.port : 0}/read`;

const body = JSON.stringify({ path: 'src/small.ts' });
const toolgateRequest = {
  url: `${server.url}/v1/sessions/${session.id}/tools/read_file`,
  method: 'POST' as const,
  headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
  body,
  connections: CONNECTIONS,
};
const policyRequest = {
  ...toolgateRequest,
  url: `${server.url}/v1/sessions/${limited.id}/tools/read_file`,
  headers: { ...toolgateRequest.headers, authorization: `Bearer ${limited.token}` },
};
const bareRequest = {
  url: bareUrl,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json' },
  body,
  connections: CONNECTIONS,
};

// Warm up (JIT, SQLite page cache), then alternate short rounds and take each side's median, so a
// burst of noise on this shared machine cannot land on one side only.
await load({ ...bareRequest, duration: 1 });
await load({ ...toolgateRequest, duration: 1 });
await load({ ...policyRequest, duration: 1 });
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const rounds: Record<'bare' | 'toolgate' | 'policy', LoadResult[]> = { bare: [], toolgate: [], policy: [] };
for (let round = 0; round < ROUNDS; round++) {
  rounds.bare.push(await load({ ...bareRequest, duration: DURATION }));
  rounds.toolgate.push(await load({ ...toolgateRequest, duration: DURATION }));
  rounds.policy.push(await load({ ...policyRequest, duration: DURATION }));
}
const median = (results: LoadResult[]): LoadResult =>
  [...results].sort((x, y) => x.requestsPerSec - y.requestsPerSec)[Math.floor(results.length / 2)];
const bareResult = median(rounds.bare);
const toolgateResult = median(rounds.toolgate);
const policyResult = median(rounds.policy);
console.log(`median of ${ROUNDS} alternating rounds of ${DURATION} s, ${CONNECTIONS} connections`);

const auditRows = (server.app.services.db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number })
  .n;
console.log(`bare fastify fs read : ${fmt(bareResult.requestsPerSec, 0)} req/s, p50 ${bareResult.p50Ms} ms`);
console.log(
  `toolgate read_file   : ${fmt(toolgateResult.requestsPerSec, 0)} req/s, p50 ${toolgateResult.p50Ms} ms (audit rows written: ${auditRows})`,
);
console.log(
  `toolgate + policies  : ${fmt(policyResult.requestsPerSec, 0)} req/s, p50 ${policyResult.p50Ms} ms`,
);
console.log(
  `ratio toolgate/bare  : ${fmt(toolgateResult.requestsPerSec / bareResult.requestsPerSec)} ` +
    '(goal >= 0.6 at 50 connections; 0.51 before the session runtime)',
);
console.log(
  `ratio policies/bare  : ${fmt(policyResult.requestsPerSec / bareResult.requestsPerSec)} (target >= 0.75)`,
);
const non2xx = toolgateResult.non2xx + bareResult.non2xx + policyResult.non2xx;
if (non2xx) console.log(`non-2xx responses: ${non2xx} (the ratios are not valid)`);

// What recording costs a call: the journal append per call plus its share of the batched commit.
const { audit } = server.app.services;
const { id: _id, ...sample } = { ...audit.query({ limit: 1 })[0], callId: 'call_bench' };
const recordStart = performance.now();
const RECORDS = 20_000;
for (let i = 0; i < RECORDS; i++) {
  audit.record(sample);
  if (i % 200 === 199) audit.flush();
}
audit.flush();
console.log(
  `audit record cost    : ${fmt(((performance.now() - recordStart) * 1000) / RECORDS, 1)} µs per call (journal append + batched commit)`,
);

await bare.close();
await server.close();
