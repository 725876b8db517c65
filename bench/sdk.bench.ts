// The client SDKs' per-call overhead: read_file of a 2-line file through each client vs the same
// request made raw (with an Idempotency-Key, as the clients send one with every tool call), sequential calls from one client, p50 and p99 per call. TypeScript: the
// @toolgate/client method vs fetch + JSON (the same undici fetch underneath); Python: the toolgate
// package vs raw httpx (bench/sdk-python.py, in a venv with `pip install ./clients/python`, or
// TOOLGATE_BENCH_PYTHON). Goal (issue 42): SDK p50 ≤ 1.10× raw in each language. toolgate runs in a
// process of its own (bench/child.ts); the contestants alternate in rounds of 20 so noise on a shared
// machine lands on both. The client's CPU per call is reported too: what an SDK adds, whatever the
// server's latency does.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Toolgate } from '../clients/typescript/src/index.js';
import { startToolgateProcess } from './child.js';
import { ADMIN_KEY, fmt, percentile } from './lib.js';

const run = promisify(execFile);
const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const ROUND = 20;
const WARMUP = 200;
const GOAL = 1.1;

const server = await startToolgateProcess();
const rows: string[] = [];
let failed = false;
interface Times {
  p50: number;
  p99: number;
  cpuUs: number;
}
const report = (language: string, raw: Times, sdk: Times) => {
  const ratio = sdk.p50 / raw.p50;
  failed ||= ratio > GOAL;
  rows.push(
    `${language.padEnd(10)} raw p50 ${fmt(raw.p50)} ms p99 ${fmt(raw.p99)} ms, client CPU ${fmt(raw.cpuUs, 0)} µs/call | SDK p50 ${fmt(sdk.p50)} ms p99 ${fmt(sdk.p99)} ms, client CPU ${fmt(sdk.cpuUs, 0)} µs/call | SDK/raw p50 ${fmt(ratio)}× (goal ≤ ${GOAL}×)`,
  );
};
const timesOf = (values: number[], cpuUs: number): Times => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
  cpuUs,
});

try {
  // TypeScript
  const tg = new Toolgate({ url: server.url, apiKey: ADMIN_KEY });
  const s = await tg.session({ profile: 'read-only', files: { 'a.txt': 'one\ntwo\n' } });
  const rawCall = async () => {
    const response = await fetch(`${server.url}/v1/sessions/${s.id}/tools/read_file`, {
      method: 'POST',
      // The request the client sends: with an Idempotency-Key (its retries are safe because of it).
      headers: {
        authorization: `Bearer ${s.token}`,
        'content-type': 'application/json',
        'idempotency-key': `raw_${crypto.randomUUID()}`,
      },
      body: JSON.stringify({ path: 'a.txt' }),
    });
    if (response.status !== 200) throw new Error(`raw: ${response.status}`);
    return ((await response.json()) as { data: { content: string } }).data;
  };
  const sdkCall = () => s.read_file({ path: 'a.txt' });
  for (let i = 0; i < WARMUP; i++) await Promise.all([rawCall(), sdkCall()]);
  const times: Record<'raw' | 'sdk', number[]> = { raw: [], sdk: [] };
  const cpuUs = { raw: 0, sdk: 0 };
  for (let done = 0; done < CALLS; done += ROUND) {
    for (const [name, call] of [
      ['raw', rawCall],
      ['sdk', sdkCall],
    ] as const) {
      const cpuStart = process.cpuUsage();
      for (let i = 0; i < ROUND; i++) {
        const start = performance.now();
        const data = await call();
        times[name].push(performance.now() - start);
        if (data.content !== 'one\ntwo') throw new Error(`${name}: ${data.content}`);
      }
      const used = process.cpuUsage(cpuStart);
      cpuUs[name] += used.user + used.system;
    }
  }
  await s.close();
  report(
    'TypeScript',
    timesOf(times.raw, cpuUs.raw / times.raw.length),
    timesOf(times.sdk, cpuUs.sdk / times.sdk.length),
  );

  // Python
  let python = process.env.TOOLGATE_BENCH_PYTHON;
  const venvDir = python ? undefined : mkdtempSync(path.join(tmpdir(), 'toolgate-bench-venv-'));
  try {
    if (!python) {
      await run('python3', ['-m', 'venv', path.join(venvDir!, 'venv')]);
      python = path.join(venvDir!, 'venv/bin/python');
      await run(path.join(venvDir!, 'venv/bin/pip'), ['install', '-q', '--retries', '0', './clients/python']);
    }
    const { stdout } = await run(python, ['bench/sdk-python.py'], {
      env: {
        ...process.env,
        TOOLGATE_URL: server.url,
        TOOLGATE_API_KEY: ADMIN_KEY,
        BENCH_CALLS: String(CALLS),
      },
      maxBuffer: 1 << 20,
    });
    const result = JSON.parse(stdout) as Record<'raw' | 'sdk', Times>;
    report('Python', result.raw, result.sdk);
  } catch (err) {
    rows.push(`Python     not measured: ${String((err as Error).message).split('\n')[0]}`);
    failed = true;
  } finally {
    if (venvDir) rmSync(venvDir, { recursive: true, force: true });
  }
} finally {
  await server.close();
}
console.log(`read_file, ${CALLS} sequential calls per contestant, loopback`);
for (const row of rows) console.log(row);
if (failed) process.exitCode = 1;
