// The service's side of the sessions' persistent shells. The shells themselves live in the session
// runtime (runtime/inside/shells/); this keeps what the service must know of them: which shells each
// session opened in which life of its runtime (so a shell lost with its runtime is reported dead, never
// silently opened again), a hold on the runtime while a shell is open (no idle stop under it), and the
// idle close. On a re-attached runtime (containers) the shells are found again by listing them.
import type { CancelSignal } from '../lib/cancellation.js';
import {
  shellDead,
  type ShellExecResult,
  type ShellInfo,
  type ShellOpenArgs,
} from '../runtime/ops/shells.js';
import type { SessionRuntime } from '../runtime/session-runtime.js';

export interface ShellLimits {
  readonly perSession: number;
  readonly idleMs: number;
}

interface KnownShell {
  /** The runtime's life (SessionRuntime.generation) the shell was opened in. */
  readonly generation: number;
  lastUsedAt: number;
  release: () => void;
  /** Set once the shell is gone while the session still names it: why. */
  lost?: string;
}

type OpenRequest = Omit<ShellOpenArgs, 'maxShells' | 'replace'>;
type Output = (stream: 'stdout' | 'stderr', chunk: Buffer) => void;

export class ShellManager {
  private readonly bySession = new Map<string, Map<string, KnownShell>>();
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly limits: ShellLimits) {
    this.sweeper = setInterval(
      () => void this.closeIdle(),
      Math.min(60_000, Math.max(250, limits.idleMs / 4)),
    );
    this.sweeper.unref();
  }

  private shellsOf(sessionId: string): Map<string, KnownShell> {
    let shells = this.bySession.get(sessionId);
    if (!shells) this.bySession.set(sessionId, (shells = new Map()));
    return shells;
  }

  /** Registers a shell the runtime has now, holding the runtime for it. */
  private track(runtime: SessionRuntime, name: string): KnownShell {
    const shells = this.shellsOf(runtime.sessionId);
    shells.get(name)?.release();
    const known = { generation: runtime.generation, lastUsedAt: Date.now(), release: runtime.hold() };
    shells.set(name, known);
    this.runtimes.set(runtime.sessionId, runtime);
    return known;
  }

  private lose(known: KnownShell, reason: string): void {
    known.lost ??= reason;
    known.release();
  }

  /** The known shell, checked against the runtime's life: a runtime started since took the shell with it. */
  private checked(runtime: SessionRuntime, name: string): KnownShell | undefined {
    const known = this.bySession.get(runtime.sessionId)?.get(name);
    if (known && !known.lost && (runtime.state !== 'running' || runtime.generation !== known.generation))
      this.lose(
        known,
        "the session's runtime stopped or restarted since it was opened, and the shell with it",
      );
    return known;
  }

  async open(runtime: SessionRuntime, request: OpenRequest, replace: boolean): Promise<ShellInfo> {
    const { result } = await runtime.call('shellOpen', {
      ...request,
      maxShells: this.limits.perSession,
      replace,
    });
    this.track(runtime, request.name);
    return result;
  }

  /**
   * Runs a command in a shell. A name this session never opened (or closed) is opened first with
   * `open`; a shell that died, or was lost with its runtime or closed for idleness, is SHELL_DEAD.
   */
  async exec(
    runtime: SessionRuntime,
    request: { name: string; command: string; timeoutMs: number },
    open: OpenRequest,
    output: Output,
    signal?: CancelSignal,
  ): Promise<ShellExecResult & { opened: boolean }> {
    const known = this.checked(runtime, request.name);
    if (known?.lost) throw shellDead(request.name, known.lost);
    let opened = false;
    const run = () => runtime.callWithOutput('shellExec', (proc) => ({ ...request, proc }), output, signal);
    let reply;
    try {
      reply = await run();
    } catch (err) {
      if (!isCode(err, 'NOT_FOUND') || known) throw this.noted(runtime, request.name, err);
      // Another call may have opened it meanwhile (two first uses at once): then it is used as it is.
      opened = await this.open(runtime, open, false).then(
        () => true,
        (openErr: unknown) => {
          if (!isCode(openErr, 'ALREADY_EXISTS')) throw openErr;
          return false;
        },
      );
      reply = await run().catch((again: unknown) => {
        throw this.noted(runtime, request.name, again);
      });
    }
    const tracked =
      this.bySession.get(runtime.sessionId)?.get(request.name) ?? this.track(runtime, request.name);
    tracked.lastUsedAt = Date.now();
    if (reply.result.shellDied) this.lose(tracked, 'it exited during the last command');
    return { ...reply.result, opened };
  }

  /** An exec's error, noted: a shell the runtime reports dead or missing no longer holds the runtime. */
  private noted(runtime: SessionRuntime, name: string, err: unknown): unknown {
    const known = this.bySession.get(runtime.sessionId)?.get(name);
    if (known && isCode(err, 'SHELL_DEAD')) this.lose(known, 'it died');
    if (known && isCode(err, 'NOT_FOUND')) {
      this.lose(known, 'it is gone from the runtime');
      return shellDead(name, known.lost!);
    }
    return err;
  }

  async closeShell(runtime: SessionRuntime, name: string): Promise<boolean> {
    const shells = this.bySession.get(runtime.sessionId);
    const known = shells?.get(name);
    known?.release();
    shells?.delete(name);
    if (runtime.state !== 'running') return known !== undefined;
    const { result } = await runtime.call('shellClose', { name });
    return result.closed || known !== undefined;
  }

  /**
   * The session's shells as the runtime has them, with the ones it lost reported dead. `look`: an
   * operator's look (the console), asked of the runtime only while it runs and not as the session's
   * activity (SessionRuntime.peek).
   */
  async list(runtime: SessionRuntime, { look = false } = {}): Promise<ShellInfo[]> {
    const shells = this.bySession.get(runtime.sessionId) ?? new Map<string, KnownShell>();
    for (const name of shells.keys()) this.checked(runtime, name);
    const live =
      runtime.state !== 'running'
        ? []
        : look
          ? ((await runtime.peek('shellList', {}))?.shells ?? [])
          : (await runtime.call('shellList', {})).result.shells;
    const lost = [...shells]
      .filter(([name, known]) => known.lost && !live.some((shell) => shell.name === name))
      .map(([name, known]) => lostInfo(name, known));
    for (const shell of live) {
      const known = shells.get(shell.name);
      if (shell.state === 'dead' && known) this.lose(known, shell.deadReason ?? 'it died');
    }
    return [...live, ...lost];
  }

  /** A re-attached runtime (containers): the shells it kept are the session's again, and hold it. */
  async adopt(runtime: SessionRuntime): Promise<void> {
    const { result } = await runtime.call('shellList', {});
    for (const shell of result.shells) if (shell.state !== 'dead') this.track(runtime, shell.name);
  }

  /** Closes shells that ran nothing for the idle time; they are reported dead with that reason. */
  private async closeIdle(): Promise<void> {
    const now = Date.now();
    for (const [sessionId, shells] of this.bySession) {
      const runtime = this.runtimes.get(sessionId);
      for (const [name, known] of shells) {
        if (known.lost || now - known.lastUsedAt < this.limits.idleMs || !runtime) continue;
        this.lose(known, `it was closed after ${Math.round(this.limits.idleMs / 1000)} s without a command`);
        if (runtime.state === 'running' && runtime.generation === known.generation)
          await runtime.call('shellClose', { name }).catch(() => undefined);
      }
    }
  }

  forgetSession(sessionId: string): void {
    for (const known of this.bySession.get(sessionId)?.values() ?? []) known.release();
    this.bySession.delete(sessionId);
    this.runtimes.delete(sessionId);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

const isCode = (err: unknown, code: string) => (err as { code?: unknown } | undefined)?.code === code;

function lostInfo(name: string, known: KnownShell): ShellInfo {
  return {
    name,
    state: 'dead',
    pid: 0,
    cwd: '.',
    startedAt: 0,
    lastUsedAt: known.lastUsedAt,
    commands: 0,
    deadReason: known.lost!,
  };
}
