// The sandbox's side of the egress proxy: a listener on the sandbox's own loopback (127.0.0.1:<port>)
// that relays each TCP connection to the session's egress socket, so programs that speak to an HTTP
// proxy by host and port (curl, pip, npm, git) find one. The proxy variables every command gets point
// here. There is no other interface in the namespace: a direct connection has nowhere to go.
// The relay is the kernel's splice(2) where the sandbox has a python3 with os.splice
// (src/lib/splice-forwarder.ts: the bytes are not copied through a process), else the Node copy below.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { spawnSplicer } from '../../lib/splice-forwarder.js';

/** Deep socket buffers, as the proxy's (src/network/proxy.ts says why): 16 KiB is Node's default. */
const BUFFER = 1024 * 1024;
/** For net.connect, which honours it although @types/node does not list it. */
const WIDE: object = { highWaterMark: BUFFER };

export interface EgressRelay {
  readonly port: number;
  /** Whether the kernel carries the bytes (the splice forwarder), not this process. */
  readonly spliced: boolean;
  /** HTTP_PROXY and friends, upper and lower case: what commands (and git) get. */
  readonly env: Readonly<Record<string, string>>;
}

/** The relay: spliced when it can be (`copy` forces the Node copy: tests, and the bench's comparison). */
export async function startEgressRelay(socketPath: string, copy = false): Promise<EgressRelay> {
  const splicedPort = copy ? undefined : await splicedRelay(socketPath);
  const port = splicedPort ?? (await copyingRelay(socketPath));
  const proxy = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {};
  for (const name of ['http_proxy', 'https_proxy', 'all_proxy']) {
    env[name] = proxy;
    env[name.toUpperCase()] = proxy;
  }
  // The proxy itself must be reached directly; nothing else is local.
  env.no_proxy = env.NO_PROXY = 'localhost,127.0.0.1,::1';
  return { port, spliced: splicedPort !== undefined, env };
}

/** The spliced relays started (held: their stdin pipes are their lifelines). */
const relays: ChildProcess[] = [];

/**
 * The splice forwarder in relay mode, as a child that lives as long as this process (it exits when its
 * stdin, a pipe from us, closes). Its port, or undefined when it cannot run here (no python3, no
 * os.splice): then the Node relay serves.
 */
function splicedRelay(socketPath: string): Promise<number | undefined> {
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
      relays.push(child);
      (child.stdin as net.Socket).unref();
      resolve(Number(match[1]));
    });
  });
}

function copyingRelay(socketPath: string): Promise<number> {
  // Half-open both ways: a client that is done sending (git's proxy program closing its stdin) still
  // gets the whole answer.
  const server = net.createServer({ noDelay: true, allowHalfOpen: true, highWaterMark: BUFFER }, (client) => {
    const upstream = net.connect({ path: socketPath, allowHalfOpen: true, ...WIDE });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    // A side that closes has the other ended once what it holds is written (not destroyed: a
    // megabyte of answer may still be buffered for the client).
    const endThenClose = (socket: net.Socket) => {
      if (socket.destroyed) return;
      if (socket.writableFinished) return void socket.destroy();
      socket.once('finish', () => socket.destroy());
      socket.end();
    };
    client.on('close', () => endThenClose(upstream));
    upstream.on('close', () => endThenClose(client));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
