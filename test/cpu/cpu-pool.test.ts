// The CpuPool: a job past its deadline ends with TIMEOUT and its worker is terminated (the next job runs
// at once, on a fresh worker), a cancelled call ends its job with the call's reason, a job that outgrows
// the heap limit ends with INPUT_TOO_LARGE, typed errors cross as themselves, one session holds at most
// its share of the workers, and the event loop stays free while a job spins.
import { afterEach, describe, expect, it } from 'vitest';
import { CpuPool, type CpuOutcome } from '../../src/cpu/cpu-pool.js';
import { jobModule } from '../../src/cpu/job-module.js';
import { isToolgateError, toolgateError, type ToolgateError } from '../../src/lib/errors.js';

const JOBS = jobModule(import.meta.url, './spin-jobs');
const job = (fn: string, input: unknown = {}) => ({ module: JOBS, fn, input, label: `job ${fn}` });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the job succeeded');
    },
    (err: unknown) => {
      if (!isToolgateError(err)) throw err;
      return err;
    },
  );

describe('CpuPool', () => {
  let pool: CpuPool | undefined;
  const ended: Array<{ label: string; outcome: CpuOutcome }> = [];
  const make = (options: Partial<ConstructorParameters<typeof CpuPool>[0]> = {}) =>
    (pool = new CpuPool({
      workers: 2,
      jobMs: 30_000,
      memoryMb: 64,
      onJobEnd: (label, outcome) => ended.push({ label, outcome }),
      ...options,
    }));

  afterEach(async () => {
    await pool?.close();
    pool = undefined;
    ended.length = 0;
  });

  it('boots no worker until asked, and every worker on warm()', async () => {
    const cpu = make();
    expect(cpu.ready).toBe(0);
    await cpu.warm();
    expect(cpu.ready).toBe(2);
    expect(await cpu.run(job('echo', { text: 'warm' }), { owner: 'a' })).toBe('warm');
  });

  it('answers a job with its value, and a typed error as the same code, suggestion and details', async () => {
    const cpu = make();
    expect(await cpu.run(job('echo', { text: 'hello' }), { owner: 'a' })).toBe('hello');
    const err = await failure(cpu.run(job('refuse', { what: 'match' }), { owner: 'a' }));
    expect(err).toMatchObject({ code: 'EDIT_NOT_FOUND', message: 'no match', suggestion: 'look again' });
    expect(err.details).toEqual({ n: 1 });
    expect(ended.map((e) => e.outcome)).toEqual(['ok', 'error']);
  });

  it('ends a job past its deadline with TIMEOUT and frees its worker: the next job runs at once', async () => {
    const cpu = make({ workers: 1 });
    const spinning = failure(cpu.run(job('spin'), { owner: 'a', deadlineMs: 300 }));
    // Queued behind a job that never returns: it can only run if the spinning worker is terminated.
    const next = cpu.run<string>(job('echo', { text: 'after' }), { owner: 'b' });
    const err = await spinning;
    expect(err.code).toBe('TIMEOUT');
    expect(err.statusCode).toBe(504);
    expect(err.message).toContain('job spin did not finish within 300 ms');
    expect(await next).toBe('after');
    expect(ended.map((e) => e.outcome)).toEqual(['timeout', 'ok']);
  });

  it('the pool deadline (jobMs) bounds a job that asks for more, its wait for a worker included', async () => {
    const cpu = make({ jobMs: 200 });
    const err = await failure(cpu.run(job('spin'), { owner: 'a', deadlineMs: 60_000 }));
    expect(err.code).toBe('TIMEOUT');
    expect(err.details).toEqual({ deadlineMs: 200 });
  });

  it("ends a cancelled call's job with the call's reason and terminates its worker", async () => {
    const cpu = make({ workers: 1 });
    const controller = new AbortController();
    const spinning = failure(cpu.run(job('spin'), { owner: 'a', signal: controller.signal }));
    const next = cpu.run<string>(job('echo', { text: 'next' }), { owner: 'b' });
    setTimeout(() => controller.abort(toolgateError('TIMEOUT', 'the call timed out')), 200);
    expect((await spinning).message).toBe('the call timed out');
    expect(await next).toBe('next');
    expect(ended[0].outcome).toBe('cancelled');
  });

  it('ends a job that outgrows the heap limit with 413 INPUT_TOO_LARGE, and goes on working', async () => {
    const cpu = make({ memoryMb: 32 });
    const err = await failure(cpu.run(job('hog'), { owner: 'a' }));
    expect(err.code).toBe('INPUT_TOO_LARGE');
    expect(err.statusCode).toBe(413);
    expect(await cpu.run(job('echo', { text: 'still here' }), { owner: 'a' })).toBe('still here');
  });

  it("gives one session at most its share of the workers: another session's job overtakes its queue", async () => {
    const cpu = make({ workers: 2 });
    expect(cpu.perOwner).toBe(1);
    // Both workers booted first, so the jobs below are placed as they arrive.
    await cpu.warm();
    expect(cpu.ready).toBe(2);
    const order: string[] = [];
    const first = cpu.run(job('spin', { ms: 400 }), { owner: 'hostile' }).then(() => order.push('hostile 1'));
    const second = cpu
      .run(job('spin', { ms: 400 }), { owner: 'hostile' })
      .then(() => order.push('hostile 2'));
    const other = cpu
      .run(job('echo', { text: 'x' }), { owner: 'neighbour' })
      .then(() => order.push('neighbour'));
    expect(cpu.running).toBe(2); // the hostile session's first job and the neighbour's
    expect(cpu.queued).toBe(1);
    await Promise.all([first, second, other]);
    expect(order).toEqual(['neighbour', 'hostile 1', 'hostile 2']);
  });

  it('keeps the event loop free while a job spins: timers fire during the job', async () => {
    const cpu = make();
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(Date.now()), 20);
    let err: ToolgateError;
    try {
      err = await failure(cpu.run(job('spin'), { owner: 'a', deadlineMs: 500 }));
    } finally {
      clearInterval(timer);
    }
    expect(err.code).toBe('TIMEOUT');
    // Synchronous work on this thread would have let no timer fire before it ended.
    expect(ticks.length).toBeGreaterThan(3);
  });

  it('refuses work after close, and close ends running jobs', async () => {
    const cpu = make();
    const spinning = failure(cpu.run(job('spin'), { owner: 'a' }));
    await new Promise((r) => setTimeout(r, 100));
    await cpu.close();
    expect((await spinning).code).toBe('SHUTTING_DOWN');
    expect((await failure(cpu.run(job('echo', { text: 'x' }), { owner: 'a' }))).code).toBe('SHUTTING_DOWN');
  });
});
