// The sessions' language servers: one per session and language, started on demand through the session's
// own runtime (like a command: same sandbox, namespace and limits, so a memory cap is the command's
// RLIMIT_AS), stopped after an idle while, and started again on the next call after a crash.
import type { SessionRuntime } from '../../runtime/session-runtime.js';
import type { ResourceLimits } from '../../runtime/runner/types.js';
import { LspClient } from './client.js';

export interface ServerSpec {
  /** The LSP languageId of the files it serves. */
  readonly languageId: string;
  /** The shell command that starts it, as the runtime runs commands (cwd: the workspace root). */
  readonly command: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface LspManagerOptions {
  /** A server unused this long is stopped. */
  readonly idleMs: number;
  /** How long `initialize` may take before the start counts as failed. */
  readonly startBudgetMs: number;
  readonly limits: ResourceLimits;
  /** The workspace root as a command inside this runtime sees it. */
  readonly root: (runtime: SessionRuntime) => string;
  /** The server for a language in this runtime, if any serves it. */
  readonly spec: (language: string, runtime: SessionRuntime) => ServerSpec | undefined;
  /** Told of each server's start, failed start and exit (a crash, idle stop or the runtime stopping): the audit. */
  readonly onServer?: (event: ServerEvent) => void;
}

/** A language server's life, as the audit records it. */
export interface ServerEvent {
  readonly sessionId: string;
  readonly language: string;
  readonly event: 'started' | 'start failed' | 'exited';
  /** Start: how long it took; exit: how long it ran. */
  readonly durationMs: number;
  readonly detail?: string;
}

export type ServerState = 'stopped' | 'starting' | 'running';

interface Entry {
  readonly started: Promise<LspClient>;
  client?: LspClient;
  idle?: ReturnType<typeof setTimeout>;
}

export class LspManager {
  private readonly servers = new Map<string, Entry>();

  constructor(private readonly options: LspManagerOptions) {}

  /** Whether a server serves the language in this runtime (without starting one). */
  serves(language: string, runtime: SessionRuntime): boolean {
    return this.options.spec(language, runtime) !== undefined;
  }

  state(sessionId: string, language: string): ServerState {
    const entry = this.servers.get(`${sessionId}\0${language}`);
    if (!entry) return 'stopped';
    return entry.client ? 'running' : 'starting';
  }

  /**
   * The session's server for a language, started if none runs; undefined when no server serves the
   * language. A start that fails is not remembered: the next call tries again.
   */
  client(sessionId: string, runtime: SessionRuntime, language: string): Promise<LspClient> | undefined {
    const key = `${sessionId}\0${language}`;
    const existing = this.servers.get(key);
    if (existing) {
      this.touch(key, existing);
      return existing.started;
    }
    const spec = this.options.spec(language, runtime);
    if (!spec) return undefined;
    const began = Date.now();
    const tell = (event: ServerEvent['event'], durationMs: number, detail?: string) =>
      this.options.onServer?.({ sessionId, language, event, durationMs, ...(detail ? { detail } : {}) });
    const started = (async () => {
      const process = await runtime.spawn({
        command: spec.command,
        cwd: '.',
        env: spec.env ?? {},
        limits: this.options.limits,
      });
      return LspClient.start(process, this.options.root(runtime), this.options.startBudgetMs).then(
        (client) => {
          const up = Date.now();
          tell('started', up - began);
          // A crash (or the runtime stopping) ends it; the next call starts a new one.
          void process.exited.then(() => {
            tell('exited', Date.now() - up);
            if (this.servers.get(key) === entry) this.drop(key);
          });
          return client;
        },
      );
    })();
    const entry: Entry = { started };
    this.servers.set(key, entry);
    started.then(
      (client) => {
        if (this.servers.get(key) !== entry) return client.close();
        entry.client = client;
        this.touch(key, entry);
      },
      (err: unknown) => {
        tell('start failed', Date.now() - began, err instanceof Error ? err.message : String(err));
        if (this.servers.get(key) === entry) this.drop(key);
      },
    );
    return started;
  }

  /** Idle time counts from the last use of a running server (never while it starts). */
  private touch(key: string, entry: Entry): void {
    if (!entry.client) return;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => this.drop(key), this.options.idleMs);
    entry.idle.unref?.();
  }

  private drop(key: string): void {
    const entry = this.servers.get(key);
    if (!entry) return;
    this.servers.delete(key);
    if (entry.idle) clearTimeout(entry.idle);
    void entry.started.then((client) => client.close()).catch(() => undefined);
  }

  /** Stops a session's servers (the session was deleted or its runtime stopped). */
  forget(sessionId: string): void {
    for (const key of [...this.servers.keys()]) if (key.startsWith(`${sessionId}\0`)) this.drop(key);
  }

  close(): void {
    for (const key of [...this.servers.keys()]) this.drop(key);
  }
}
