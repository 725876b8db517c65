// Hands a decided, connected, busy egress connection from the proxy's JavaScript copy to the kernel's
// splice(2) (src/lib/splice-forwarder.ts): the forwarder gets duplicates of both sockets and carries the
// bytes; the proxy keeps the connection's accounting (the forwarder reports every chunk, counted against
// the quota as before, and is killed when the quota or the session runs out) and records it when the
// forwarder exits. Small connections never get here: a forwarder costs a process start (tens of ms of
// CPU), worth it only once a connection has shown it is a transfer (HANDOFF_BYTES).
import type { ChildProcess } from 'node:child_process';
import type net from 'node:net';
import { spawnSplicer, spliceAvailable } from '../lib/splice-forwarder.js';
import type { Connection } from './connections.js';

/** Bytes a connection moves through the JavaScript copy before it is handed to splice, by default. */
export const HANDOFF_BYTES = 1024 * 1024;

/** When a connection is handed off: after `after` bytes, never if 0 or if this machine cannot splice. */
export function handoffAfter(after: number): number {
  return after > 0 && spliceAvailable() ? after : Infinity;
}

/** Node's internals a socket is stopped with: pause() alone keeps reading until its buffer is full. */
interface Internals {
  _handle?: { readStop?: () => number } | null;
  _read: (size: number) => void;
}

/** Stops a socket's reads at once and for good (it is handed off; Node must not read it again). */
function stopReading(socket: net.Socket): void {
  socket.pause();
  const internal = socket as unknown as Internals;
  internal._read = () => undefined;
  internal._handle?.readStop?.();
}

/** Resolves once everything written to `socket` so far is out ('drain' comes only after a full buffer). */
const flushed = (socket: net.Socket) =>
  new Promise((resolve) => (socket.writableLength === 0 ? resolve(undefined) : socket.write('', resolve)));

export interface Handoff {
  /** True once the forwarder carries the bytes: the caller's own copy must then ignore both sockets. */
  readonly taken: boolean;
  /** Kills the forwarder (the quota, the session's end): once taken, the connection closes with it. */
  kill(): void;
}

/**
 * Hands `client` and `upstream` to a forwarder. `both`: a tunnel, both ways; `down`: only the answer
 * (a plain-HTTP request already forwarded). The forwarder is started at once with duplicates of both
 * sockets but touches them only when told to: until it says it is ready (a process start, tens of ms on
 * a busy machine) the caller's copy goes on, so the start costs no stall. Then Node stops reading, what
 * it has read is forwarded and written first, its handles are closed and the forwarder goes, with the
 * session's quota left (`allowance`, undefined: none). `ended` is called once when a forwarder that
 * took over is gone. A connection that ends before the forwarder is ready just kills it.
 */
export function handOff(
  client: net.Socket,
  upstream: net.Socket,
  mode: 'both' | 'down',
  allowance: () => number | undefined,
  connection: Connection,
  ended: (failure?: string) => void,
): Handoff {
  let taken = false;
  let killed = false;
  let done = false;
  const end = (failure?: string) => {
    if (done) return;
    done = true;
    ended(failure);
  };
  let child: ChildProcess;
  try {
    child = spawnSplicer(['pair', mode], ['pipe', 'pipe', 'ignore', client, upstream]);
  } catch {
    // No forwarder: the copy simply goes on.
    return { taken: false, kill: () => undefined };
  }
  const kill = () => {
    killed = true;
    child.kill('SIGKILL');
  };
  child.stdin!.on('error', () => undefined);
  child.once('error', () => (taken ? end('splice forwarder failed') : undefined));
  child.once('close', () => (taken ? end() : undefined));
  // Until it takes over, the copy owns the connection: its end is the forwarder's end too.
  const closed = () => !taken && kill();
  client.once('close', closed);
  upstream.once('close', closed);
  let pending = '';
  child.stdout!.on('data', (data: Buffer) => {
    pending += data.toString('latin1');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') take();
      else if (!connection.count(line[0] === 'u' ? 'up' : 'down', Number(line.slice(2)))) return;
    }
  });
  const take = () => {
    const open = (socket: net.Socket) => !socket.destroyed && !socket.readableEnded && socket.writable;
    if (killed || !open(client) || !open(upstream)) return kill();
    taken = true;
    const readers = mode === 'both' ? [client, upstream] : [upstream];
    for (const socket of readers) stopReading(socket);
    // Bytes Node read before it stopped: forwarded now, in order, ahead of the forwarder's.
    for (const [from, to, direction] of [
      [upstream, client, 'down'],
      [client, upstream, 'up'],
    ] as const) {
      if (!readers.includes(from)) continue;
      for (let chunk: Buffer | null; (chunk = from.read() as Buffer | null) !== null;) {
        if (connection.count(direction, chunk.length)) to.write(chunk);
      }
    }
    const noop = () => undefined;
    client.on('error', noop);
    upstream.on('error', noop);
    void Promise.all([flushed(client), flushed(upstream)]).then(() => {
      const broken = client.destroyed || upstream.destroyed;
      // The forwarder holds its own duplicates: closing ours does not close the connection.
      client.destroy();
      upstream.destroy();
      if (killed || broken) {
        kill();
        return end(killed ? undefined : 'closed while being handed off');
      }
      // The quota left now: a lone connection stops at the quota's last byte, as the copy does. Several
      // at once each stop within a chunk of it: the proxy kills them all as it counts.
      child.stdin!.end(`go ${allowance() ?? -1}\n`);
    });
  };
  return {
    get taken() {
      return taken;
    },
    kill,
  };
}
