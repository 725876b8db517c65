// Mixed tool-call load against a toolgate child process, shared by the load test (short) and
// bench/load.bench.ts (60 s): autocannon on loopback, calls spread over many sessions, every response
// classified, and the server's RSS read before and after from /proc.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { tempDir } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../ops/child-server.js';

export interface LoadOptions {
  durationSeconds: number;
  sessions: number;
  connections: number;
  /** Every tenth session gets a tight rate limit: its 429s are intended, all other non-200s are errors. */
  limitedEvery?: number;
}

export interface LoadReport {
  requests: number;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses other than 200 and other than an intended 429, plus socket errors and timeouts. */
  errors: number;
  intended429: number;
  byStatus: Record<string, number>;
  /** Up to five unexpected responses, for the failure message. */
  samples: string[];
  baselineRequestsPerSec: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** RSS sampled at even intervals during the load: a plateau means stable, a steady climb a leak. */
  rssSamplesMb: number[];
  /** V8 heap in use, from the server's own /metrics, before and after. */
  heapUsedBeforeMb: number;
  heapUsedAfterMb: number;
}

interface CallContext {
  session: LoadSession;
  tool: string;
}

interface LoadSession {
  id: string;
  token: string;
  limited: boolean;
}

const SEED_FILES = {
  'src/index.ts': 'export function main(): number {\n  return 42;\n}\n',
  'src/util.ts': 'export const twice = (n: number) => n * 2;\n',
  'README.md': '# fixture\n\nA small project for load tests.\n',
};

/** The server's resident set size in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function heapUsedMb(server: ChildServer): Promise<number> {
  const text = await (await server.admin('/metrics')).text();
  const match = /^toolgate_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return match ? Number(match[1]) / 1024 / 1024 : NaN;
}

/** Picks a call for a session: mostly reads, a third writes; every call is valid for the seeded files. */
function mixedCall(n: number): { tool: string; body: unknown } {
  switch (n % 6) {
    case 0:
      return { tool: 'read_file', body: { path: 'src/index.ts' } };
    case 1:
      return { tool: 'list_directory', body: { path: '.', depth: 2 } };
    case 2:
      return {
        tool: 'write_file',
        body: { path: `out/file-${n % 7}.txt`, content: `line ${n}\n`.repeat(20) },
      };
    case 3:
      return { tool: 'read_file', body: { path: 'README.md', offset: 1, limit: 2 } };
    case 4:
      return { tool: 'write_file', body: { path: 'notes.md', content: `# note ${n}\n` } };
    default:
      return { tool: 'list_directory', body: { path: 'src' } };
  }
}

async function createSessions(server: ChildServer, options: LoadOptions): Promise<LoadSession[]> {
  const every = options.limitedEvery ?? 10;
  const sessions: LoadSession[] = [];
  for (let i = 0; i < options.sessions; i++) {
    const limited = i % every === every - 1;
    const res = await server.admin('/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({
        profile: 'read-write',
        files: SEED_FILES,
        ...(limited ? { rateLimits: { '*': { limit: 5, windowSeconds: 60 } } } : {}),
      }),
    });
    if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
    const { id, token } = (await res.json()) as { id: string; token: string };
    sessions.push({ id, token, limited });
  }
  return sessions;
}

export async function runMixedLoad(options: LoadOptions): Promise<LoadReport> {
  // Every connection of autocannon comes from 127.0.0.1: the per-IP auth throttle never matters here
  // (all tokens are valid), and the tool-call rate limits are per session.
  const server = await startChildServer({ dataDir: tempDir('toolgate-load-'), env: { LOG_LEVEL: 'warn' } });
  try {
    const sessions = await createSessions(server, options);
    const url = server.url;

    // Baseline in the same run: the cheapest route, same connections, a fifth of the time.
    const baseline = await autocannon({
      url: `${url}/healthz`,
      connections: options.connections,
      duration: Math.max(1, Math.round(options.durationSeconds / 5)),
    });

    const rssBeforeMb = rssMb(server.proc.pid!);
    const heapUsedBeforeMb = await heapUsedMb(server);
    const rssSamplesMb: number[] = [];
    const sampler = setInterval(
      () => rssSamplesMb.push(Math.round(rssMb(server.proc.pid!))),
      (options.durationSeconds * 1000) / 10,
    );
    let counter = 0;
    let errors = 0;
    let intended429 = 0;
    const samples: string[] = [];
    const result = await autocannon({
      url,
      connections: options.connections,
      duration: options.durationSeconds,
      timeout: 10,
      requests: [
        {
          method: 'POST',
          setupRequest: (request, context) => {
            const n = counter++;
            const session = sessions[n % sessions.length];
            const { tool, body } = mixedCall(Math.floor(n / sessions.length));
            // One request in flight per connection, so the context still names it in onResponse.
            Object.assign(context, { session, tool } satisfies CallContext);
            return {
              ...request,
              method: 'POST',
              path: `/v1/sessions/${session.id}/tools/${tool}`,
              headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            };
          },
          onResponse: (status, body, context) => {
            if (status === 200) return;
            const call = context as CallContext;
            if (status === 429 && call.session.limited) {
              intended429++;
              return;
            }
            errors++;
            if (samples.length < 5) samples.push(`${call.tool} ${status} ${body.slice(0, 200)}`);
          },
        },
      ],
    });
    clearInterval(sampler);
    const rssAfterMb = rssMb(server.proc.pid!);
    const heapUsedAfterMb = await heapUsedMb(server);
    const byStatus = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, Number(stat.count)]),
    );
    return {
      requests: result.requests.total,
      requestsPerSec: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: errors + result.errors + result.timeouts,
      intended429,
      byStatus,
      samples,
      baselineRequestsPerSec: baseline.requests.average,
      rssBeforeMb,
      rssAfterMb,
      rssSamplesMb,
      heapUsedBeforeMb,
      heapUsedAfterMb,
    };
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
}
