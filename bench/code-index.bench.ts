// Code index on a large real tree (packages from node_modules, ≥ 1,000 source files, copied into a
// session workspace): cold indexing speed in files/s against a bare read of the same files, and warm
// search_code / get_codebase_map p50 latency against a plain read_file call, all in the same run.
// Targets: cold index >= 500 files/s; warm queries <= 100 ms p50.
import { cpSync, existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { languageOf } from '../src/code/languages.js';
// The bench sets up its trees on the host: the runtime's own walker serves to count them.
import { walkSourceFiles } from '../src/runtime/inside/workspace-walk.js';
import { fmt, load, startServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const MIN_FILES = 1000;
// Real, sizeable packages this project already depends on; taken in order until the tree is big enough.
const CANDIDATES = ['@anthropic-ai/sdk', 'openai', 'zod', 'fastify', '@fastify/swagger-ui', 'typebox'];

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = await startServer();

async function sessionWithTree() {
  const session = await server.session({ profile: 'read-only' });
  const dir = server.app.services.workspaces.dirFor(session.id);
  let files = 0;
  const used: string[] = [];
  for (const name of CANDIDATES) {
    if (files >= MIN_FILES) break;
    const source = path.join(repoRoot, 'node_modules', name);
    if (!existsSync(source)) continue;
    cpSync(source, path.join(dir, 'packages', name.replace('/', '__')), { recursive: true });
    used.push(name);
    const walked = await walkSourceFiles({
      root: dir,
      dir,
      signal: new AbortController().signal,
      accept: (p: string) => languageOf(p) !== undefined,
      maxFiles: 1_000_000,
    });
    files = walked.files.length;
  }
  return { session, dir, used };
}

async function call(session: { id: string; token: string }, tool: string, input: unknown) {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/sessions/${session.id}/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as {
    success: boolean;
    data?: { index?: { files: number; parsed: number } };
  };
  if (!body.success) throw new Error(`${tool}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, data: body.data };
}

const searchInput = { query: 'createMessage', match: 'fuzzy', limit: 20 };
const mapInput = { max_tokens: 2048 };

// The service's first parse in a process also compiles the wasm grammars; a tiny session pays that here so
// "cold" below measures indexing a new workspace on a running service.
const warmUp = await server.session({
  profile: 'read-only',
  files: {
    'a.ts': 'export const a = 1;\n',
    'b.js': 'export const b = 2;\n',
    'c.mjs': 'export const c = 3;\n',
  },
});
const processStart = await call(warmUp, 'search_code', { query: 'a' });

// Cold: a fresh session each, so each tool pays for indexing the whole tree once.
const a = await sessionWithTree();
const b = await sessionWithTree();

// Baseline in the same run: reading every file the index covers, nothing else.
const walked = await walkSourceFiles({
  root: a.dir,
  dir: a.dir,
  signal: new AbortController().signal,
  accept: (p: string) => languageOf(p) !== undefined,
  maxFiles: 1_000_000,
});
const readStarted = performance.now();
let bytes = 0;
for (const file of walked.files) bytes += (await fs.readFile(path.join(a.dir, file.path))).length;
const readMs = performance.now() - readStarted;

const coldSearch = await call(a.session, 'search_code', searchInput);
const coldMap = await call(b.session, 'get_codebase_map', mapInput);
const indexed = coldSearch.data!.index!.files;

const toolUrl = (session: { id: string }, tool: string) =>
  `${server.url}/v1/sessions/${session.id}/tools/${tool}`;
const request = (session: { id: string; token: string }, tool: string, input: unknown) => ({
  url: toolUrl(session, tool),
  method: 'POST' as const,
  headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
  body: JSON.stringify(input),
  connections: 1,
});
const someFile = walked.files[0].path;
// Warm-up, then one connection each so p50 is a call's latency, not queueing.
await load({ ...request(a.session, 'read_file', { path: someFile }), duration: 1 });
const baseline = await load({ ...request(a.session, 'read_file', { path: someFile }), duration: DURATION });
const warmSearch = await load({ ...request(a.session, 'search_code', searchInput), duration: DURATION });
const warmMap = await load({ ...request(b.session, 'get_codebase_map', mapInput), duration: DURATION });

const perSecond = (files: number, ms: number) => (files / ms) * 1000;
console.log(
  `tree: ${indexed} source files indexed (${walked.files.length} walked, ${(bytes / 1e6).toFixed(1)} MB) from ${a.used.join(', ')}`,
);
console.log(
  `baseline bare read of those files : ${fmt(readMs, 0)} ms = ${fmt(perSecond(walked.files.length, readMs), 0)} files/s`,
);
console.log(
  `cold search_code (index + query)   : ${fmt(coldSearch.ms, 0)} ms = ${fmt(perSecond(indexed, coldSearch.ms), 0)} files/s (target >= 500)`,
);
console.log(
  `cold get_codebase_map              : ${fmt(coldMap.ms, 0)} ms = ${fmt(perSecond(indexed, coldMap.ms), 0)} files/s (target >= 500)`,
);
console.log(
  `ratio cold index / bare read       : ${fmt(perSecond(indexed, coldSearch.ms) / perSecond(walked.files.length, readMs))}`,
);
console.log(
  `baseline read_file (warm)          : p50 ${baseline.p50Ms} ms, ${fmt(baseline.requestsPerSec, 0)} req/s`,
);
console.log(
  `warm search_code                   : p50 ${warmSearch.p50Ms} ms, p99 ${warmSearch.p99Ms} ms, ${fmt(warmSearch.requestsPerSec, 0)} req/s (target p50 <= 100 ms)`,
);
console.log(
  `warm get_codebase_map              : p50 ${warmMap.p50Ms} ms, p99 ${warmMap.p99Ms} ms, ${fmt(warmMap.requestsPerSec, 0)} req/s (target p50 <= 100 ms)`,
);
// One connection: mean latency is 1 / throughput (p50 of a sub-millisecond call rounds to 0).
const meanMs = (r: { requestsPerSec: number }) => 1000 / Math.max(r.requestsPerSec, 1e-9);
console.log(`first parse in the process (grammar compile, 3 files): ${fmt(processStart.ms, 0)} ms`);
console.log(
  `ratio warm mean latency search_code / read_file: ${fmt(meanMs(warmSearch) / meanMs(baseline), 0)}x ` +
    `(${fmt(meanMs(warmSearch), 1)} ms vs ${fmt(meanMs(baseline), 2)} ms)`,
);
const non2xx = baseline.non2xx + warmSearch.non2xx + warmMap.non2xx;
if (non2xx) console.log(`non-2xx responses: ${non2xx} (latencies are not valid)`);
await server.close();
