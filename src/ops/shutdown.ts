// Graceful shutdown for the server process: on the first SIGTERM/SIGINT stop accepting connections and
// let in-flight calls finish for up to `graceMs`; then abort what still runs (commands, jobs, slow
// tools) through the services' shutdown signal. app.close() closes SQLite last; exit 0 once it is done.
// A second signal, or a close that hangs past the hard deadline, exits at once with 1.
import type { FastifyInstance } from 'fastify';
import { toolgateError } from '../lib/errors.js';

/** After the grace period, aborted calls get this long to unwind before the process gives up. */
const HARD_DEADLINE_AFTER_GRACE_MS = 5_000;
const IDLE_SWEEP_MS = 100;

export interface ShutdownOptions {
  graceMs: number;
  exit(code: number): void;
  /** Where signal handlers are installed (process in the server). */
  signals?: NodeJS.EventEmitter;
}

export function installGracefulShutdown(app: FastifyInstance, options: ShutdownOptions): void {
  const { graceMs, exit } = options;
  const signals = options.signals ?? process;
  let stopping = false;

  const stop = (signal: string) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    app.log.info({ signal, graceMs }, 'shutting down: no new connections, waiting for in-flight calls');
    const abortTimer = setTimeout(() => {
      app.log.warn('grace period over: aborting running calls, commands and jobs');
      app.services.shutdown.abort(
        toolgateError('SHUTTING_DOWN', 'toolgate is shutting down; the call was stopped', {
          suggestion: 'Retry the call once the service is back.',
        }),
      );
    }, graceMs);
    const hardTimer = setTimeout(() => {
      app.log.error('shutdown did not finish in time: exiting');
      exit(1);
    }, graceMs + HARD_DEADLINE_AFTER_GRACE_MS);
    hardTimer.unref();
    // server.close() drops idle keep-alive connections only once, when it starts; a connection whose
    // call finishes later would hold the close open until its keep-alive timeout. Keep dropping them.
    const idleSweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    app.close().then(
      () => {
        clearTimeout(abortTimer);
        clearTimeout(hardTimer);
        clearInterval(idleSweep);
        app.log.info('shutdown complete');
        exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };

  signals.on('SIGTERM', () => stop('SIGTERM'));
  signals.on('SIGINT', () => stop('SIGINT'));
}
