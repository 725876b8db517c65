// Worker thread body of the CpuPool: runs one job at a time, an exported function of a module named by URL,
// and answers with its value or its error. A ToolgateError crosses as its envelope fields (a structured
// clone keeps only an Error's message), so the caller throws the same code again.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { isToolgateError } from '../lib/errors.js';
import type { CpuReply, CpuRequest } from './cpu-protocol.js';

type JobModule = Record<string, (input: unknown) => unknown>;

async function answer(request: CpuRequest): Promise<CpuReply> {
  try {
    const module = (await import(request.module)) as JobModule;
    const job = module[request.fn];
    if (typeof job !== 'function') throw new Error(`${request.module} exports no function ${request.fn}`);
    return { id: request.id, ok: true, value: await job(request.input) };
  } catch (err) {
    if (isToolgateError(err)) {
      return {
        id: request.id,
        ok: false,
        error: { code: err.code, message: err.message, suggestion: err.suggestion, details: err.details },
      };
    }
    return { id: request.id, ok: false, error: { message: (err as Error)?.stack ?? String(err) } };
  }
}

/**
 * The worker thread yields the CPU to the service's event loop: on Linux a thread has its own nice value,
 * and setpriority on its thread id (from /proc/thread-self) changes only that thread. A hostile job then
 * takes what the loop leaves, as a session's commands do under their cgroup. Raising one's own nice value
 * needs no privilege; where it cannot be done the worker runs at the service's priority.
 */
function yieldToTheLoop(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or no /proc: same priority as the loop
  }
}

yieldToTheLoop((workerData as { nice?: number } | undefined)?.nice ?? 10);

parentPort?.on('message', (request: CpuRequest) => {
  void answer(request).then((reply) => parentPort!.postMessage(reply));
});

// The job modules the pool named are loaded before the first job, so loading is no job's time; a module
// that fails to load here fails again, with its error, in the job that names it.
const preload = (workerData as { preload?: string[] } | undefined)?.preload ?? [];
void Promise.allSettled(preload.map((url) => import(url))).then(() =>
  parentPort?.postMessage({ ready: true }),
);
