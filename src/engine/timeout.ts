// Bounds a call's run time. On expiry (or client disconnect, or shutdown) the call's cancellation aborts
// and the call fails with 504 TIMEOUT; tools that run processes kill them when it fires.
import { Cancellation } from '../lib/cancellation.js';
import { toolgateError } from '../lib/errors.js';
import type { Middleware, RunResult } from '../contract/call.js';

export const timeout = (defaultTimeoutMs: number, shutdownSignal: AbortSignal): Middleware => {
  // Every running call's cancellation, aborted together at shutdown by one listener: a listener added and
  // removed on the app-wide signal for each call was a measurable part of a call's cost.
  const live = new Set<Cancellation>();
  shutdownSignal.addEventListener(
    'abort',
    () => {
      for (const cancel of live) cancel.abort(shutdownSignal.reason);
    },
    { once: true },
  );
  return (call, next) => {
    const tool = call.entry.tool;
    // A tool with its own limit (run_command's timeout_ms) gets a little headroom to report it itself.
    const own = tool.timeoutMs?.(call.input);
    const limitMs = own !== undefined ? own + 5_000 : defaultTimeoutMs;
    // One cancellation per call, and no AbortSignal unless the tool asks for one (ctx.signal).
    const cancel = new Cancellation();
    call.cancel = cancel;
    if (shutdownSignal.aborted) cancel.abort(shutdownSignal.reason);
    else live.add(cancel);
    const client = call.request.signal;
    let onClientGone: (() => void) | undefined;
    if (client?.aborted) cancel.abort(client.reason);
    else if (client) {
      onClientGone = () => cancel.abort(client.reason);
      client.addEventListener('abort', onClientGone, { once: true });
    }
    // One promise settled by whichever comes first, the tool or the timer.
    return new Promise<RunResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = toolgateError('TIMEOUT', `${tool.name} did not finish within ${limitMs} ms`, {
          suggestion:
            'Narrow the request (a smaller path, a lower limit) or raise the timeout if the tool has one.',
        });
        cancel.abort(error);
        reject(error);
      }, limitMs);
      const settle = () => {
        clearTimeout(timer);
        live.delete(cancel);
        if (client && onClientGone) client.removeEventListener('abort', onClientGone);
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
