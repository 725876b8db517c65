// A runtime reached over an attach stream (a Docker container's or a Kubernetes pod's stdio) dressed as
// the RuntimeProcess the connection expects: stdin/stdout/stderr streams, 'close' when the stream ends,
// kill() that stops the container or pod, detach() that lets go of it running. Shared by the docker and
// kubernetes backends: only how the stream is opened and how the runtime is stopped differ.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ATTACH_OP, attachMarker, encodeFrame } from '../../protocol.js';
import type { RuntimeBackend, RuntimeProcess, RuntimeStart, RuntimeTemplate } from '../types.js';

/** An open attach stream: bytes to the runtime's stdin, its stdout and stderr apart, and how to drop it. */
export interface AttachStream {
  readonly input: Writable;
  readonly output: Readable;
  readonly errors: Readable;
  /** Resolves when the stream has ended (the runtime exited, or the stream was closed). */
  readonly ended: Promise<void>;
  /** Closes the stream; the runtime keeps running. */
  close(): void;
}

export interface AttachTarget {
  /** Makes the runtime exist and run (create, start, or find it running) and opens its attach stream. */
  open(): Promise<AttachStream>;
  /** Stops the runtime (its stream then ends). */
  stop(): Promise<void>;
}

/** Resolves once `stream` has ended and all it held was read (or it failed: nothing more comes). */
const drained = (stream: Readable): Promise<void> =>
  finished(stream, { writable: false }).catch(() => undefined);

/** The most bytes held while looking for the attach marker: a runtime answers within a few frames. */
const MAX_SKIPPED_BYTES = 64 * 1024 * 1024;

export class AttachedProcess extends EventEmitter implements RuntimeProcess {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly pid = undefined;
  private stream: AttachStream | undefined;
  private killed = false;
  private detached = false;
  private closed = false;

  constructor(private readonly target: AttachTarget) {
    super();
    this.open().catch((err: unknown) => this.finish(err as Error));
  }

  private async open(): Promise<void> {
    const stream = await this.target.open();
    this.stream = stream;
    // Killed or let go of while it was being opened: do now what was asked then.
    if (this.killed || this.detached) {
      if (this.killed) await this.target.stop().catch(() => undefined);
      stream.close();
      this.finish();
      return;
    }
    // Finished once what the stream carried has passed on: its end comes before its last bytes have
    // gone through the demultiplexed streams, and the exit frame of a command may be among them.
    void stream.ended
      .then(() => Promise.all([drained(stream.output), drained(stream.errors)]))
      .then(() => this.finish());
    const nonce = randomBytes(12).toString('hex');
    stream.input.on('error', () => undefined);
    stream.input.write(encodeFrame({ t: 'req', id: 0, op: ATTACH_OP, args: { nonce } }));
    this.stdin.pipe(stream.input);
    stream.errors.pipe(this.stderr, { end: false });
    this.skipToMarker(stream.output, attachMarker(nonce));
  }

  /** Drops what the stream carries before the runtime's marker (see protocol.ts attachMarker). */
  private skipToMarker(output: Readable, marker: Buffer): void {
    let held = Buffer.alloc(0);
    const look = (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      const at = held.indexOf(marker);
      if (at < 0) {
        if (held.length > MAX_SKIPPED_BYTES) held = held.subarray(held.length - marker.length);
        return;
      }
      output.off('data', look);
      const rest = held.subarray(at + marker.length);
      if (rest.length > 0) this.stdout.write(rest);
      output.pipe(this.stdout, { end: false });
    };
    output.on('data', look);
  }

  private finish(err?: Error): void {
    if (this.closed) return;
    this.closed = true;
    if (err) this.emit('error', err);
    this.stdout.end();
    this.stderr.end();
    this.stdin.unpipe();
    // After the streams' last data: the connection reads everything before it hears of the end.
    setImmediate(() => this.emit('close', null, this.killed ? 'SIGKILL' : null));
  }

  kill(): boolean {
    if (this.killed) return true;
    this.killed = true;
    if (this.stream) {
      const stream = this.stream;
      void this.target.stop().finally(() => {
        stream.close();
        this.finish();
      });
    }
    return true;
  }

  detach(): void {
    this.detached = true;
    this.stream?.close();
    if (this.stream) this.finish();
  }
}

/** What a container backend says of itself; the rest of the RuntimeBackend is the same for all of them. */
export interface AttachedBackendParts {
  readonly name: 'docker' | 'kubernetes';
  readonly detail: string;
  readonly nodePath: string;
  readonly images: readonly string[];
  target(request: RuntimeStart): AttachTarget;
  discard(sessionId: string): Promise<void>;
  checkImage?(key: string | undefined): Promise<void>;
  missingImages?(): Promise<{ key: string; image: string }[]>;
  sweep(isLive: (sessionId: string) => boolean | Promise<boolean>): Promise<number>;
  runningSessions(): Promise<string[]>;
  warm?(template: RuntimeTemplate): Promise<void>;
  close?(): Promise<void>;
}

/**
 * A backend whose runtimes are reached over attach streams: isolated, outliving the service, and with
 * pids of their own (nothing of the host's /proc is used: uploads are sent as bytes).
 */
export function attachedBackend({ target, ...parts }: AttachedBackendParts): RuntimeBackend {
  return {
    ...parts,
    isolated: true,
    persistent: true,
    start: (request) => new AttachedProcess(target(request)),
    runtimePid: () => undefined,
    hostPid: () => undefined,
  };
}
