// The sandbox's side of the egress proxy: a listener on the sandbox's own loopback (127.0.0.1:<port>)
// that relays each TCP connection to the session's egress socket, so programs that speak to an HTTP
// proxy by host and port (curl, pip, npm, git) find one. The proxy variables every command gets point
// here. There is no other interface in the namespace: a direct connection has nowhere to go.
// Where the sandbox has a python3 with os.splice the relay is the splice forwarder in relay mode, a
// process of its own for the runtime's lifetime (src/network/splice-forwarder.ts): the kernel carries the
// bytes. Else (or told to copy) it is this Node relay, which hands a connection past 1 MiB to a splice
// forwarder when it can.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import {
  handOff,
  probeSplice,
  spawnSplicer,
  spliceAvailable,
  type Handoff,
} from '../../network/splice-forwarder.js';

/** Deep socket buffers, as the proxy's (src/network/proxy.ts says why): 16 KiB is Node's default. */
const BUFFER = 1024 * 1024;
/** For net.connect, which honours it although @types/node does not list it. */
export const WIDE: object = { highWaterMark: BUFFER };
/** Bytes a connection moves through this copy before splice carries it (the proxy's default too). */
const SPLICE_AFTER = 1024 * 1024;

export interface EgressRelay {
  readonly port: number;
  /** HTTP_PROXY and friends, upper and lower case: what commands (and git) get. */
  readonly env: Readonly<Record<string, string>>;
  /** Stops listening (the runtime never does: the relay lives as long as it; tests do). */
  close(): void;
}

/** A side that closes has the other ended once what it holds is written (not destroyed: a megabyte of
 * answer may still be buffered for the client). */
function endThenClose(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) return void socket.destroy();
  socket.once('finish', () => socket.destroy());
  socket.end();
}

/** One relayed connection: copied both ways, half-open aware, handed to splice past SPLICE_AFTER. */
function relay(client: net.Socket, socketPath: string, copy: boolean): void {
  joinSockets(client, net.connect({ path: socketPath, allowHalfOpen: true, ...WIDE }), copy);
}

/**
 * Joins two connected sockets (a relayed connection; a preview's connection to a port, ports.ts): copied
 * both ways, half-open aware, handed to splice past SPLICE_AFTER unless `copy`.
 */
export function joinSockets(client: net.Socket, upstream: net.Socket, copy: boolean): void {
  const handed: { current?: Handoff } = {};
  const spliceAt = !copy && spliceAvailable() ? SPLICE_AFTER : Infinity;
  let moved = 0;
  const taken = () => handed.current?.taken === true;
  for (const [from, to] of [
    [client, upstream],
    [upstream, client],
  ] as const) {
    from.on('data', (chunk: Buffer) => {
      if (taken()) return;
      if (!to.write(chunk)) from.pause();
      moved += chunk.length;
      if (moved < spliceAt || handed.current) return;
      // The proxy counts and audits; here nothing is counted (every byte reaches the proxy anyway).
      handed.current = handOff(client, upstream, 'both', {
        count: () => true,
        take: (_direction, bytes) => bytes,
        allowance: () => undefined,
        ended: () => undefined,
      });
    });
    to.on('drain', () => taken() || from.resume());
    // Half-open both ways: a client that is done sending (git's proxy program closing its stdin) still
    // gets the whole answer.
    from.on('end', () => taken() || to.end());
    from.on('close', () => taken() || endThenClose(to));
    from.on('error', () => taken() || to.destroy());
  }
}

/** The spliced relays started (held: their stdin pipes are their lifelines). */
const relays = new Set<ChildProcess>();

interface Listening {
  readonly port: number;
  close(): void;
}

/**
 * The splice forwarder in relay mode, as a child that lives as long as this process (it exits when its
 * stdin, a pipe from us, closes). Its port, or undefined when it cannot run here (no python3, no
 * os.splice): then the Node relay serves.
 */
function splicedRelay(socketPath: string): Promise<Listening | undefined> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawnSplicer(['relay', socketPath], ['pipe', 'pipe', 'ignore']);
    } catch {
      return resolve(undefined);
    }
    let out = '';
    const failed = () => resolve(undefined);
    child.once('error', failed);
    child.once('exit', failed);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^(\d+)\n/.exec(out);
      if (!match) return;
      child.off('exit', failed);
      child.stdout!.destroy();
      // Never waited for: it must not keep the runtime alive, and it dies with it.
      child.unref();
      (child.stdin as net.Socket).unref();
      relays.add(child);
      resolve({
        port: Number(match[1]),
        close: () => {
          relays.delete(child);
          child.kill();
        },
      });
    });
  });
}

function nodeRelay(socketPath: string, copy: boolean): Promise<Listening> {
  // Whether this sandbox can splice is found in the background; until then connections are copied.
  if (!copy) void probeSplice();
  const server = net.createServer({ noDelay: true, allowHalfOpen: true, highWaterMark: BUFFER }, (client) =>
    relay(client, socketPath, copy),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve({ port: (server.address() as net.AddressInfo).port, close: () => server.close() });
    });
  });
}

/** The relay (`copy`: never spliced — network.spliceAfterBytes 0, and tests). */
export async function startEgressRelay(socketPath: string, copy = false): Promise<EgressRelay> {
  const { port, close } =
    (copy ? undefined : await splicedRelay(socketPath)) ?? (await nodeRelay(socketPath, copy));
  const proxy = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {};
  for (const name of ['http_proxy', 'https_proxy', 'all_proxy']) {
    env[name] = proxy;
    env[name.toUpperCase()] = proxy;
  }
  // The proxy itself must be reached directly; nothing else is local.
  env.no_proxy = env.NO_PROXY = 'localhost,127.0.0.1,::1';
  return { port, env, close };
}
