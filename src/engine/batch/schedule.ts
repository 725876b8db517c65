// Runs a batch's calls with the ordering a model expects from a sequence: calls that only read run
// concurrently (up to a limit); a call that writes or executes waits for every earlier call, and later
// calls wait for it. Results come back in input order.

export interface ScheduledTask<T> {
  /** True when the task only reads and may overlap with other reads. */
  parallel: boolean;
  run(): Promise<T>;
}

/** Reads of one batch that may run at the same time; enough for a model's fan-out, gentle on the disk. */
export const MAX_PARALLEL_READS = 8;

function semaphore(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    active < max ? (active++, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve));
  // A released slot is handed straight to the next waiter, so nobody can slip in between.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return async <T>(work: () => Promise<T>): Promise<T> => {
    await acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };
}

export async function runScheduled<T>(
  tasks: ScheduledTask<T>[],
  maxParallel = MAX_PARALLEL_READS,
): Promise<T[]> {
  const limit = semaphore(maxParallel);
  const settled = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      () => undefined,
    );
  // `barrier` is the last exclusive task; `readsSince` the parallel ones started after it.
  let barrier: Promise<unknown> = Promise.resolve();
  let readsSince: Promise<unknown>[] = [];
  const results = tasks.map((task) => {
    if (task.parallel) {
      const promise = barrier.then(() => limit(() => task.run()));
      readsSince.push(settled(promise));
      return promise;
    }
    const promise = Promise.all([barrier, ...readsSince]).then(() => task.run());
    barrier = settled(promise);
    readsSince = [];
    return promise;
  });
  return Promise.all(results);
}
