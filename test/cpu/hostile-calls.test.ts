// Calls whose valid input costs seconds of CPU — a fuzzy edit_file of a 500-line old_string on a
// 20,000-line file, a pathological V4A patch, web_fetch of megabytes of HTML — end with 504 TIMEOUT (or
// 413 INPUT_TOO_LARGE) at their deadline, their worker terminated, and while each runs the service answers
// another request first: the work is not on the event loop (issue 38).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import {
  bigHtml,
  FUZZY_OLD_STRING,
  htmlServer,
  NUMBERED_FILE,
  PATHOLOGICAL_V4A,
  REPETITIVE_FILE,
} from '../helpers/hostile-inputs.js';
import { startAppWithConfig } from '../ops/with-config.js';

interface Answer {
  status: number;
  body: { success: boolean; error?: { code: string; message: string; details?: { deadlineMs?: number } } };
}

const MiB = 1024 * 1024;

/** A worker terminated by the previous test boots again (seconds from source on a busy machine). */
async function workersReady(t: TestApp) {
  await t.app.services.cpu.warm(20_000);
}

/**
 * Runs `hostile` and, once it is under way, a GET /healthz; returns the hostile answer and which of the
 * two was answered first. On the event loop the hostile call would hold /healthz until it ended.
 */
async function beside(t: TestApp, hostile: () => PromiseLike<Answer>) {
  await workersReady(t);
  const order: string[] = [];
  const call = Promise.resolve(hostile()).then((res) => {
    order.push('hostile');
    return res;
  });
  // Wait until the job runs in a worker (or the call is answered): then ask something else.
  for (let i = 0; i < 200 && t.app.services.cpu.running === 0 && order.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const health = await t.http.get('/healthz');
  order.push('healthz');
  expect(health.status).toBe(200);
  return { answer: await call, order };
}

describe('CPU-heavy calls end at their deadline and never hold the service', () => {
  let t: TestApp;
  let page: Awaited<ReturnType<typeof htmlServer>>;
  let hostile: { id: string; token: string };
  let neighbour: { id: string; token: string };

  beforeAll(async () => {
    page = await htmlServer(bigHtml(4 * MiB));
    t = await startAppWithConfig({
      // Short: on a fast, idle machine the fuzzy edit (~1.9 s here) and the V4A placing (~0.9 s) finish within
      // seconds, and would answer EDIT_AMBIGUOUS or PATCH_FAILED instead of reaching their deadline.
      limits: { cpuJobMs: 300 },
      network: { openRanges: ['127.0.0.1/32'] },
    });
    hostile = await t.createSession({
      profile: 'full',
      network: { mode: 'open' },
      files: { 'repetitive.txt': REPETITIVE_FILE, 'numbered.txt': NUMBERED_FILE },
    });
    neighbour = await t.createSession({ profile: 'full', files: { 'a.txt': 'alpha\nbeta\n' } });
    // The workers boot with the first job (seconds from source on a busy machine): before the clocks start.
    await t.call(neighbour, 'edit_file', {
      path: 'a.txt',
      old_string: 'alpha',
      new_string: 'ALPHA',
      dry_run: true,
    });
  });

  afterAll(async () => {
    await t?.close();
    await page?.close();
  });

  it('edit_file with a fuzzy 500-line old_string on 20,000 lines: 504 TIMEOUT, /healthz answered first', async () => {
    const { answer, order } = await beside(
      t,
      () =>
        t.call(hostile, 'edit_file', {
          path: 'repetitive.txt',
          old_string: FUZZY_OLD_STRING,
          new_string: 'y = 2;',
        }) as unknown as PromiseLike<Answer>,
    );
    expect(answer.status).toBe(504);
    expect(answer.body.error).toMatchObject({ code: 'TIMEOUT' });
    expect(answer.body.error!.message).toContain('Matching old_string did not finish within 300 ms');
    expect(order).toEqual(['healthz', 'hostile']);
    // The worker was terminated, not left spinning.
    expect(t.app.services.cpu.running).toBe(0);
  });

  it('apply_patch with a pathological V4A chunk: 504 TIMEOUT, /healthz answered first', async () => {
    const { answer, order } = await beside(
      t,
      () => t.call(hostile, 'apply_patch', { patch: PATHOLOGICAL_V4A }) as unknown as PromiseLike<Answer>,
    );
    expect(answer.status).toBe(504);
    expect(answer.body.error!.message).toContain('Placing the patch chunks did not finish');
    expect(order).toEqual(['healthz', 'hostile']);
  });

  it('web_fetch of 4 MiB of HTML: ends within its own timeout_ms (TIMEOUT or INPUT_TOO_LARGE)', async () => {
    const { answer, order } = await beside(
      t,
      () =>
        t.call(hostile, 'web_fetch', { url: page.url, timeout_ms: 8_000 }) as unknown as PromiseLike<Answer>,
    );
    expect(answer.body.error, JSON.stringify(answer.body)).toBeDefined();
    expect([504, 413]).toContain(answer.status);
    expect(['TIMEOUT', 'INPUT_TOO_LARGE']).toContain(answer.body.error!.code);
    // timeout_ms bounds the conversion too: what the download left of 8,000 ms, or the pool's 2,500.
    if (answer.status === 504) expect(answer.body.error!.details!.deadlineMs).toBeLessThanOrEqual(8_000);
    expect(order, JSON.stringify(answer.body)).toEqual(['healthz', 'hostile']);
  });

  it("answers a neighbour's edit while the hostile session's job runs", async () => {
    await workersReady(t);
    const order: string[] = [];
    const running = (
      t.call(hostile, 'edit_file', {
        path: 'repetitive.txt',
        old_string: FUZZY_OLD_STRING,
        new_string: 'y = 2;',
      }) as unknown as PromiseLike<Answer>
    ).then((res) => {
      order.push('hostile');
      return res;
    });
    for (let i = 0; i < 200 && t.app.services.cpu.running === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    const edit = await t.call(neighbour, 'edit_file', {
      path: 'a.txt',
      old_string: 'beta',
      new_string: 'gamma',
    });
    order.push('neighbour');
    expect(edit.body.error).toBeUndefined();
    expect(edit.status).toBe(200);
    expect(edit.body.data).toMatchObject({ replacements: 1, strategy: 'exact' });
    const hostileAnswer = await running;
    expect(hostileAnswer.status, JSON.stringify(hostileAnswer.body)).toBe(504);
    expect(order).toEqual(['neighbour', 'hostile']);
  });

  it('shows the event loop healthy in /readyz and the jobs in /metrics', async () => {
    const ready = await t.http.get('/readyz');
    expect(ready.body.checks.eventLoop, JSON.stringify(ready.body.checks.eventLoop)).toMatchObject({
      ok: true,
    });
    const metrics = await t.admin(t.http.get('/metrics'));
    expect(metrics.text).toMatch(/^toolgate_event_loop_utilization \d/m);
    expect(metrics.text).toMatch(
      /^toolgate_cpu_jobs_total\{job="Matching old_string",outcome="timeout"\} [1-9]/m,
    );
  });
});

describe("a call's own deadline ends its CPU job", () => {
  let t: TestApp;
  beforeAll(async () => {
    // The pool would allow a minute; the call's timeout (1.5 s) must stop the work.
    t = await startAppWithConfig({ limits: { cpuJobMs: 60_000, toolTimeoutMs: 1_500 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('edit_file past toolTimeoutMs: 504 TIMEOUT and the worker is terminated', async () => {
    const s = await t.createSession({ profile: 'full', files: { 'repetitive.txt': REPETITIVE_FILE } });
    const res = (await t.call(s, 'edit_file', {
      path: 'repetitive.txt',
      old_string: FUZZY_OLD_STRING,
      new_string: 'y = 2;',
    })) as unknown as Answer;
    expect(res.status).toBe(504);
    expect(res.body.error!.message).toContain('edit_file did not finish within 1500 ms');
    // Give the abort its turn: the job ends with the call, its worker terminated.
    await new Promise((r) => setImmediate(r));
    expect(t.app.services.cpu.running).toBe(0);
  });
});
