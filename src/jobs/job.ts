// One running (or finished) command: its process, output capture (capped head+tail per stream for the
// response, the full interleaved log on disk), timers for timeout and idleness, stdin, and listeners.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { OutputChunk } from '../lib/output-chunk.js';
import type { ExitInfo, SandboxedProcess } from '../runtime/runner/types.js';
import { HeadTailCapture } from './head-tail.js';
import type { JobLog } from './job-log.js';

export type JobStatus = 'running' | 'exited' | 'killed';
export type KillReason =
  | 'timeout'
  | 'idle_timeout'
  | 'output_limit'
  | 'killed'
  | 'cancelled'
  | 'session_deleted'
  | 'shutdown'
  | 'quota';

export interface JobInit {
  id: string;
  sessionId: string;
  command: string;
  cwd: string;
  process: SandboxedProcess;
  log: JobLog;
  outputMaxBytes: number;
  timeoutMs: number;
  idleTimeoutMs?: number;
  stdin?: string;
  /** Keep stdin open for job_input after writing `stdin`. */
  keepStdinOpen: boolean;
  /** When it started, if before this Job (a job adopted from a runtime that outlived the service). */
  startedAt?: number;
}

type Listener = (chunk: OutputChunk & { stream: 'stdout' | 'stderr' }) => void;

export class Job {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly cwd: string;
  readonly log: JobLog;
  readonly startedAt: number;
  readonly stdout: HeadTailCapture;
  readonly stderr: HeadTailCapture;
  /** Resolves when the process is gone and all output is in the log. */
  readonly done: Promise<void>;
  status: JobStatus = 'running';
  killReason: KillReason | null = null;
  exit: ExitInfo | null = null;
  endedAt: number | null = null;
  startError: string | null = null;
  stdinOpen: boolean;
  private readonly process: SandboxedProcess;
  private readonly listeners = new Set<Listener>();
  private readonly timers: NodeJS.Timeout[] = [];
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(init: JobInit) {
    this.id = init.id;
    this.sessionId = init.sessionId;
    this.command = init.command;
    this.cwd = init.cwd;
    this.log = init.log;
    this.startedAt = init.startedAt ?? Date.now();
    this.process = init.process;
    this.stdout = new HeadTailCapture(init.outputMaxBytes);
    this.stderr = new HeadTailCapture(init.outputMaxBytes);
    const captured = [this.capture('stdout', this.stdout), this.capture('stderr', this.stderr)];
    this.timers.push(setTimeout(() => this.kill('timeout'), init.timeoutMs));
    if (init.idleTimeoutMs !== undefined) {
      const idleMs = init.idleTimeoutMs;
      const arm = () => {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => this.kill('idle_timeout'), idleMs);
      };
      arm();
      this.listeners.add(arm);
    }
    if (init.stdin !== undefined) this.process.stdin.write(init.stdin);
    this.stdinOpen = init.keepStdinOpen;
    if (!init.keepStdinOpen) this.process.stdin.end();
    // The exit may be known before the last output has come out of the streams: a command's output, its
    // exit and the answer to its spawn can arrive in one read, before this job listens (the streams then
    // flow on the next tick, after the exit's promise has settled). Finished only once both have ended.
    const drained = Promise.all(captured);
    this.done = this.process.exited.then(
      async (exit) => {
        await drained;
        this.finish(exit, null);
      },
      async (err: Error) => {
        await drained;
        this.finish({ exitCode: null, signal: null }, err.message);
      },
    );
  }

  /** Feeds `capture`, the log and the listeners from one stream; resolves once it has ended (or failed). */
  private capture(stream: 'stdout' | 'stderr', capture: HeadTailCapture): Promise<void> {
    const decoder = new StringDecoder('utf8');
    const source: Readable = stream === 'stdout' ? this.process.stdout : this.process.stderr;
    const ended = new Promise<void>((resolve) => {
      source.once('end', resolve);
      source.once('close', resolve);
      source.once('error', () => resolve());
    });
    source.on('data', (chunk: Buffer) => {
      capture.push(chunk);
      if (!this.log.append(chunk)) this.kill('output_limit');
      const text = decoder.write(chunk);
      if (text) for (const listener of this.listeners) listener({ stream, chunk: text });
    });
    source.on('end', () => {
      const rest = decoder.end();
      if (rest) for (const listener of this.listeners) listener({ stream, chunk: rest });
    });
    return ended;
  }

  private finish(exit: ExitInfo, startError: string | null): void {
    // The runtime stopped it for pushing the workspace past its quota (see runtime/inside/commands.ts).
    if (exit.reason === 'quota') this.killReason ??= 'quota';
    for (const timer of this.timers) clearTimeout(timer);
    clearTimeout(this.idleTimer);
    this.exit = exit;
    this.startError = startError;
    this.endedAt = Date.now();
    this.status = this.killReason ? 'killed' : 'exited';
    this.stdinOpen = false;
    this.log.close();
    this.listeners.clear();
  }

  get running(): boolean {
    return this.status === 'running';
  }

  get timedOut(): boolean {
    return this.killReason === 'timeout' || this.killReason === 'idle_timeout';
  }

  get durationMs(): number {
    return (this.endedAt ?? Date.now()) - this.startedAt;
  }

  /** Output as it arrives (decoded, never splitting a character); returns the unsubscribe function. */
  onOutput(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Kills the whole process tree; the first reason given is the one reported. */
  kill(reason: KillReason): void {
    if (!this.running) return;
    this.killReason ??= reason;
    this.process.kill();
  }

  write(input: string): void {
    this.process.stdin.write(input);
  }

  closeStdin(): void {
    this.stdinOpen = false;
    this.process.stdin.end();
  }

  /** Waits until the job ends or `ms` pass; true when it ended. */
  async wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.running) return true;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.done.then(() => true as const), stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
