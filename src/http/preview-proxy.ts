// One HTTP request through a preview: to the port inside the session over a keep-alive connection that
// its runtime carried out (src/preview/ingress.ts), the body streamed both ways as it comes (uploads,
// downloads, Server-Sent Events), the headers rewritten (src/preview/headers.ts), one audit row when it
// ends. Until the app answers, a failure is an ordinary error envelope; after, the connection is cut.
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionRecord } from '../store/sessions.js';
import { headersForApp, headersForClient } from '../preview/headers.js';
import { spliceableLength, spliceBody } from '../preview/body-splice.js';
import { previewRecordOf, type PreviewRecord, type PreviewVisit } from '../preview/audit.js';
import { isToolgateError } from '../lib/errors.js';

export interface PreviewRequestTarget {
  readonly session: SessionRecord;
  readonly port: number;
  /** The path prefix the browser sees the app under, without a trailing slash. */
  readonly prefix: string;
  /** The path and query the app is asked for (starts with `/`). */
  readonly appPath: string;
  readonly caller: PreviewRecord['caller'];
}

/** Whether a request carries a body (RFC 9112 6.3: a length or a transfer coding says so). */
const hasBody = (headers: http.IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** The part of a URL after the prefix: `/` at least; the query kept. */
export function appPathOf(url: string, prefix: string): string {
  const rest = url.slice(prefix.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export async function forwardPreview(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  target: PreviewRequestTarget,
): Promise<void> {
  const { preview } = app.services;
  const startedAt = Date.now();
  let bytesIn = 0;
  let bytesOut = 0;
  const visit: PreviewVisit = {
    sessionId: target.session.id,
    port: target.port,
    method: request.method,
    path: target.appPath.split('?')[0],
    websocket: false,
    caller: target.caller,
  };
  const record = (status: number, errorCode?: string) =>
    preview.record(previewRecordOf(visit, startedAt, { status, errorCode, bytesIn, bytesOut }));
  try {
    await preview.assertExposed(target.session, target.port);
  } catch (err) {
    record(isToolgateError(err) ? err.statusCode : 500, isToolgateError(err) ? err.code : 'INTERNAL_ERROR');
    throw err;
  }
  const raw = request.raw;
  const options: http.RequestOptions & { servername: string } = {
    agent: preview.agent(target.session, target.port),
    method: request.method,
    path: target.appPath,
    headers: headersForApp(raw.headers, target, { secure: request.protocol === 'https' }),
    // No TLS to the app: an empty name spares the agent matching the Host header against the IPv6
    // address pattern on every request (a measurable part of a small request's cost).
    servername: '',
  };
  const upstream = http.request(options);
  if (hasBody(raw.headers)) {
    raw.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
    raw.pipe(upstream);
  } else {
    // A request without a body (most GETs) goes out now, not a tick later when the empty stream ends.
    raw.resume();
    upstream.end();
  }
  let answer: http.IncomingMessage;
  try {
    answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
      upstream.once('response', resolve);
      upstream.once('error', reject);
    });
  } catch (err) {
    raw.unpipe(upstream);
    record(
      isToolgateError(err) ? err.statusCode : 502,
      isToolgateError(err) ? err.code : 'PORT_NOT_LISTENING',
    );
    throw err;
  }
  reply.hijack();
  const res = reply.raw;
  const opaqueLink = target.caller === 'link' && raw.headers.origin === 'null';
  const headers = headersForClient(answer.headers, target.prefix, { opaqueLink });
  const spliced = spliceableLength(request.method, answer);
  if (spliced !== undefined) {
    // A large body goes by the kernel (src/preview/body-splice.ts), and the connection closes after it.
    upstream.on('error', () => undefined);
    res.writeHead(answer.statusCode ?? 502, { ...headers, connection: 'close' });
    res.flushHeaders();
    spliceBody(answer, res, spliced, (bytes) => {
      bytesOut = bytes;
      record(answer.statusCode ?? 0);
    });
    return;
  }
  upstream.on('error', () => res.destroy());
  res.writeHead(answer.statusCode ?? 502, headers);
  // An event stream's first event may be a while away: the browser gets the headers now. An answer
  // whose body already came with its head (a small one) goes out with it, in one write.
  if (!answer.complete && answer.readableLength === 0) res.flushHeaders();
  answer.on('data', (chunk: Buffer) => (bytesOut += chunk.length));
  answer.pipe(res);
  let recorded = false;
  const done = () => {
    if (recorded) return;
    recorded = true;
    record(answer.statusCode ?? 0);
  };
  answer.once('end', done);
  res.once('close', () => {
    // The browser went away mid-answer (an event stream closed): the app's side goes too.
    if (!answer.complete) answer.destroy();
    done();
  });
}
