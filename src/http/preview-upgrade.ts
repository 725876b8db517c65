// WebSocket (and any other Upgrade) requests to a preview: Fastify routes no upgrades, so they are taken
// from the server's 'upgrade' event here, checked as the HTTP routes check (a Bearer token for
// /v1/sessions/{id}/ports/{port}/…, a signed link for /v1/previews/{token}/…, either or the link's cookie
// for the host-name form, the port exposed), and then
// joined byte for byte to a connection into the session (src/preview/ingress.ts): the app answers the
// handshake itself and every frame passes unchanged. Another replica's session is passed on to its owner
// the same way, raw. One audit row per connection, when it closes, with the bytes each way.
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { isToolgateError, toolgateError, type ToolgateError } from '../lib/errors.js';
import { previewRecordOf, type PreviewRecord } from '../preview/audit.js';
import { headersForApp } from '../preview/headers.js';
import type { Lease } from '../store/leases.js';
import type { SessionRecord } from '../store/sessions.js';
import { principalOfBearer } from './auth.js';
import { hostAccess, hostTargetOfRequest } from './preview-host.js';
import { appPathOf } from './preview-proxy.js';
import { FORWARDED_BY } from './replica-forward.js';

const BY_TOKEN = /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/ports\/(\d{1,5})(?:\/|$)/;
const BY_LINK = /^\/v1\/previews\/([^/?]+)(?:\/|$)/;

interface Target {
  readonly session: SessionRecord;
  readonly port: number;
  readonly prefix: string;
  readonly caller: PreviewRecord['caller'];
}

/** The error envelope as a raw HTTP answer on the upgrade's socket, which then closes. */
function refuse(socket: Duplex, err: unknown): void {
  const error: ToolgateError = isToolgateError(err)
    ? err
    : toolgateError('INTERNAL_ERROR', 'The preview connection failed');
  const body = JSON.stringify({ success: false, error: error.toBody() });
  socket.end(
    `HTTP/1.1 ${error.statusCode} ${error.code}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The request line and headers, as they go to the app (or, `raw`, unchanged to the owning replica). */
function requestHead(
  method: string,
  path: string,
  headers: Record<string, string | string[] | number | undefined>,
): string {
  const lines = [`${method} ${path} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${item}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Joins the two sockets; `ended` gets the bytes each way once both are closed. */
function join(
  client: Duplex,
  upstream: Duplex,
  ended: (bytesIn: number, bytesOut: number, status: number) => void,
): void {
  let bytesIn = 0;
  let bytesOut = 0;
  let status = 0;
  client.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
  upstream.on('data', (chunk: Buffer) => {
    if (status === 0)
      status =
        Number(/^HTTP\/1\.[01] (\d{3})/.exec(chunk.subarray(0, 16).toString('latin1'))?.[1] ?? 0) || -1;
    bytesOut += chunk.length;
  });
  client.pipe(upstream);
  upstream.pipe(client);
  let closed = 0;
  const close = () => {
    client.destroy();
    upstream.destroy();
    if (++closed === 1) ended(bytesIn, bytesOut, Math.max(status, 0));
  };
  for (const socket of [client, upstream]) {
    socket.on('error', close);
    socket.on('close', close);
  }
}

export function registerPreviewUpgrade(app: FastifyInstance): void {
  const { preview, sessions, replica } = app.services;

  const targetOf = async (request: IncomingMessage, path: string): Promise<Target | undefined> => {
    // The host-name form: every path of the host is the app's, at its root.
    const hostTarget = hostTargetOfRequest(app, request.headers);
    if (hostTarget) return { ...(await hostAccess(app, request.headers, hostTarget)), prefix: '' };
    const byToken = BY_TOKEN.exec(path);
    if (byToken) {
      const principal = await principalOfBearer(app, request.headers.authorization);
      if (!principal) throw toolgateError('UNAUTHORIZED', 'Missing or invalid bearer token');
      const session =
        principal.kind === 'session'
          ? principal.session.id === byToken[1]
            ? principal.session
            : undefined
          : await sessions.get(byToken[1]);
      if (!session) throw toolgateError('SESSION_NOT_FOUND', `Session ${byToken[1]} not found`);
      const port = Number(byToken[2]);
      return { session, port, prefix: `/v1/sessions/${byToken[1]}/ports/${port}`, caller: principal.kind };
    }
    const byLink = BY_LINK.exec(path);
    if (!byLink) return undefined;
    const grant = preview.verify(decodeURIComponent(byLink[1]));
    const session = await sessions.get(grant.sessionId);
    if (!session) throw toolgateError('SESSION_NOT_FOUND', 'The session of this preview link is gone');
    return { session, port: grant.port, prefix: `/v1/previews/${byLink[1]}`, caller: 'link' };
  };

  /** Passes the upgrade on to the replica that owns the session, unchanged but for the hop header. */
  const toOwner = (request: IncomingMessage, socket: Duplex, head: Buffer, lease: Lease) => {
    const owner = new URL(lease.replicaUrl);
    const upstream = net.connect({ host: owner.hostname, port: Number(owner.port || 80), noDelay: true });
    const headers: Record<string, string[]> = {};
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i].toLowerCase();
      (headers[name] ??= []).push(request.rawHeaders[i + 1]);
    }
    headers[FORWARDED_BY] = [replica!.ownership.self.id];
    upstream.write(requestHead(request.method ?? 'GET', request.url ?? '/', headers));
    if (head.length > 0) upstream.write(head);
    join(socket, upstream, () => undefined);
  };

  const handle = async (request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const url = request.url ?? '/';
    const path = url.split('?')[0];
    const startedAt = Date.now();
    let target: Target | undefined;
    const record = (status: number, bytesIn: number, bytesOut: number, errorCode?: string) =>
      target &&
      preview.record(
        previewRecordOf(
          {
            sessionId: target.session.id,
            port: target.port,
            method: request.method ?? 'GET',
            path: appPathOf(path, target.prefix),
            websocket: true,
            caller: target.caller,
          },
          startedAt,
          { status, errorCode, bytesIn, bytesOut },
        ),
      );
    try {
      target = await targetOf(request, path);
      if (!target) throw toolgateError('ROUTE_NOT_FOUND', `No upgrade is answered at ${path.slice(0, 100)}`);
      if (replica) {
        const route = await replica.ownership.route(target.session.id);
        if (!route.here) {
          if (request.headers[FORWARDED_BY] !== undefined) {
            throw toolgateError('RUNTIME_UNAVAILABLE', 'The session is moving between replicas');
          }
          return toOwner(request, socket, head, route.lease);
        }
      }
      await preview.assertExposed(target.session, target.port);
      const upstream = await preview.connect(target.session, target.port);
      const headers = headersForApp(request.headers, target, { upgrade: true });
      upstream.write(requestHead(request.method ?? 'GET', appPathOf(url, target.prefix), headers));
      if (head.length > 0) upstream.write(head);
      const chosen = target;
      join(socket, upstream, (bytesIn, bytesOut, status) => {
        target = chosen;
        record(status, bytesIn, bytesOut);
      });
    } catch (err) {
      if (isToolgateError(err)) record(err.statusCode, 0, 0, err.code);
      refuse(socket, err);
    }
  };

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    void handle(request, socket, head);
  });
}
