// The service's end of the way into a session's servers: one Unix socket, in a directory every session
// runtime is shown read-only (RuntimeStart.ingressDir). To reach port P of a session, the service asks
// that session's runtime (over its protocol) to connect to P on its own loopback and to dial this socket
// with a one-time ticket; the connection that arrives with the ticket is the one asked for. The sandbox
// always dials out, as with egress (the egress relay in reverse): no route from the host's namespace
// into the sandbox exists, and a container or pod needs no published port. A ticket is 144 random bits,
// sent only to the runtime of the session it was made for, so one sandbox cannot claim another's
// connection; anything else that connects is dropped after a line or a second.
// Where both sides can, the runtime hands over the connected socket itself instead of relaying it
// (its second socket, INGRESS_FD_SOCKET_FILE; src/preview/fd-receiver.ts): same ticket, same waiter.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { toolgateError } from '../lib/errors.js';
import { keepSpareForwarder } from '../network/splice-forwarder.js';
import { INGRESS_FD_SOCKET_FILE, INGRESS_SOCKET_FILE } from '../runtime/backends/env.js';
import type { SessionRuntime } from '../runtime/session-runtime.js';
import { startFdReceiver, type FdReceiver } from './fd-receiver.js';

/** How long a connection may take to name its ticket, and a runtime to deliver a connection it promised. */
const TICKET_WAIT_MS = 10_000;
/** Deep socket buffers, as the egress proxy's (src/network/proxy.ts says why). */
const BUFFER = 1024 * 1024;

interface Waiter {
  resolve(socket: net.Socket): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class Ingress {
  private server: net.Server | undefined;
  private fdReceiver: FdReceiver | undefined;
  private readonly waiting = new Map<string, Waiter>();

  /**
   * `root`: the directory shown to the runtimes; this process listens in its own subdirectory `name` of
   * it (replicas share the root, and a runtime another replica took over dials the new owner's socket:
   * each connection names it). Directories 0711, the socket 0666 like the egress sockets.
   */
  constructor(
    readonly root: string,
    private readonly name: string,
  ) {}

  get dir(): string {
    return path.join(this.root, this.name);
  }

  get socketPath(): string {
    return path.join(this.dir, INGRESS_SOCKET_FILE);
  }

  get fdSocketPath(): string {
    return path.join(this.dir, INGRESS_FD_SOCKET_FILE);
  }

  /** The socket's path as a runtime names it, relative to the root it sees. */
  private get socketInRoot(): string {
    return `${this.name}/${INGRESS_SOCKET_FILE}`;
  }

  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o711 });
    await chmod(this.root, 0o711);
    await chmod(this.dir, 0o711);
    // A leftover of a service that died (a container that outlived it has the directory mounted, and
    // finds the new socket there).
    await rm(this.socketPath, { force: true });
    // Large answers are spliced (body-splice.ts) where this machine's python3 can: found out now, and a
    // forwarder is kept started for the next one.
    keepSpareForwarder();
    const server = net.createServer({ allowHalfOpen: true, noDelay: true, highWaterMark: BUFFER }, (socket) =>
      this.claim(socket),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.socketPath, () => resolve());
    });
    await chmod(this.socketPath, 0o666);
    // It starts early in createServices: a build that fails later must not be kept alive by it (the
    // HTTP server keeps a running service alive).
    server.unref();
    this.server = server;
    this.fdReceiver = await startFdReceiver(
      this.fdSocketPath,
      (ticket, socket) => this.deliver(ticket, socket),
      () => (this.fdReceiver = undefined),
    );
  }

  /** Hands `socket` to whoever waits for `ticket`; a socket nobody waits for is closed. */
  private deliver(ticket: string, socket: net.Socket): void {
    const waiter = this.waiting.get(ticket);
    if (!waiter) return void socket.destroy();
    this.waiting.delete(ticket);
    clearTimeout(waiter.timer);
    waiter.resolve(socket);
  }

  /** Reads the ticket line and hands the socket to whoever waits for it; anything else is dropped. */
  private claim(socket: net.Socket): void {
    let line = Buffer.alloc(0);
    const drop = () => socket.destroy();
    const timer = setTimeout(drop, TICKET_WAIT_MS);
    socket.on('error', drop);
    const onData = (chunk: Buffer) => {
      line = Buffer.concat([line, chunk]);
      const newline = line.indexOf(10);
      if (newline < 0) {
        if (line.length > 64) drop();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      clearTimeout(timer);
      socket.off('error', drop);
      // What came after the ticket is the app's first bytes: given back to the socket, in order.
      if (newline + 1 < line.length) socket.unshift(line.subarray(newline + 1));
      this.deliver(line.subarray(0, newline).toString('latin1'), socket);
    };
    socket.on('data', onData);
  }

  /**
   * A connection to `port` on the session runtime's loopback. The runtime must be running (a preview
   * never starts one: nothing could be listening in a fresh one); PORT_NOT_LISTENING when nothing is.
   */
  async connect(runtime: SessionRuntime, port: number): Promise<net.Socket> {
    if (!this.server)
      throw toolgateError('RUNTIME_UNAVAILABLE', 'Previews are not available (no ingress socket)');
    if (runtime.state !== 'running') {
      throw toolgateError(
        'PORT_NOT_LISTENING',
        `Nothing in the session listens on port ${port}: its runtime is not running`,
        {
          suggestion: 'Start the server in the session first (run_command with background: true).',
          details: { port },
        },
      );
    }
    const ticket = randomBytes(18).toString('base64url');
    const arrived = new Promise<net.Socket>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(ticket);
        reject(toolgateError('RUNTIME_UNAVAILABLE', 'The session runtime did not deliver the connection'));
      }, TICKET_WAIT_MS);
      timer.unref();
      this.waiting.set(ticket, { resolve, reject, timer });
    });
    // Handled below; until then an early rejection must not count as unhandled.
    arrived.catch(() => undefined);
    try {
      await runtime.call('connectPort', {
        port,
        ticket,
        socket: this.socketInRoot,
        ...(this.fdReceiver ? { fdSocket: `${this.name}/${INGRESS_FD_SOCKET_FILE}` } : {}),
      });
    } catch (err) {
      const waiter = this.waiting.get(ticket);
      if (waiter) clearTimeout(waiter.timer);
      this.waiting.delete(ticket);
      throw err;
    }
    return arrived;
  }

  async close(): Promise<void> {
    for (const [ticket, waiter] of this.waiting) {
      clearTimeout(waiter.timer);
      waiter.reject(toolgateError('SHUTTING_DOWN', 'The service is stopping'));
      this.waiting.delete(ticket);
    }
    this.fdReceiver?.close();
    this.fdReceiver = undefined;
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    // Not waited for: a preview's connection (a WebSocket) may stay open; it ends with its runtime (relayed)
    // or with the app's socket (handed over).
    server.close();
    await rm(this.socketPath, { force: true });
    await rm(this.fdSocketPath, { force: true });
  }
}
