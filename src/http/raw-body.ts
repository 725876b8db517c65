// Routes that take raw bytes (file uploads, archives): whatever the Content-Type says, the body reaches
// the handler as the request stream, unparsed and unbuffered, so it can be streamed on in chunks.
// Fastify's bodyLimit does not apply to such a stream; the routes enforce limits.uploadMaxBytes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { toolgateError } from '../lib/errors.js';

/** Call inside the plugin that registers the raw-body routes (it is scoped to that plugin). */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  // The type is ignored: even a malformed one must not be refused before the handler sees the bytes.
  app.addHook('onRequest', async (request) => {
    if (request.headers['content-type'] !== undefined)
      request.headers['content-type'] = 'application/octet-stream';
  });
}

/** The raw body stream (an empty one when the request had no body). */
export const rawBody = (request: FastifyRequest): AsyncIterable<Buffer> =>
  (request.body as Readable | undefined) ?? (async function* () {})();

/** Refuses a body whose declared length is over the limit before reading any of it. */
export function checkDeclaredLength(request: FastifyRequest, limit: number): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw toolgateError('BODY_TOO_LARGE', `The body is ${declared} bytes; the limit is ${limit}`, {
      suggestion: 'Send less, or ask the operator to raise limits.uploadMaxBytes.',
      details: { limit },
    });
  }
}

/** The binary body as OpenAPI declares it. */
export const binaryBody = {
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
} as const;
