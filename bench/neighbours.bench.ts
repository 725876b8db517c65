// npm run bench -- neighbours: does one hostile session slow the others down? 20 well-behaved sessions
// (read_file, edit_file, grep in a loop) run twice in the same process: alone, and beside one session
// that sends the worst valid inputs in a loop (5 MiB of HTML through web_fetch from a loopback server, a
// pathological V4A patch, a fuzzy edit_file on a 20,000-line file, a 16 MiB JSON body, a zip of 65,535
// entries). Reported: the well-behaved p99 with the hostile session over without (goal ≤ 2×), the event
// loop's lag p99 in each phase (goal ≤ 50 ms), and each hostile call's status and time against its
// deadline (goal: answered within deadline + 1 s). The machine may be shared: read the ratio, not the ms.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer, fmt, percentile } from './lib.js';
import {
  bigHtml,
  FUZZY_OLD_STRING,
  htmlServer,
  NUMBERED_FILE,
  PATHOLOGICAL_V4A,
  REPETITIVE_FILE,
} from '../test/helpers/hostile-inputs.js';
import { storedZipOf } from '../test/transfer/archive-helpers.js';
import { tempDir } from '../test/helpers/app.js';

const SESSIONS = 20;
const PHASE_MS = Number(process.env.NEIGHBOURS_PHASE_MS ?? 25_000);
const CPU_JOB_MS = 5_000;
const MiB = 1024 * 1024;

const configDir = tempDir('toolgate-bench-config-');
const configFile = path.join(configDir, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({ limits: { cpuJobMs: CPU_JOB_MS }, network: { openRanges: ['127.0.0.1/32'] } }),
);
const page = await htmlServer(bigHtml(5 * MiB));
const server = await startServer({ TOOLGATE_CONFIG: configFile });

type Session = { id: string; token: string };
async function post(session: Session, url: string, body: string | Uint8Array, type = 'application/json') {
  const started = performance.now();
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await res.text();
  let code = '';
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '';
  } catch {
    code = 'not JSON';
  }
  return { status: res.status, code, ms: performance.now() - started };
}
const call = (session: Session, tool: string, input: unknown) =>
  post(session, `/v1/sessions/${session.id}/tools/${tool}`, JSON.stringify(input));

const source = Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';
const neighbours: Session[] = [];
for (let i = 0; i < SESSIONS; i++) {
  neighbours.push(
    await server.session({ profile: 'full', files: { 'src/a.ts': source, 'README.md': 'hi\n' } }),
  );
}
const hostile = await server.session({
  profile: 'full',
  network: { mode: 'open' },
  files: { 'repetitive.txt': REPETITIVE_FILE, 'numbered.txt': NUMBERED_FILE },
});
const zip = storedZipOf(
  Array.from({ length: 65_535 }, (_, i) => ({ name: `d${i % 100}/f${i}.txt`, content: '' })),
);
const hugeBody = JSON.stringify({ path: 'big.txt', content: 'x'.repeat(16 * MiB) });

/** Each neighbour: read_file, edit_file (flipping one line back and forth), grep, until the phase ends. */
async function neighbourLoad(until: number) {
  const latencies: number[] = [];
  let failures = 0;
  await Promise.all(
    neighbours.map(async (s, n) => {
      for (let turn = 0; performance.now() < until; turn++) {
        const line = `export const value${(turn + n) % 200} = ${(turn + n) % 200};`;
        const flipped = line.replace('export const', 'export let');
        for (const [tool, input] of [
          ['read_file', { path: 'src/a.ts', limit: 50 }],
          ['edit_file', { path: 'src/a.ts', old_string: line, new_string: flipped }],
          ['edit_file', { path: 'src/a.ts', old_string: flipped, new_string: line }],
          ['grep', { pattern: `value${turn % 200}\\b`, path: 'src' }],
        ] as const) {
          const res = await call(s, tool, input);
          latencies.push(res.ms);
          if (res.status !== 200) failures++;
        }
      }
    }),
  );
  return { latencies, failures };
}

interface HostileResult {
  name: string;
  deadlineMs: number;
  status: number;
  code: string;
  ms: number;
}

/** The hostile session: each worst input in turn, until the phase ends. */
async function hostileLoad(until: number) {
  const results: HostileResult[] = [];
  const inputs: Array<[string, number, () => ReturnType<typeof post>]> = [
    [
      'web_fetch 5 MiB HTML',
      CPU_JOB_MS,
      () => call(hostile, 'web_fetch', { url: page.url, timeout_ms: CPU_JOB_MS }),
    ],
    ['apply_patch V4A', CPU_JOB_MS, () => call(hostile, 'apply_patch', { patch: PATHOLOGICAL_V4A })],
    [
      'edit_file fuzzy 500/20,000 lines',
      CPU_JOB_MS,
      () =>
        call(hostile, 'edit_file', { path: 'repetitive.txt', old_string: FUZZY_OLD_STRING, new_string: 'y' }),
    ],
    [
      'write_file 16 MiB JSON body',
      0,
      () => post(hostile, `/v1/sessions/${hostile.id}/tools/write_file`, hugeBody),
    ],
    [
      'zip of 65,535 entries',
      CPU_JOB_MS,
      () => post(hostile, `/v1/sessions/${hostile.id}/archive?path=unpacked`, zip, 'application/zip'),
    ],
  ];
  for (let i = 0; performance.now() < until; i++) {
    const [name, deadlineMs, run] = inputs[i % inputs.length];
    results.push({ name, deadlineMs, ...(await run()) });
  }
  return results;
}

async function phase(withHostile: boolean) {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const until = performance.now() + PHASE_MS;
  const [neighbourResult, hostileResults] = await Promise.all([
    neighbourLoad(until),
    withHostile ? hostileLoad(until) : Promise.resolve([]),
  ]);
  lag.disable();
  return { ...neighbourResult, hostileResults, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6 };
}

// Warm-up: the CPU workers boot with the first job (seconds each from source on a busy machine).
await call(neighbours[0], 'edit_file', {
  path: 'README.md',
  old_string: 'hi',
  new_string: 'ho',
  dry_run: true,
});
const cpu = server.app.services.cpu;
while (cpu.ready < cpu.size) await new Promise((r) => setTimeout(r, 100));

const alone = await phase(false);
const beside = await phase(true);

const p99 = (l: number[]) => percentile(l, 99);
console.log(
  `${SESSIONS} well-behaved sessions, ${PHASE_MS / 1000} s per phase, CPU job deadline ${CPU_JOB_MS} ms`,
);
console.log(
  `alone:        ${alone.latencies.length} calls, p50 ${fmt(percentile(alone.latencies, 50))} ms, p99 ${fmt(p99(alone.latencies))} ms, ` +
    `failures ${alone.failures}, loop lag p99 ${fmt(alone.lagP99Ms)} ms (max ${fmt(alone.lagMaxMs)})`,
);
console.log(
  `with hostile: ${beside.latencies.length} calls, p50 ${fmt(percentile(beside.latencies, 50))} ms, p99 ${fmt(p99(beside.latencies))} ms, ` +
    `failures ${beside.failures}, loop lag p99 ${fmt(beside.lagP99Ms)} ms (max ${fmt(beside.lagMaxMs)})`,
);
const ratio = p99(beside.latencies) / p99(alone.latencies);
console.log(`well-behaved p99 ratio (with / without): ${fmt(ratio)}× (goal ≤ 2×)`);
console.log(`event-loop lag p99 with the hostile session: ${fmt(beside.lagP99Ms)} ms (goal ≤ 50 ms)`);
let late = 0;
for (const r of beside.hostileResults) {
  const ok = r.ms <= r.deadlineMs + 1000;
  if (!ok) late++;
  console.log(
    `  hostile ${r.name.padEnd(34)} ${r.status} ${r.code.padEnd(18)} ${fmt(r.ms, 0).padStart(6)} ms (deadline ${r.deadlineMs} ms + 1 s: ${ok ? 'ok' : 'LATE'})`,
  );
}
console.log(
  `hostile calls answered within deadline + 1 s: ${beside.hostileResults.length - late}/${beside.hostileResults.length}`,
);

await server.close();
await page.close();
const { rmSync } = await import('node:fs');
rmSync(configDir, { recursive: true, force: true });
