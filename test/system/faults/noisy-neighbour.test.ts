// A noisy neighbour (issue 38): one session sends the worst valid inputs in a loop — a fuzzy edit_file on
// a 20,000-line file, a pathological V4A patch, web_fetch of 4 MiB of HTML, a 16 MiB JSON body — while
// three other sessions read, edit and grep. Every call of the others is answered (200), the others keep
// getting answers all the while, and each hostile call ends with TIMEOUT or a too-large error in the
// envelope, bounded by its deadline. The timings goal (deadline + 1 s, the others' p99) is the bench's:
// `npm run bench -- neighbours`; here the bound is loose, since test files share the machine's cores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import {
  bigHtml,
  FUZZY_OLD_STRING,
  htmlServer,
  NUMBERED_FILE,
  PATHOLOGICAL_V4A,
  REPETITIVE_FILE,
} from '../../helpers/hostile-inputs.js';
import { startAppWithConfig } from '../../ops/with-config.js';

const MiB = 1024 * 1024;
// Short: on a fast, idle machine the fuzzy edit (~1.9 s here) would finish, and answer EDIT_AMBIGUOUS.
const CPU_JOB_MS = 300;
const FETCH_TIMEOUT_MS = 5_000;
/** Past the deadline: the worker's termination, the envelope, and test files sharing two cores. */
const SLACK_MS = 5_000;
const ROUNDS = 2;

type Session = { id: string; token: string };
interface Answer {
  name: string;
  deadlineMs: number;
  status: number;
  code: string | undefined;
  ms: number;
}

describe('a noisy neighbour: one session sends the worst inputs while others work', () => {
  let t: TestApp;
  let page: Awaited<ReturnType<typeof htmlServer>>;
  let hostile: Session;
  const neighbours: Session[] = [];
  const source = Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';

  beforeAll(async () => {
    page = await htmlServer(bigHtml(4 * MiB));
    t = await startAppWithConfig({
      limits: { cpuJobMs: CPU_JOB_MS },
      network: { openRanges: ['127.0.0.1/32'] },
    });
    hostile = await t.createSession({
      profile: 'full',
      network: { mode: 'open' },
      files: { 'repetitive.txt': REPETITIVE_FILE, 'numbered.txt': NUMBERED_FILE },
    });
    for (let i = 0; i < 3; i++)
      neighbours.push(await t.createSession({ profile: 'full', files: { 'src/a.ts': source } }));
    // The CPU workers boot before the hostile loop starts (seconds each from source on a busy machine).
    await t.app.services.cpu.warm();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await page?.close();
  });

  it('answers every call of the others, and ends each hostile call with an error by its deadline', async () => {
    const timed = async (
      name: string,
      deadlineMs: number,
      run: () => PromiseLike<{ status: number; body: unknown }>,
    ) => {
      const began = performance.now();
      const res = await run();
      const body = res.body as { error?: { code?: string } } | undefined;
      return { name, deadlineMs, status: res.status, code: body?.error?.code, ms: performance.now() - began };
    };
    const hugeBody = JSON.stringify({ path: 'big.txt', content: 'x'.repeat(16 * MiB) });
    const worst: Array<() => Promise<Answer>> = [
      () =>
        timed('edit_file fuzzy', CPU_JOB_MS, () =>
          t.call(hostile, 'edit_file', {
            path: 'repetitive.txt',
            old_string: FUZZY_OLD_STRING,
            new_string: 'y',
          }),
        ),
      () =>
        timed('apply_patch V4A', CPU_JOB_MS, () =>
          t.call(hostile, 'apply_patch', { patch: PATHOLOGICAL_V4A }),
        ),
      () =>
        timed('web_fetch 4 MiB HTML', FETCH_TIMEOUT_MS, () =>
          t.call(hostile, 'web_fetch', { url: page.url, timeout_ms: FETCH_TIMEOUT_MS }),
        ),
      () =>
        timed('write_file 16 MiB body', 0, () =>
          t.http
            .post(`/v1/sessions/${hostile.id}/tools/write_file`)
            .set('authorization', `Bearer ${hostile.token}`)
            .set('content-type', 'application/json')
            .send(hugeBody),
        ),
    ];

    let hostileDone = false;
    const hostileAnswers: Answer[] = [];
    const hostileLoop = (async () => {
      for (let round = 0; round < ROUNDS; round++) for (const run of worst) hostileAnswers.push(await run());
      hostileDone = true;
    })();

    // The others: read, flip a line and back, grep; until the hostile loop is over.
    const others: Array<{ tool: string; status: number; code?: string }> = [];
    const answeredDuring: number[] = neighbours.map(() => 0);
    await Promise.all(
      neighbours.map(async (s, n) => {
        for (let turn = 0; !hostileDone; turn++) {
          const line = `export const value${turn % 200} = ${turn % 200};`;
          const flipped = line.replace('export const', 'export let');
          for (const [tool, input] of [
            ['read_file', { path: 'src/a.ts', limit: 50 }],
            ['edit_file', { path: 'src/a.ts', old_string: line, new_string: flipped }],
            ['edit_file', { path: 'src/a.ts', old_string: flipped, new_string: line }],
            ['grep', { pattern: `value${turn % 200}\\b`, path: 'src' }],
          ] as const) {
            const res = await t.call(s, tool, input);
            others.push({ tool, status: res.status, code: res.body?.error?.code });
            if (!hostileDone) answeredDuring[n]++;
          }
        }
      }),
    );
    await hostileLoop;

    expect(others.filter((o) => o.status !== 200)).toEqual([]);
    // Each of the others kept being answered while the hostile session worked (two rounds of seconds each).
    for (const count of answeredDuring) expect(count).toBeGreaterThanOrEqual(8);
    expect(hostileAnswers).toHaveLength(ROUNDS * worst.length);
    for (const answer of hostileAnswers) {
      expect([413, 504], JSON.stringify(answer)).toContain(answer.status);
      expect(['TIMEOUT', 'INPUT_TOO_LARGE', 'BODY_TOO_LARGE'], JSON.stringify(answer)).toContain(answer.code);
      expect(answer.ms, JSON.stringify(answer)).toBeLessThanOrEqual(answer.deadlineMs + SLACK_MS);
    }
    console.info(
      `noisy neighbour: ${others.length} calls of the others, all 200; hostile: ` +
        hostileAnswers.map((a) => `${a.name} ${a.status} ${a.code} ${Math.round(a.ms)} ms`).join(', '),
    );
  }, 180_000);
});
