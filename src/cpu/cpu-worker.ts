// Worker thread body of the CpuPool: runs one job at a time, an exported function of a module named by URL,
// and answers with its value or its error. A ToolgateError crosses as its envelope fields (a structured
// clone keeps only an Error's message), so the caller throws the same code again.
import { readlinkSync, writeFileSync } from 'node:fs';
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
 * and setpriority on its thread id (from /proc/thread-self) changes only that thread. Raising one's own
 * nice value needs no privilege; where it cannot be done the worker runs at the service's priority.
 */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined; // not Linux, or no /proc
  }
}

const options = workerData as { nice?: number; threadsFile?: string; preload?: string[] } | undefined;
const tid = threadId();
try {
  if (tid !== undefined) setPriority(tid, options?.nice ?? 10);
} catch {
  // same priority as the loop
}

/**
 * Once loaded, the thread joins the sessions' cpu cgroup (cgroup v1 lets a thread join alone; see
 * src/runtime/runner/cpu-cgroup.ts): its jobs, a session's heavy work, then compete with the sessions'
 * runtimes rather than with the loop, whose autogroup a nice value alone does not leave. Not before:
 * loading from source takes seconds of CPU, which behind many sessions would delay the first job.
 */
function joinSessionsGroup(): void {
  if (tid === undefined || !options?.threadsFile) return;
  try {
    writeFileSync(options.threadsFile, String(tid));
  } catch {
    // the group is gone: the thread stays where it is
  }
}

parentPort?.on('message', (request: CpuRequest) => {
  void answer(request).then((reply) => parentPort!.postMessage(reply));
});

// The job modules the pool named are loaded before the first job, so loading is no job's time; a module
// that fails to load here fails again, with its error, in the job that names it.
const preload = options?.preload ?? [];
void Promise.allSettled(preload.map((url) => import(url))).then(() => {
  joinSessionsGroup();
  parentPort?.postMessage({ ready: true });
});
