// One session's runtime as the service sees it: started on the first operation, restarted after a
// crash or a hang, stopped when idle. Tools never hold a process; they call through this handle, which
// is the `SessionRuntime` seam: everything about how the runtime is reached stays behind it.
import { PassThrough, Writable } from 'node:stream';
import type { Span } from '@opentelemetry/api';
import type { CancelSignal } from '../lib/cancellation.js';
import { isToolgateError } from '../lib/errors.js';
import { failSpan, inSpan, tracedParent, type Tracing } from '../ops/trace.js';
import type { PidsCgroups } from './runner/cgroup.js';
import type { SessionCpuGroups } from './runner/cpu-cgroup.js';
import { SANDBOX_WORKSPACE } from './runner/bwrap-args.js';
import type { ExitInfo, SandboxedProcess, ResourceLimits } from './runner/types.js';
import type { OverlayMount, RuntimeBackend } from './backends/types.js';
import { RuntimeConnection, runtimeUnavailable, type OpReply } from './connection.js';
import type { OpArgs, OpName, OpResult } from './ops/index.js';
import { deviceOf, reopenForWriting, type FileHandle } from './reopen-descriptor.js';

/** Operations that only read (the workspace or the runtime's own state) and hold nothing in the runtime. */
const RERUNNABLE_READS: ReadonlySet<OpName> = new Set<OpName>([
  'resolve',
  'stat',
  'readFile',
  'hashFile',
  'readdir',
  'usage',
  'ping',
  'fileInfo',
  'listDirectory',
  'glob',
  'grep',
  'walkSource',
  'readFiles',
  'fileDigest',
  'snapshotScan',
  'snapshotRead',
  'packTree',
]);

export interface RuntimeEvents {
  started(sessionId: string, coldStartMs: number): void;
  /** A runtime that outlived the service was attached again and may hold its commands (adoptCommands). */
  reattached?(runtime: SessionRuntime): Promise<void>;
  crashed(sessionId: string, reason: string): void;
  stderr(sessionId: string, line: string): void;
}

/** A session's way out while its runtime lives (network/egress.ts): opened at each start, closed at its end. */
export interface EgressLease {
  readonly socketPath: string;
  /** Whether the sandbox's relay may carry bytes with splice(2) (network.spliceAfterBytes not 0). */
  readonly splice?: boolean;
  close(): Promise<void>;
}
/** Opens the session's egress socket; undefined: the session has no network. */
export type EgressOpener = () => Promise<EgressLease | undefined>;

export interface RuntimeOptions {
  /** Workspace quota in bytes (0: none). */
  readonly quotaBytes: number;
  /**
   * Host directories the sandbox shows read-only at the same path: tool folders and MCP server packages,
   * and for a one-shot runtime (RuntimeManager.oneShot) the local repository it clones.
   */
  readonly readOnlyPaths?: readonly string[];
  /** A forked session's copy-on-write workspace, looked up at every start (so a restart mounts it again). */
  readonly overlay?: () => OverlayMount | undefined;
  readonly idleMs: number;
  /** A runtime that does not answer a ping within this while it has work outstanding is killed. */
  readonly hangMs: number;
  readonly cgroups?: PidsCgroups;
  /** The sessions' cpu cgroups: each start of this runtime runs in a group of its own (RuntimeStart.cpuGroup). */
  readonly cpuGroups?: SessionCpuGroups;
  /** When tracing is on: each operation and command of a traced call is a child span of it. */
  readonly tracing?: Tracing;
  /** The session's image key (container backends). */
  readonly image?: string;
  /** A one-shot runtime (RuntimeManager.oneShot): never re-attached, gone once stopped. */
  readonly transient?: boolean;
  /**
   * Asked before each start (the replica's capacity, RuntimeManager.admission): throws the refusal when
   * the replica cannot take another runtime now, after stopping idle ones to make room if it can.
   */
  readonly admit?: () => Promise<void>;
  /** Host directory of the ingress socket, for previews of the session's ports (RuntimeStart.ingressDir). */
  readonly ingressDir?: string;
}

export interface CommandRequest {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
  /** The caller's record of the command (its job), kept by runtimes that outlive the service. */
  readonly tag?: Readonly<Record<string, unknown>>;
}

export type RuntimeState = 'stopped' | 'starting' | 'running';

export class SessionRuntime {
  private connection: RuntimeConnection | null = null;
  private starting: Promise<RuntimeConnection> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private outstanding = 0;
  private runningCommands = 0;
  /** State the runtime holds for the session (open shells): no idle stop while any is held. */
  private holds = 0;
  private nextProc = 1;
  private stoppedOnPurpose = false;
  /** Connections the watchdog killed for not answering: what they were doing is not run again. */
  private readonly hung = new WeakSet<RuntimeConnection>();
  private innerPid = 0;
  /** st_dev of the workspace root on the host, the only file system an upload may be reopened on. */
  private workspaceDevice: number | undefined;
  /** Kills each running command's processes from the host (see launch). */
  private readonly commandKillers = new Set<() => void>();
  starts = 0;
  lastActivity = Date.now();

  constructor(
    readonly sessionId: string,
    private readonly workspaceRoot: string,
    private readonly egress: EgressOpener | undefined,
    private readonly backend: RuntimeBackend,
    private readonly options: RuntimeOptions,
    private readonly events: RuntimeEvents,
  ) {}

  /** The runtime's Node.js binary as its commands see it. */
  get nodePath(): string {
    return this.backend.nodePath;
  }

  get isolated(): boolean {
    return this.backend.isolated;
  }

  /** The workspace root as its commands see it (a language server's root, for one). */
  get commandRoot(): string {
    return this.backend.isolated ? SANDBOX_WORKSPACE : this.workspaceRoot;
  }

  get state(): RuntimeState {
    if (this.connection?.alive) return 'running';
    return this.starting ? 'starting' : 'stopped';
  }

  /** Work in flight: an operation, or a command (a background job included). An idle runtime has none. */
  get busy(): boolean {
    return this.outstanding > 0 || this.runningCommands > 0;
  }

  get pid(): number | undefined {
    return this.connection?.alive ? this.connection.pid : undefined;
  }

  private async connect(): Promise<RuntimeConnection> {
    if (this.connection?.alive) return this.connection;
    if (this.starting) return this.starting;
    this.starting = this.launch().finally(() => (this.starting = null));
    return this.starting;
  }

  private async launch(): Promise<RuntimeConnection> {
    await this.options.admit?.();
    const began = performance.now();
    this.stoppedOnPurpose = false;
    const egress = await this.egress?.();
    const cpuGroup = this.options.cpuGroups?.create(this.sessionId);
    let child;
    try {
      child = this.backend.start({
        sessionId: this.sessionId,
        workspaceRoot: this.workspaceRoot,
        ...(egress ? { egressSocket: egress.socketPath } : {}),
        ...(egress?.splice === false ? { egressCopy: true } : {}),
        ...(this.options.ingressDir !== undefined ? { ingressDir: this.options.ingressDir } : {}),
        quotaBytes: this.options.quotaBytes,
        readOnlyPaths: this.options.readOnlyPaths ?? [],
        overlay: this.options.overlay?.(),
        image: this.options.image,
        transient: this.options.transient,
        cpuGroup,
      });
    } catch (err) {
      cpuGroup?.remove();
      await egress?.close();
      throw err;
    }
    const connection = new RuntimeConnection(child, (line) => this.events.stderr(this.sessionId, line));
    void connection.closed.then(() => {
      void egress?.close();
      cpuGroup?.remove();
      // Commands die with their runtime: the pid namespace sees to it with bwrap; unisolated, their
      // process groups and cgroups are killed here.
      for (const kill of this.commandKillers) kill();
      this.commandKillers.clear();
      if (this.connection === connection) this.connection = null;
      this.clearTimers();
      if (!this.stoppedOnPurpose) this.events.crashed(this.sessionId, 'exited');
    });
    try {
      const ready = await connection.ready;
      this.innerPid = ready.pid;
      // A re-attached runtime may still run commands of the service's previous life under low numbers.
      this.nextProc = Math.max(this.nextProc, ready.nextProc ?? 1);
    } catch (err) {
      connection.kill();
      throw err;
    }
    this.connection = connection;
    this.starts++;
    this.events.started(this.sessionId, performance.now() - began);
    this.armIdle();
    // Before the call that attached runs: a job listing must already see the adopted jobs.
    if (this.backend.persistent && this.nextProc > 1)
      await this.events.reattached?.(this).catch(() => undefined);
    return connection;
  }

  /** Runs one operation; the runtime is started (or restarted) as needed. */
  async call<K extends OpName>(
    op: K,
    args: OpArgs<K>,
    payload?: Uint8Array,
    signal?: CancelSignal,
  ): Promise<OpReply<OpResult<K>>> {
    const tracing = this.options.tracing;
    // Only inside traced work: housekeeping (the expiry sweep clearing a workspace) makes no lone root spans.
    if (tracing && tracedParent(tracing)) {
      return inSpan(tracing, `runtime ${op}`, { 'toolgate.session.id': this.sessionId }, () =>
        this.op(op, args, payload, signal),
      );
    }
    return this.op(op, args, payload, signal);
  }

  /**
   * An operator's look at the runtime's own state (its shells, terminals, kernels): answered only while
   * the runtime runs — never started for it — and not counted as the session's activity, so a console
   * left open on a session does not keep an idle runtime from its stop. undefined: not running (or it
   * died during the look).
   */
  async peek<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K> | undefined> {
    const connection = this.connection;
    if (!connection?.alive) return undefined;
    // Outstanding without touching lastActivity: no idle stop in the middle, and the hang watchdog on.
    this.outstanding++;
    this.watch();
    try {
      return (await connection.call(op, args)).result;
    } catch (err) {
      if (!connection.alive) return undefined;
      throw err;
    } finally {
      this.outstanding--;
      this.armIdle();
    }
  }

  private async op<K extends OpName>(
    op: K,
    args: OpArgs<K>,
    payload?: Uint8Array,
    signal?: CancelSignal,
  ): Promise<OpReply<OpResult<K>>> {
    // Running already (the common case): no promise to wait for.
    const connection = this.connection?.alive ? this.connection : await this.connect();
    this.begin();
    try {
      return await connection.call(op, args, payload, signal);
    } catch (err) {
      // A read sent to a runtime that was dying (killed or crashed between calls, its death not yet
      // seen) runs once more on a fresh one: it changes nothing, so running it twice is safe, and the
      // caller gets its answer instead of a 503 for a crash that had already happened. Not after a stop
      // on purpose (the session is going away), not after a hang (the read may be what hung), nor for
      // anything that writes or holds runtime state.
      if (!RERUNNABLE_READS.has(op) || connection.alive || this.stoppedOnPurpose || signal?.aborted)
        throw err;
      if (this.hung.has(connection)) throw err;
      if (!isToolgateError(err) || err.code !== 'RUNTIME_UNAVAILABLE') throw err;
      return await (await this.connect()).call(op, args, payload, signal);
    } finally {
      this.end();
    }
  }

  private begin(): void {
    this.outstanding++;
    this.lastActivity = Date.now();
    this.watch();
  }

  private end(): void {
    this.outstanding--;
    this.lastActivity = Date.now();
    this.armIdle();
  }

  /** While work is outstanding, the runtime must keep answering pings; one that stops is killed. */
  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(
      () => {
        const connection = this.connection;
        if (!connection?.alive || (this.outstanding === 0 && this.runningCommands === 0)) {
          if (this.watchdog) clearInterval(this.watchdog);
          this.watchdog = null;
          return;
        }
        let answered = false;
        // Timers run before I/O in a turn of the event loop: when this process was itself stalled (a
        // busy machine), the answer may already wait in the pipe. setImmediate runs after the I/O phase,
        // so that answer is read before the runtime is declared hung.
        const timer = setTimeout(
          () =>
            setImmediate(() => {
              if (answered) return;
              this.hung.add(connection);
              connection.fail(`it stopped answering (no reply within ${this.options.hangMs} ms)`);
              connection.child.kill('SIGKILL');
            }),
          this.options.hangMs,
        );
        const settle = () => {
          answered = true;
          clearTimeout(timer);
        };
        connection.call('ping', {}).then(settle, settle);
      },
      Math.max(250, Math.floor(this.options.hangMs / 2)),
    );
    this.watchdog.unref();
  }

  /**
   * Stops the runtime once nothing has run on it for idleMs. One timer that looks at lastActivity when it
   * fires, rather than a timer cleared and set again around every operation.
   */
  private armIdle(delayMs = this.options.idleMs): void {
    if (this.idleTimer || !this.connection) return;
    this.idleTimer = setTimeout(this.idleCheck, delayMs);
    this.idleTimer.unref();
  }

  /**
   * Keeps the runtime from its idle stop for `ms` from now: it holds terminals or kernels, which close
   * themselves inside after that long unused (config terminals/kernels idleSeconds), not at idleMs.
   */
  holdFor(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, Date.now() + ms);
  }

  private heldUntil = 0;

  private readonly idleCheck = (): void => {
    this.idleTimer = null;
    // Busy: the end of that work arms the timer again.
    if (this.outstanding > 0 || this.runningCommands > 0 || this.holds > 0 || !this.connection) return;
    const heldForMs = this.heldUntil - Date.now();
    if (heldForMs > 0) return this.armIdle(Math.max(heldForMs, this.options.idleMs));
    const idleForMs = Date.now() - this.lastActivity;
    if (idleForMs >= this.options.idleMs) void this.stop();
    else this.armIdle(this.options.idleMs - idleForMs);
  };

  private clearTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.watchdog) clearInterval(this.watchdog);
    this.idleTimer = null;
    this.watchdog = null;
  }

  /**
   * Keeps the runtime from its idle stop while state lives in it that the session built (a persistent
   * shell); the returned function lets go (once).
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.armIdle();
    };
  }

  /**
   * Runs `op` with a fresh command number: output events the runtime sends under that number while the
   * op runs go to `output` (a persistent shell's command streams its output so, and answers at its end).
   */
  async callWithOutput<K extends OpName>(
    op: K,
    args: (proc: number) => OpArgs<K>,
    output: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
    signal?: CancelSignal,
  ): Promise<OpReply<OpResult<K>>> {
    const connection = this.connection?.alive ? this.connection : await this.connect();
    const proc = this.nextProc++;
    connection.listen(proc, { output, exit: () => undefined });
    this.begin();
    try {
      return await connection.call(op, args(proc), undefined, signal);
    } finally {
      connection.unlisten(proc);
      this.end();
    }
  }

  /** Counts the runtime's starts: a descriptor it named is only meaningful in the same generation. */
  get generation(): number {
    return this.starts;
  }

  /**
   * Runs `write` on a write-only handle of the file that the runtime of generation `generation` holds as
   * descriptor `fd` (reopened through /proc; see reopen-descriptor.ts), and closes the handle after it
   * (unless `write` lent it to a stream that closes it).
   * The runtime counts as busy meanwhile (no idle stop, the watchdog watches it). Undefined, without
   * running `write`, when that runtime is gone or the file cannot be reopened: send the bytes instead.
   */
  async writeThroughDescriptor<T>(
    generation: number,
    fd: number,
    write: (handle: FileHandle) => Promise<T>,
  ): Promise<{ value: T } | undefined> {
    const connection = this.connection;
    if (!connection?.alive || generation !== this.starts || this.options.overlay?.()) return undefined;
    const pid = this.backend.runtimePid(connection.child, this.innerPid);
    if (pid === undefined) return undefined;
    this.workspaceDevice ??= await deviceOf(this.workspaceRoot);
    if (this.workspaceDevice === undefined) return undefined;
    const handle = await reopenForWriting(pid, fd, this.workspaceDevice);
    // The runtime may have restarted while the file was reopened: its descriptors are another's now.
    if (!handle || !connection.alive || generation !== this.starts) {
      await handle?.close();
      return undefined;
    }
    this.begin();
    try {
      return { value: await write(handle) };
    } finally {
      this.end();
      await handle.close().catch(() => undefined);
    }
  }

  /** Resource use of the runtime process (null when it is not running). */
  async usage(): Promise<OpResult<'ping'> | null> {
    if (!this.connection?.alive) return null;
    return (await this.connection.call('ping', {})).result;
  }

  /**
   * The workspace's disk use from a running runtime, without counting as activity (a metrics scrape must
   * not keep idle runtimes alive); null when it is not running.
   */
  async diskUsage(): Promise<OpResult<'usage'> | null> {
    if (!this.connection?.alive) return null;
    return (await this.connection.call('usage', {})).result;
  }

  /** Stops the runtime and everything it started. The next operation starts it again. */
  stop(): Promise<void> {
    return this.release('kill');
  }

  /**
   * Lets go of a runtime that outlives the service (container backends at shutdown): it keeps running,
   * with its commands, and the next start re-attaches to it. Other backends stop it.
   */
  detach(): Promise<void> {
    return this.release(this.backend.persistent ? 'detach' : 'kill');
  }

  private async release(how: 'kill' | 'detach'): Promise<void> {
    this.clearTimers();
    const connection = this.connection;
    this.connection = null;
    if (!connection) return;
    this.stoppedOnPurpose = true;
    connection[how]();
    await connection.closed;
  }

  /**
   * Starts a command inside the runtime. The returned process follows the runner's contract (streams,
   * `exited`, idempotent `kill`), so jobs work the same whatever runs them.
   */
  async spawn(request: CommandRequest): Promise<SandboxedProcess> {
    const span = this.commandSpan();
    try {
      return await this.spawnCommand(request, span);
    } catch (err) {
      if (span) failSpan(span, err);
      throw err;
    }
  }

  /** A `command` span from spawn to exit, when a traced call starts the command. */
  private commandSpan(): Span | undefined {
    const tracing = this.options.tracing;
    const parent = tracedParent(tracing);
    if (!tracing || !parent) return undefined;
    return tracing.tracer.startSpan(
      'command',
      { attributes: { 'toolgate.session.id': this.sessionId } },
      parent,
    );
  }

  private async spawnCommand(request: CommandRequest, span: Span | undefined): Promise<SandboxedProcess> {
    const connection = await this.connect();
    const proc = this.nextProc++;
    const cgroup = this.options.cgroups?.create(request.limits.maxProcesses);
    let hostPid: number | undefined;
    const killFromHost = () => {
      cgroup?.killAll();
      if (hostPid !== undefined && !this.backend.isolated) {
        try {
          process.kill(-hostPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const command = this.commandProcess(connection, proc, span, killFromHost, () => cgroup?.remove());
    connection.listen(proc, command.listener);
    this.begin();
    try {
      const { result } = await connection.call('spawn', { proc, ...request, hold: cgroup !== undefined });
      hostPid = this.backend.isolated ? undefined : result.pid;
      if (cgroup) {
        const found = this.backend.hostPid(connection.child, this.innerPid, result.pid);
        if (found !== undefined) cgroup.join(found);
        connection.notify('release', { proc });
      }
    } catch (err) {
      command.abandon();
      connection.unlisten(proc);
      cgroup?.remove();
      throw err;
    } finally {
      this.end();
    }
    return command.process(() => cgroup?.killAll());
  }

  /**
   * The commands a re-attached runtime kept from the service's previous life (container backends), each
   * with the tag it was started with, taken over as processes of this service: their kept output comes
   * first, then what they print from now on.
   */
  async adoptCommands(
    wanted: (tag: Readonly<Record<string, unknown>>) => boolean,
  ): Promise<Array<{ tag: Readonly<Record<string, unknown>>; process: SandboxedProcess }>> {
    const connection = await this.connect();
    const { result } = await connection.call('procs', {});
    const adopted = [];
    for (const kept of result.procs) {
      if (!wanted(kept.tag)) continue;
      const command = this.commandProcess(
        connection,
        kept.proc,
        undefined,
        () => undefined,
        () => undefined,
      );
      try {
        await connection.adopt(kept.proc, command.listener);
      } catch {
        command.abandon();
        continue;
      }
      adopted.push({ tag: kept.tag, process: command.process(() => undefined) });
    }
    return adopted;
  }

  /** The service's side of command `proc`: its streams, its exit, and the listener that feeds them. */
  private commandProcess(
    connection: RuntimeConnection,
    proc: number,
    span: Span | undefined,
    killFromHost: () => void,
    cleanUp: () => void,
  ) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let resolveExit!: (exit: ExitInfo) => void;
    const exited = new Promise<ExitInfo>((resolve) => (resolveExit = resolve));
    this.commandKillers.add(killFromHost);
    this.runningCommands++;
    const listener = {
      output: (stream: 'stdout' | 'stderr', chunk: Buffer) =>
        (stream === 'stdout' ? stdout : stderr).write(chunk),
      exit: (exitCode: number | null, signal: string | null, reason?: 'quota') => {
        this.commandKillers.delete(killFromHost);
        stdout.end();
        stderr.end();
        cleanUp();
        this.runningCommands--;
        this.armIdle();
        span
          ?.setAttributes({
            ...(exitCode !== null ? { 'process.exit.code': exitCode } : {}),
            ...(signal ? { 'toolgate.command.signal': signal } : {}),
            ...(reason ? { 'toolgate.command.kill_reason': reason } : {}),
          })
          .end();
        resolveExit({ exitCode, signal, ...(reason ? { reason } : {}) });
      },
    };
    return {
      listener,
      /** The command never started (or cannot be adopted): undo the counting above. */
      abandon: () => {
        this.commandKillers.delete(killFromHost);
        this.runningCommands--;
      },
      process: (killMore: () => void): SandboxedProcess => {
        const stdin = new Writable({
          write(chunk: Buffer, _encoding, done) {
            connection.notify('stdin', { proc }, chunk);
            done();
          },
          final(done) {
            connection.notify('stdin', { proc, end: true });
            done();
          },
        });
        let killed = false;
        return {
          stdout,
          stderr,
          stdin,
          exited,
          kill() {
            if (killed) return;
            killed = true;
            connection.notify('kill', { proc });
            killMore();
          },
        };
      },
    };
  }
}

export { runtimeUnavailable };
