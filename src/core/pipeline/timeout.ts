// Bounds a call's run time. On expiry (or client disconnect) the tool's signal aborts and the call
// fails with 504 TIMEOUT; tools that run processes kill them when the signal fires.
import { toolgateError } from '../errors.js';
import type { Middleware, RunResult } from './types.js';

export const timeout =
  (defaultTimeoutMs: number, shutdownSignal: AbortSignal): Middleware =>
  (call, next) => {
    const tool = call.entry!.tool;
    // A tool with its own limit (run_command's timeout_ms) gets a little headroom to report it itself.
    const own = tool.timeoutMs?.(call.input);
    const limitMs = own !== undefined ? own + 5_000 : defaultTimeoutMs;
    const controller = new AbortController();
    const abort = (reason: unknown) => controller.abort(reason);
    const signals = [shutdownSignal, call.request.signal].filter((s): s is AbortSignal => s !== undefined);
    const listeners = signals.map((signal) => {
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
        // The shutdown signal lives as long as the app: without this every call would leave a listener on it.
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
