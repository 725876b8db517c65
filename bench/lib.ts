// Shared benchmark helpers: a real toolgate app listening on loopback, a session, and autocannon runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export const ADMIN_KEY = 'tga_bench_admin_key_0123456789';

export interface BenchServer {
  app: FastifyInstance;
  url: string;
  dataDir: string;
  session(body?: Record<string, unknown>): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/**
 * A bench stopped by Ctrl-C, `timeout` or kill ends without close(): `cleanUp` runs all the same (the
 * data dir removed, a server process stopped), then the bench exits. Returns the unregistration.
 */
export function onInterrupt(cleanUp: () => void): () => void {
  const exit = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', exit).once('SIGTERM', exit);
  return () => process.off('SIGINT', exit).off('SIGTERM', exit);
}

export async function startServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-'));
  const unregister = onInterrupt(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await buildApp(config, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    url,
    dataDir,
    async session(body = {}) {
      const res = await fetch(`${url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; token: string };
    },
    async close() {
      unregister();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One tool call with the session's token; throws unless it answers 200. */
export async function callTool(
  url: string,
  session: { id: string; token: string },
  tool: string,
  input: unknown,
): Promise<{ data: Record<string, unknown> }> {
  const res = await fetch(`${url}/v1/sessions/${session.id}/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: Record<string, unknown> };
}

export interface LoadResult {
  requestsPerSec: number;
  /** Requests completed in the run. */
  total: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** autocannon against one URL; bounded in time, loopback only. */
export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 10, duration: 5, ...options });
  return {
    requestsPerSec: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** Runs `work` `times` times one after another; each run's wall time in ms. */
export async function timed(times: number, work: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const began = performance.now();
    await work();
    ms.push(performance.now() - began);
  }
  return ms;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
