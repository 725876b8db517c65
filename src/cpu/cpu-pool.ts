// The bounded pool of worker threads where a session's CPU-heavy work runs (edit matching, patch placing,
// HTML → Markdown), never on the event loop every session shares. Every job has a deadline; a job that
// passes it, or whose call is cancelled, has its worker terminated at once — synchronous code cannot be
// interrupted any other way, and termination frees the CPU — and a fresh worker takes the slot. A worker
// has a heap limit: a job that needs more ends with 413 INPUT_TOO_LARGE. One session runs one job at a time,
// so a session sending hostile inputs in a loop holds one worker (and the one booting to replace it).
//
// Hand-written rather than piscina: workers here run TypeScript from source (tsx, vitest) and from the
// build, which needs the bootstrap the code index's ParsePool uses (an eval'd module that registers tsx),
// and piscina takes a worker file path only (Node 20 ignores --import in worker execArgv).
import { Worker } from 'node:worker_threads';
import { toolgateError, type ToolgateError } from '../lib/errors.js';
import type { CpuReply, CpuRequest } from './cpu-protocol.js';

export interface CpuJob {
  /** URL of a module of pure functions (new URL('./x.js', import.meta.url).href). */
  module: string;
  /** The exported function to call with `input`. */
  fn: string;
  input: unknown;
  /** What the job does, for errors and metrics ("edit matching"). */
  label: string;
}

export interface CpuJobOptions {
  /** The session the job is for: one session never holds more than its share of the workers. */
  owner: string;
  /** The call's cancellation: aborting it ends the job at once, with its reason as the error. */
  signal?: AbortSignal;
  /** The caller's own deadline from now (what a tool's timeout_ms left), waiting for a worker included. */
  deadlineMs?: number;
}

export type CpuOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'too_large';

export interface CpuPoolOptions {
  workers: number;
  /** The longest any one job may take, the wait for a worker included. */
  jobMs: number;
  /** Job modules every worker imports as it starts, so their load is not part of a job's time. */
  preload?: readonly string[];
  /** Heap limit of each worker (MiB). */
  memoryMb: number;
  /** A cgroup v1 `tasks` file each worker thread joins (the sessions' cpu group); unset: none. */
  threadsFile?: string;
  /** Told of every finished job (metrics). */
  onJobEnd?: (label: string, outcome: CpuOutcome, ms: number) => void;
}

interface Job {
  id: number;
  request: CpuRequest;
  label: string;
  owner: string;
  startedAt: number;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded its modules and takes jobs. */
  ready: boolean;
  job?: Job;
}

// The worker module sits beside this one: .ts when run from source (tsx, vitest), .js when built.
// From source the worker registers tsx itself, so it works whatever flags the parent was started with.
const bootstrap = (moduleUrl: string) =>
  moduleUrl.endsWith('.ts')
    ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); });`
    : `import(${JSON.stringify(moduleUrl)});`;

const workerUrl = () =>
  new URL(`./cpu-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

export class CpuPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly runningBy = new Map<string, number>();
  private nextId = 0;
  private closed = false;
  /** Workers that died before they were ready, in a row; then the pool stops trying. */
  private failedStarts = 0;
  private broken: Error | undefined;
  readonly size: number;
  /** Jobs one session may run at once. */
  readonly perOwner: number;

  constructor(private readonly options: CpuPoolOptions) {
    this.size = Math.max(1, options.workers);
    // A call runs one job at a time; more for one session would only let it crowd the others out.
    this.perOwner = 1;
  }

  get running(): number {
    return this.slots.filter((s) => s.job).length;
  }

  /** Workers booted and able to take a job now or when their job ends. */
  get ready(): number {
    return this.slots.filter((s) => s.ready).length;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * Boots every worker now (they otherwise boot with the first job that needs one; small jobs run inline
   * and never do) and resolves once all are ready, the pool is closed or broken, or `timeoutMs` passed.
   */
  async warm(timeoutMs = 60_000): Promise<void> {
    this.pump();
    const deadline = Date.now() + timeoutMs;
    while (this.ready < this.size && !this.closed && !this.broken && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  run<T>(job: CpuJob, options: CpuJobOptions): Promise<T> {
    if (this.closed) return Promise.reject(toolgateError('SHUTTING_DOWN', 'The service is shutting down'));
    if (this.broken) return Promise.reject(this.broken);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(asError(signal.reason));
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const timers: NodeJS.Timeout[] = [];
      const expireAfter = (ms: number) =>
        timers.push(
          setTimeout(
            () =>
              this.end(
                entry,
                'timeout',
                toolgateError('TIMEOUT', `${job.label} did not finish within ${ms} ms`, {
                  suggestion:
                    'The input needs too much work: send a smaller one (fewer lines of old_string or ' +
                    'context, a smaller page or file), or raise the timeout if the tool has one.',
                  details: { deadlineMs: ms },
                }),
              ),
            ms,
          ),
        );
      const entry: Job = {
        id,
        request: { id, module: job.module, fn: job.fn, input: job.input },
        label: job.label,
        owner: options.owner,
        startedAt: performance.now(),
        resolve: resolve as (value: unknown) => void,
        reject,
        cleanup: () => {
          for (const timer of timers) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      // One deadline from now, the wait for a worker included: the call is answered by then.
      expireAfter(Math.max(1, Math.round(Math.min(options.deadlineMs ?? Infinity, this.options.jobMs))));
      const onAbort = () => this.end(entry, 'cancelled', asError(signal!.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
      this.pump();
    });
  }

  /** Settles a job one way or the other; a job still running loses its worker. */
  private end(job: Job, outcome: CpuOutcome, error?: Error, value?: unknown): void {
    const queuedAt = this.queue.indexOf(job);
    if (queuedAt >= 0) this.queue.splice(queuedAt, 1);
    else if (!job.slot) return; // already settled
    job.cleanup();
    const slot = job.slot;
    if (slot) {
      slot.job = undefined;
      job.slot = undefined;
      this.runningBy.set(job.owner, (this.runningBy.get(job.owner) ?? 1) - 1);
      if (this.runningBy.get(job.owner) === 0) this.runningBy.delete(job.owner);
      if (outcome === 'timeout' || outcome === 'cancelled' || outcome === 'too_large') this.retire(slot);
      else slot.worker.unref();
    }
    this.options.onJobEnd?.(job.label, outcome, performance.now() - job.startedAt);
    if (error) job.reject(error);
    else job.resolve(value);
    this.pump();
  }

  /** Stops a worker whose job must not go on (terminate frees its CPU at once) and forgets its slot. */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('message');
    slot.worker.on('error', () => {});
    void slot.worker.terminate();
  }

  /** Starts queued jobs on free workers, oldest first, skipping sessions that have their share. */
  private pump(): void {
    if (this.closed || this.broken) return;
    // All workers start with the first job, and a retired one is replaced at once: a job should not
    // wait for a worker to boot.
    while (this.slots.length < this.size) this.spawn();
    for (let i = 0; i < this.queue.length;) {
      const job = this.queue[i];
      if ((this.runningBy.get(job.owner) ?? 0) >= this.perOwner) {
        i++;
        continue;
      }
      const slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) return;
      this.queue.splice(i, 1);
      slot.job = job;
      job.slot = slot;
      this.runningBy.set(job.owner, (this.runningBy.get(job.owner) ?? 0) + 1);
      slot.worker.ref();
      slot.worker.postMessage(job.request);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(bootstrap(workerUrl()), {
      eval: true,
      workerData: { preload: this.options.preload ?? [], threadsFile: this.options.threadsFile },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
    });
    // An idle worker must not keep the process alive; a busy one is ref'd while its job runs.
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: CpuReply | { ready: true }) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.failedStarts = 0;
        return this.pump();
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      if (reply.ok) this.end(job, 'ok', undefined, reply.value);
      else this.end(job, 'error', replyError(reply.error, job.label));
    });
    worker.on('error', (err: Error & { code?: string }) => this.lost(slot, err));
    worker.on('exit', () => this.lost(slot, new Error('the worker exited')));
    this.slots.push(slot);
    return slot;
  }

  /** A worker died by itself (out of memory, a crash): its job fails, a new worker takes the slot. */
  private lost(slot: Slot, err: Error & { code?: string }): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    if (!slot.ready && ++this.failedStarts >= 3) return this.giveUp(err);
    const job = slot.job;
    if (!job) return this.pump();
    const tooLarge = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
    const error = tooLarge
      ? toolgateError(
          'INPUT_TOO_LARGE',
          `${job.label} needs more than ${this.options.memoryMb} MiB of memory`,
          {
            suggestion: 'Send a smaller input (a smaller file, page or patch).',
          },
        )
      : toolgateError('INTERNAL_ERROR', `${job.label} failed: ${err.message}`);
    // The slot is already gone: settle the job without retiring it again.
    job.slot = undefined;
    slot.job = undefined;
    this.runningBy.set(job.owner, (this.runningBy.get(job.owner) ?? 1) - 1);
    if (this.runningBy.get(job.owner) === 0) this.runningBy.delete(job.owner);
    job.cleanup();
    this.options.onJobEnd?.(job.label, tooLarge ? 'too_large' : 'error', performance.now() - job.startedAt);
    job.reject(error);
    this.pump();
  }

  /** Workers cannot start here (a missing module, no threads): waiting jobs fail, and so will new ones. */
  private giveUp(err: Error): void {
    this.broken = toolgateError('INTERNAL_ERROR', `CPU workers cannot start: ${err.message}`);
    for (const job of this.queue.splice(0)) {
      job.cleanup();
      job.reject(this.broken);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping = toolgateError('SHUTTING_DOWN', 'The service is shutting down');
    for (const job of [...this.queue, ...this.slots.flatMap((s) => (s.job ? [s.job] : []))]) {
      job.cleanup();
      job.reject(stopping);
    }
    this.queue.length = 0;
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map((s) => {
        s.worker.removeAllListeners('exit');
        return s.worker.terminate();
      }),
    );
  }
}

const asError = (reason: unknown): Error =>
  reason instanceof Error ? reason : toolgateError('TIMEOUT', 'The call was cancelled');

function replyError(error: Extract<CpuReply, { ok: false }>['error'], label: string): ToolgateError {
  if (error.code) {
    return toolgateError(error.code, error.message, {
      ...(error.suggestion !== undefined ? { suggestion: error.suggestion } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
    });
  }
  return toolgateError('INTERNAL_ERROR', `${label} failed: ${error.message}`);
}
