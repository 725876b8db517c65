// One session's egress proxy: an HTTP proxy on a Unix socket that only that session's sandbox can reach
// (the socket is the session's identity; nothing inside holds a credential). It speaks CONNECT (HTTPS
// and any other TCP protocol, checked by host and, for TLS, by the SNI the client sends) and plain
// HTTP in absolute form (each request checked by its host, one forwarded request per client connection,
// so every redirect hop the client follows is a new connection, checked again). After the check both
// carry bytes as they are. A refusal is a 403 whose body names the rule, never a silent drop.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Decision } from './decide.js';
import type { CloseReason, Connection, Connections, Via } from './connections.js';
import { HANDOFF_BYTES, handOff, handoffAfter, type Handoff } from './handoff.js';
import { readClientHello } from './sni.js';

export interface ProxyDeps {
  readonly sessionId: string;
  readonly decide: (host: string, port: number) => Promise<Decision>;
  readonly connections: Connections;
  readonly connectTimeoutMs: number;
  /** Bytes through the proxy's copy before splice(2) carries a connection (default 1 MiB; 0 = never). */
  readonly spliceAfterBytes?: number;
}

/** Request headers that concern the hop to the proxy, not the server. */
const HOP_HEADERS = new Set([
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Bytes a socket of the egress path buffers before its other side stops reading (Node's default is
 * 16 KiB). On a busy machine each hop runs in bursts; a deep buffer lets a burst move a megabyte rather
 * than one 64 KiB read, and keeps the kernel's buffers drained while the next hop waits for the CPU
 * (npm run bench -- egress: about 1.4x the throughput). At most this much per socket and direction.
 */
const BUFFER = 1024 * 1024;
/** The same for sockets we connect (Node honours it; @types/node's connect options do not list it). */
const WIDE: object = { highWaterMark: BUFFER };

export const refusalText = (host: string, reason: string) => `toolgate egress: ${host} denied: ${reason}\n`;

/** "host:port" or "[v6]:port" of a CONNECT request. */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  return match ? { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) } : undefined;
}

function rawAnswer(socket: Duplex, status: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Decides, and answers a refusal itself; the connection's accounting when allowed. */
async function admit(
  deps: ProxyDeps,
  host: string,
  port: number,
  via: Via,
): Promise<{ address: string; ok: true } | { ok: false; status: string; body: string }> {
  const base = { sessionId: deps.sessionId, host, port, via };
  const quota = deps.connections.refusal(deps.sessionId);
  const decision = quota
    ? ({ allowed: false, reason: quota } as const)
    : await deps.decide(host, port).catch(() => ({ allowed: false, reason: 'the check failed' }) as const);
  if (!decision.allowed) {
    deps.connections.denied(base, decision.reason);
    return { ok: false, status: '403 Forbidden', body: refusalText(host, decision.reason) };
  }
  return { ok: true, address: decision.address };
}

/** Ends `socket` once what it holds is written, then closes it (a destroy would drop those bytes). */
function endThenClose(socket: Duplex): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) return void socket.destroy();
  socket.once('finish', () => socket.destroy());
  socket.end();
}

/** A peer that reads nothing more gets this long to take the bytes granted before the quota closed it. */
const QUOTA_FLUSH_MS = 10_000;

/**
 * Closes a connection's two sockets: at once when the session is gone; at the quota, after the bytes
 * granted to each are written (the last byte of the quota reaches the client), reading nothing more.
 */
function closeBoth(client: Duplex, upstream: Duplex, why: CloseReason): void {
  if (why === 'gone') {
    client.destroy();
    upstream.destroy();
    return;
  }
  for (const socket of [client, upstream]) {
    socket.pause();
    endThenClose(socket);
    setTimeout(() => socket.destroy(), QUOTA_FLUSH_MS).unref();
  }
}

/**
 * Writes the part of `chunk` the connection may still send `direction` (all of it without a quota);
 * false when that was not all of it or the socket wants no more for now.
 */
function send(connection: Connection, direction: 'up' | 'down', to: Duplex, chunk: Buffer): boolean {
  const granted = connection.take(direction, chunk.length);
  if (granted === 0) return false;
  const more = to.write(granted === chunk.length ? chunk : chunk.subarray(0, granted));
  return more && granted === chunk.length;
}

/**
 * What to do with the client's first bytes: hold them (more are needed to judge), refuse the tunnel, or
 * let them through (all that was held, in order).
 */
type Inspection = { readonly hold: true } | { readonly refuse: string } | { readonly pass: Buffer };

/**
 * Pipes two sockets both ways, counting. A side that closes has the other ended after what it still
 * holds is written (an answer's last megabyte reaches the client); an error closes both at once. The
 * client's bytes are shown to `inspect` until it lets them through: held meanwhile (the server's bytes
 * flow at once, for server-first protocols), or refused (the tunnel is closed with that reason, nothing
 * held having reached the server). Past HANDOFF_BYTES the kernel carries the rest (handoff.ts). The
 * connection is recorded when both sides are closed, or when the forwarder is gone.
 */
function splice(
  client: net.Socket,
  upstream: net.Socket,
  connection: Connection,
  inspect: (chunk: Buffer) => Inspection,
  handed: { current?: Handoff },
  handoffAt: number,
  allowance: () => number | undefined,
): void {
  let inspecting = true;
  let open = 2;
  let moved = 0;
  const finish = (reason?: string) => {
    if (handed.current?.taken) return;
    client.destroy();
    upstream.destroy();
    connection.end(reason);
  };
  const moreMoved = (bytes: number) => {
    moved += bytes;
    if (moved < handoffAt || handed.current) return;
    if (client.readableEnded || upstream.readableEnded || !client.writable || !upstream.writable) return;
    handed.current = handOff(client, upstream, 'both', allowance, connection, (failure) =>
      connection.end(failure),
    );
  };
  client.on('data', (data: Buffer) => {
    if (handed.current?.taken) return;
    let chunk = data;
    if (inspecting) {
      const verdict = inspect(data);
      if ('hold' in verdict) return;
      if ('refuse' in verdict) return finish(verdict.refuse);
      inspecting = false;
      chunk = verdict.pass;
    }
    if (!send(connection, 'up', upstream, chunk)) client.pause();
    moreMoved(chunk.length);
  });
  upstream.on('data', (chunk: Buffer) => {
    if (handed.current?.taken) return;
    if (!send(connection, 'down', client, chunk)) upstream.pause();
    moreMoved(chunk.length);
  });
  upstream.on('drain', () => handed.current?.taken || client.resume());
  client.on('drain', () => handed.current?.taken || upstream.resume());
  client.on('end', () => handed.current?.taken || upstream.end());
  upstream.on('end', () => handed.current?.taken || client.end());
  for (const [socket, other] of [
    [client, upstream],
    [upstream, client],
  ] as const) {
    socket.on('close', () => {
      if (handed.current?.taken) return;
      endThenClose(other);
      if (--open === 0) connection.end();
    });
    socket.on('error', () => finish());
  }
}

function onConnect(deps: ProxyDeps, req: http.IncomingMessage, client: Duplex, head: Buffer): void {
  client.on('error', () => undefined);
  const target = splitAuthority(req.url ?? '');
  if (!target) return rawAnswer(client, '400 Bad Request', 'toolgate egress: CONNECT needs host:port\n');
  void (async () => {
    const admitted = await admit(deps, target.host, target.port, 'connect');
    if (!admitted.ok) return rawAnswer(client, admitted.status, admitted.body);
    const upstream = net.connect({ host: admitted.address, port: target.port, noDelay: true, ...WIDE });
    upstream.setTimeout(deps.connectTimeoutMs, () =>
      upstream.destroy(new Error(`no answer within ${deps.connectTimeoutMs} ms`)),
    );
    const base = { sessionId: deps.sessionId, host: target.host, port: target.port, via: 'connect' as const };
    // Allowed but not reached: still one audited connection, with why.
    const failed = (err: Error) => {
      deps.connections
        .open({ ...base, address: admitted.address }, () => undefined)
        .end(`not reached: ${err.message}`);
      rawAnswer(client, '502 Bad Gateway', `toolgate egress: ${target.host}: ${err.message}\n`);
    };
    upstream.once('error', failed);
    // The client gave up while the connection was being made.
    const abandon = () => upstream.destroy();
    client.once('close', abandon);
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      upstream.off('error', failed);
      client.off('close', abandon);
      const handed: { current?: Handoff } = {};
      const connection = deps.connections.open({ ...base, address: admitted.address }, (why) => {
        handed.current?.kill();
        if (handed.current?.taken) return;
        closeBoth(client, upstream, why);
      });
      // A TLS client naming another server than the one it asked to reach is cut off: the CONNECT host
      // is what the policy checked. Its bytes are held until its ClientHello is whole (a hello split
      // over several writes is read whole, up to a bound: sni.ts); bytes that are no TLS handshake (SSH)
      // pass at once, and the server's bytes flow meanwhile (server-first protocols).
      const held: Buffer[] = [];
      const checkHello = (chunk: Buffer): Inspection => {
        held.push(chunk);
        const sent = held.length === 1 ? chunk : Buffer.concat(held);
        const hello = readClientHello(sent);
        if (hello.kind === 'more') return { hold: true };
        held.length = 0;
        if (hello.kind === 'refused') return { refuse: `TLS: ${hello.reason}` };
        const name = hello.kind === 'hello' ? hello.serverName : undefined;
        if (name !== undefined && name.toLowerCase() !== target.host.toLowerCase()) {
          return { refuse: `TLS server name ${name} differs from ${target.host}` };
        }
        return { pass: sent };
      };
      const handoffAt = handoffAfter(deps.spliceAfterBytes ?? HANDOFF_BYTES);
      const allowance = () => deps.connections.allowance(deps.sessionId);
      splice(client as net.Socket, upstream, connection, checkHello, handed, handoffAt, allowance);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) client.unshift(head);
    });
  })();
}

/**
 * The request head sent upstream: the client's headers as it wrote them, less the hop-by-hop ones, with
 * the checked Host and `Connection: close` (the proxy forwards one request per connection, see onRequest).
 */
function requestHead(req: http.IncomingMessage, url: URL): string {
  // The client's HTTP version: the answer comes back unparsed, so it must be one the client reads (an
  // HTTP/1.0 client gets no chunked answer).
  let head = `${req.method} ${url.pathname}${url.search} HTTP/${req.httpVersion === '1.0' ? '1.0' : '1.1'}\r\nHost: ${url.host}\r\n`;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (lower !== 'host' && !HOP_HEADERS.has(lower)) head += `${name}: ${raw[i + 1]}\r\n`;
  }
  return `${head}Connection: close\r\n\r\n`;
}

/** Client sockets whose one request is being forwarded: the proxy owns their bytes from here on. */
const forwarding = new WeakSet<object>();

/**
 * A plain-HTTP request in absolute form. Its head is checked like a CONNECT (host and port), then the
 * request goes upstream with `Connection: close` and the answer comes back as bytes, copied like a
 * tunnel's (no parsing, no re-serialising: the cost per MB is the tunnel's). The price: one request per
 * client connection — the client connection closes with the answer, so the next request, a redirect hop
 * included, is a new connection and is checked again. A request the proxy answers itself (a refusal)
 * keeps the connection alive.
 */
function onRequest(deps: ProxyDeps, req: http.IncomingMessage, res: http.ServerResponse): void {
  const client = req.socket;
  // A request pipelined behind one already forwarded: that connection closes with its first answer.
  if (forwarding.has(client)) {
    req.resume();
    return;
  }
  const url = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
  if (!url || url.protocol !== 'http:') {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end('toolgate egress: send absolute http:// URLs here; use CONNECT for https and other protocols\n');
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 80);
  req.pause();
  void (async () => {
    const admitted = await admit(deps, host, port, 'http');
    if (!admitted.ok) {
      req.resume();
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(admitted.body);
      return;
    }
    forwarding.add(client);
    const upstream = net.connect({ host: admitted.address, port, noDelay: true, ...WIDE });
    upstream.setTimeout(deps.connectTimeoutMs, () =>
      upstream.destroy(new Error(`no answer within ${deps.connectTimeoutMs} ms`)),
    );
    const connection = deps.connections.open(
      { sessionId: deps.sessionId, host, port, address: admitted.address, via: 'http' },
      (why) => {
        handed.current?.kill();
        if (handed.current?.taken) return;
        closeBoth(client, upstream, why);
      },
    );
    let answered = false;
    // Past HANDOFF_BYTES of answer, with the request all sent, the kernel carries the rest (handoff.ts).
    const handed: { current?: Handoff } = {};
    const handoffAt = handoffAfter(deps.spliceAfterBytes ?? HANDOFF_BYTES);
    let down = 0;
    let sent = false;
    const finish = (reason?: string) => {
      if (handed.current?.taken) return;
      upstream.destroy();
      client.destroy();
      connection.end(reason);
    };
    upstream.on('error', (err) => {
      if (handed.current?.taken) return;
      if (answered) return finish(`cut: ${err.message}`);
      // Nothing came back yet: the client still gets an HTTP answer, and the connection says why.
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(`toolgate egress: ${host}: ${err.message}\n`);
      connection.end(`not reached: ${err.message}`);
      upstream.destroy();
    });
    // The client gave up (or the session went): the upstream connection goes too.
    client.once('close', () => finish());
    upstream.once('connect', () => {
      // Every byte the server reads is counted: the head (the URL and headers carry data too), the
      // body, and the chunked framing.
      if (!send(connection, 'up', upstream, Buffer.from(requestHead(req, url), 'latin1'))) req.pause();
      // The body as Node parsed it; a chunked body is chunked again (its length is not known).
      const chunked = req.headers['transfer-encoding'] !== undefined;
      req.on('data', (chunk: Buffer) => {
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
          : chunk;
        if (!send(connection, 'up', upstream, framed)) req.pause();
      });
      upstream.on('drain', () => req.resume());
      req.on('end', () => {
        if (chunked) send(connection, 'up', upstream, Buffer.from('0\r\n\r\n'));
        sent = true;
      });
      req.resume();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!answered) {
        answered = true;
        upstream.setTimeout(0);
      }
      if (handed.current?.taken) return;
      if (!send(connection, 'down', client, chunk)) upstream.pause();
      down += chunk.length;
      if (!handed.current && down >= handoffAt && sent && !upstream.readableEnded && client.writable) {
        const allowance = () => deps.connections.allowance(deps.sessionId);
        handed.current = handOff(client, upstream, 'down', allowance, connection, (failure) =>
          connection.end(failure),
        );
      }
    });
    client.on('drain', () => handed.current?.taken || upstream.resume());
    // The answer is finished before the connection is recorded (the audit row is written then).
    upstream.on('end', () => {
      if (handed.current?.taken) return;
      client.end();
      connection.end();
    });
    upstream.on('close', () => {
      if (!answered || handed.current?.taken) return;
      client.end();
      connection.end();
    });
  })();
}

/** The session's proxy server (not yet listening). */
export function createProxyServer(deps: ProxyDeps): http.Server {
  const server = http.createServer({ keepAliveTimeout: 5000, highWaterMark: BUFFER }, (req, res) =>
    onRequest(deps, req, res),
  );
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) =>
    onConnect(deps, req, client, head),
  );
  server.on('clientError', (_err, socket) => socket.destroy());
  return server;
}
