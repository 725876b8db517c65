// Bounds a call's run time. On expiry (or client disconnect) the tool's signal aborts and the call
// fails with 504 TIMEOUT; tools that run processes kill them when the signal fires.
import { toolgateError } from '../lib/errors.js';
import type { Middleware, RunResult } from '../contract/call.js';

export const timeout = (defaultTimeoutMs: number, shutdownSignal: AbortSignal): Middleware => {
  // Every running call's controller, aborted together at shutdown by one listener: a listener added and
  // removed on the app-wide signal for each call was a measurable part of a call's cost.
  const live = new Set<AbortController>();
  shutdownSignal.addEventListener(
    'abort',
    () => {
      for (const controller of live) controller.abort(shutdownSignal.reason);
    },
    { once: true },
  );
  return (call, next) => {
    const tool = call.entry.tool;
    // A tool with its own limit (run_command's timeout_ms) gets a little headroom to report it itself.
    const own = tool.timeoutMs?.(call.input);
    const limitMs = own !== undefined ? own + 5_000 : defaultTimeoutMs;
    const controller = new AbortController();
    const abort = (reason: unknown) => controller.abort(reason);
    if (shutdownSignal.aborted) abort(shutdownSignal.reason);
    else live.add(controller);
    const listeners = [call.request.signal]
      .filter((s): s is AbortSignal => s !== undefined)
      .map((signal) => {
        const listener = () => abort(signal.reason);
        if (signal.aborted) listener();
        else signal.addEventListener('abort', listener, { once: true });
        return () => signal.removeEventListener('abort', listener);
      });
    call.signal = controller.signal;
    // One promise settled by whichever comes first, the tool or the timer.
    return new Promise<RunResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = toolgateError('TIMEOUT', `${tool.name} did not finish within ${limitMs} ms`, {
          suggestion:
            'Narrow the request (a smaller path, a lower limit) or raise the timeout if the tool has one.',
        });
        abort(error);
        reject(error);
      }, limitMs);
      const settle = () => {
        clearTimeout(timer);
        live.delete(controller);
        for (const remove of listeners) remove();
      };
      let running: Promise<RunResult>;
      try {
        running = next();
      } catch (err) {
        settle();
        reject(err);
        return;
      }
      running.then(
        (result) => {
          settle();
          resolve(result);
        },
        (err: unknown) => {
          settle();
          reject(err);
        },
      );
    });
  };
};
