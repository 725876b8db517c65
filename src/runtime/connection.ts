// The service's end of one runtime process: sends requests, matches responses, routes process events,
// and turns the process's death into 503 RUNTIME_UNAVAILABLE for everything still waiting on it.
import type { CancelSignal } from '../lib/cancellation.js';
import {
  isToolgateError,
  toolgateError,
  type ErrorCode,
  ERROR_CODES,
  type ToolgateError,
} from '../lib/errors.js';
import type { OpArgs, OpName, OpResult } from './ops/index.js';
import type { RuntimeProcess } from './backends/types.js';
import { FrameWriter } from './frame-writer.js';
import { encodeFrame, FrameReader, writeFrame, type ProcessEventHeader, type WireError } from './protocol.js';

export interface OpReply<R> {
  readonly result: R;
  readonly payload: Buffer;
}

interface Pending {
  resolve(reply: OpReply<unknown>): void;
  reject(err: Error): void;
  /** The caller's signal and what it does on abort (send a cancel), removed when the request settles. */
  signal?: CancelSignal;
  onAbort?: () => void;
}

export interface ProcessListener {
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  exit(exitCode: number | null, signal: string | null, reason?: 'quota'): void;
}

/** What a runtime says when it is ready (also after a re-attach): its pid, and the next free command number. */
export interface RuntimeReady {
  readonly pid: number;
  /** Commands started by an earlier connection may still run: new ones are numbered from here. */
  readonly nextProc?: number;
}

export const runtimeUnavailable = (why: string): ToolgateError =>
  toolgateError('RUNTIME_UNAVAILABLE', `The session's runtime is unavailable: ${why}`, {
    suggestion:
      'Retry the call: the runtime is restarted on the next call. Running commands of this session were stopped.',
  });

const fromWire = (error: WireError): ToolgateError =>
  toolgateError(error.code in ERROR_CODES ? (error.code as ErrorCode) : 'INTERNAL_ERROR', error.message, {
    suggestion: error.suggestion,
    details: error.details,
  });

export class RuntimeConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly processes = new Map<number, ProcessListener>();
  /**
   * Commands being adopted, with the id of their adopt request: only their replayed events count until
   * the answer to it (see adopt).
   */
  private readonly adopting = new Map<number, number>();
  private deadReason: string | null = null;
  /** Set once the child has pipes; a spawn that failed has none and fails every call before writing. */
  private writer: FrameWriter | undefined;
  /** Resolves when the runtime said it is ready; rejects if it died first. */
  readonly ready: Promise<RuntimeReady>;
  /** Resolves when the process is gone. */
  readonly closed: Promise<void>;

  constructor(
    readonly child: RuntimeProcess,
    private readonly onStderr: (line: string) => void = () => undefined,
  ) {
    let readyResolve!: (v: RuntimeReady) => void;
    let readyReject!: (err: Error) => void;
    this.ready = new Promise((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    this.ready.catch(() => undefined);
    this.pending.set(0, {
      resolve: (r) => readyResolve(r.result as RuntimeReady),
      reject: readyReject,
    });
    let stderrTail = '';
    // Listen for 'error' before anything else: a spawn that fails for want of descriptors (EMFILE)
    // emits it on the next tick, and an 'error' nobody listens to would stop the whole service.
    this.closed = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        const detail = stderrTail.trim().split('\n').slice(-3).join(' | ');
        this.fail(`it exited (${signal ?? `code ${code}`})${detail ? `: ${detail.slice(0, 300)}` : ''}`);
        resolve();
      });
      child.once('error', (err) => {
        // A start refused for a reason the backend named (a missing image): that error, not "retry".
        this.fail(`it could not be started (${err.message})`, isToolgateError(err) ? err : undefined);
        resolve();
      });
    });
    // Such a spawn also leaves the child without pipes; 'error' (above) ends it.
    if (!child.stdin || !child.stdout || !child.stderr) return;
    this.writer = new FrameWriter(child.stdin);
    const reader = new FrameReader();
    child.stdout.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch (err) {
        this.fail(`protocol error (${(err as Error).message})`);
        child.kill('SIGKILL');
        return;
      }
      for (const { header, payload } of frames) {
        if (header.t === 'res') {
          // Live events from here on count: they may follow in this very read, before the adopt's
          // promise settles, and the replay does not hold them.
          if (this.adopting.size > 0)
            for (const [proc, id] of this.adopting) if (id === header.id) this.adopting.delete(proc);
          const waiter = this.pending.get(header.id);
          this.pending.delete(header.id);
          if (!waiter) continue;
          if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
          if (header.ok) waiter.resolve({ result: header.result, payload });
          else waiter.reject(fromWire(header.error));
        } else if (header.t === 'out' || header.t === 'exit') {
          this.processEvent(header, payload);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.onStderr(line);
    });
    child.stdin.on('error', () => undefined);
  }

  get alive(): boolean {
    return this.deadReason === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async call<K extends OpName>(
    op: K,
    args: OpArgs<K>,
    payload?: Uint8Array,
    signal?: CancelSignal,
  ): Promise<OpReply<OpResult<K>>> {
    return this.request(op, args, payload, signal).reply;
  }

  /** Sends a request; its id (known before the answer comes) and the answer. */
  private request<K extends OpName>(
    op: K,
    args: OpArgs<K>,
    payload?: Uint8Array,
    signal?: CancelSignal,
  ): { id: number; reply: Promise<OpReply<OpResult<K>>> } {
    if (this.deadReason !== null)
      return { id: -1, reply: Promise.reject(runtimeUnavailable(this.deadReason)) };
    const writer = this.writer;
    if (!writer) return { id: -1, reply: Promise.reject(runtimeUnavailable('it could not be started')) };
    const id = this.nextId++;
    let waiter!: Pending;
    const reply = new Promise<OpReply<OpResult<K>>>((resolve, reject) => {
      waiter = { resolve: resolve as Pending['resolve'], reject };
    });
    this.pending.set(id, waiter);
    writeFrame(writer, { t: 'req', id, op, args }, payload);
    if (signal?.aborted) this.cancel(id);
    else if (signal) {
      // Removed by whatever settles the request (its response, or the runtime's death): no promise of
      // its own to wait for that.
      waiter.signal = signal;
      waiter.onAbort = () => this.cancel(id);
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    }
    return { id, reply };
  }

  /** Asks the runtime to abort request `id`, if it is still running. */
  private cancel(id: number): void {
    if (this.pending.has(id) && this.alive)
      this.writer?.write(encodeFrame({ t: 'req', id: 0, op: 'cancel', args: { id } }));
  }

  /** Sends without waiting for the answer (stdin data, kills): order is kept by the stream. */
  notify<K extends OpName>(op: K, args: OpArgs<K>, payload?: Uint8Array): void {
    if (this.deadReason !== null) return;
    this.call(op, args, payload).catch(() => undefined);
  }

  listen(proc: number, listener: ProcessListener): void {
    this.processes.set(proc, listener);
  }

  /**
   * Takes over a command the runtime kept from an earlier connection: its kept output and exit are sent
   * again (marked replay), and live events sent before the replay are dropped, since the replay holds
   * them too. Rejects when the runtime does not keep it.
   */
  async adopt(proc: number, listener: ProcessListener): Promise<void> {
    this.processes.set(proc, listener);
    const { id, reply } = this.request('adopt', { proc });
    this.adopting.set(proc, id);
    try {
      await reply;
    } catch (err) {
      this.processes.delete(proc);
      throw err;
    } finally {
      this.adopting.delete(proc);
    }
  }

  unlisten(proc: number): void {
    this.processes.delete(proc);
  }

  private processEvent(header: ProcessEventHeader, payload: Buffer): void {
    const listener = this.processes.get(header.proc);
    if (!listener || (this.adopting.has(header.proc) && !header.replay)) return;
    if (header.t === 'out') listener.output(header.stream, payload);
    else {
      this.processes.delete(header.proc);
      listener.exit(header.exitCode, header.signal, header.reason);
    }
  }

  /** Everything still waiting learns the runtime is gone; running commands died with it. */
  fail(reason: string, error: ToolgateError = runtimeUnavailable(reason)): void {
    if (this.deadReason !== null) return;
    this.deadReason = reason;
    for (const waiter of this.pending.values()) {
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      waiter.reject(error);
    }
    this.pending.clear();
    for (const listener of this.processes.values()) listener.exit(null, 'SIGKILL');
    this.processes.clear();
  }

  /** Lets go of a runtime that outlives the service (see RuntimeProcess.detach); it keeps running. */
  detach(): void {
    this.fail('the service let go of it');
    this.child.detach?.();
  }

  kill(): void {
    this.fail('it was stopped');
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
