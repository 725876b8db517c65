// The clients of `npm run bench -- neighbours`, in a worker thread of their own: the 20 well-behaved
// sessions and the hostile one make their calls (and build their 16 MiB body and 65,535-entry zip) on
// this thread's event loop (and the loopback server of the 5 MiB page runs here too), so the loop lag the bench measures on the main thread is the service's alone.
import { parentPort, workerData } from 'node:worker_threads';
import { bigHtml, FUZZY_OLD_STRING, htmlServer, PATHOLOGICAL_V4A } from '../test/helpers/hostile-inputs.js';
import { storedZipOf } from '../test/transfer/archive-helpers.js';

type Session = { id: string; token: string };
export interface PhaseInput {
  url: string;
  neighbours: Session[];
  hostile: Session;
  withHostile: boolean;
  phaseMs: number;
  cpuJobMs: number;
}
export interface HostileResult {
  name: string;
  deadlineMs: number;
  status: number;
  code: string;
  ms: number;
}
export interface PhaseResult {
  latencies: number[];
  failures: number;
  hostileResults: HostileResult[];
}

const MiB = 1024 * 1024;
const input = workerData as PhaseInput;
const { neighbours, hostile, cpuJobMs } = input;

async function post(session: Session, url: string, body: string | Uint8Array, type = 'application/json') {
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${input.url}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': type },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  } catch (err) {
    // A body refused by its length (413) before it was all sent: the server closes the connection and
    // fetch, still writing, sees EPIPE instead of the answer.
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? String(err);
    return { status: 0, code: `closed while sending (${cause})`, ms: performance.now() - started };
  }
  const text = await res.text();
  let code = '';
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '';
  } catch {
    code = 'not JSON';
  }
  return { status: res.status, code, ms: performance.now() - started };
}
const call = (session: Session, tool: string, body: unknown) =>
  post(session, `/v1/sessions/${session.id}/tools/${tool}`, JSON.stringify(body));

/** Each neighbour: read_file, edit_file (flipping one line back and forth), grep, until the phase ends. */
async function neighbourLoad(until: number) {
  const latencies: number[] = [];
  let failures = 0;
  await Promise.all(
    neighbours.map(async (s, n) => {
      for (let turn = 0; performance.now() < until; turn++) {
        const line = `export const value${(turn + n) % 200} = ${(turn + n) % 200};`;
        const flipped = line.replace('export const', 'export let');
        for (const [tool, body] of [
          ['read_file', { path: 'src/a.ts', limit: 50 }],
          ['edit_file', { path: 'src/a.ts', old_string: line, new_string: flipped }],
          ['edit_file', { path: 'src/a.ts', old_string: flipped, new_string: line }],
          ['grep', { pattern: `value${turn % 200}\\b`, path: 'src' }],
        ] as const) {
          const res = await call(s, tool, body);
          latencies.push(res.ms);
          if (res.status !== 200) failures++;
        }
      }
    }),
  );
  return { latencies, failures };
}

/** The hostile session: each worst input in turn, until the phase ends. */
async function hostileLoad(until: number): Promise<HostileResult[]> {
  const zip = storedZipOf(
    Array.from({ length: 65_535 }, (_, i) => ({ name: `d${i % 100}/f${i}.txt`, content: '' })),
  );
  const hugeBody = JSON.stringify({ path: 'big.txt', content: 'x'.repeat(16 * MiB) });
  const page = await htmlServer(bigHtml(5 * MiB));
  const results: HostileResult[] = [];
  const inputs: Array<[string, number, () => ReturnType<typeof post>]> = [
    [
      'web_fetch 5 MiB HTML',
      cpuJobMs,
      () => call(hostile, 'web_fetch', { url: page.url, timeout_ms: cpuJobMs }),
    ],
    ['apply_patch V4A', cpuJobMs, () => call(hostile, 'apply_patch', { patch: PATHOLOGICAL_V4A })],
    [
      'edit_file fuzzy 500/20,000 lines',
      cpuJobMs,
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
      cpuJobMs,
      () => post(hostile, `/v1/sessions/${hostile.id}/archive?path=unpacked`, zip, 'application/zip'),
    ],
  ];
  for (let i = 0; performance.now() < until; i++) {
    const [name, deadlineMs, run] = inputs[i % inputs.length];
    results.push({ name, deadlineMs, ...(await run()) });
  }
  await page.close();
  return results;
}

const until = performance.now() + input.phaseMs;
const [neighbourResult, hostileResults] = await Promise.all([
  neighbourLoad(until),
  input.withHostile ? hostileLoad(until) : Promise.resolve([]),
]);
parentPort!.postMessage({ ...neighbourResult, hostileResults } satisfies PhaseResult);
