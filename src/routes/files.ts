// /v1/sessions/{id}/files/{path}: raw bytes in and out of a workspace. PUT streams the body into a temp
// file the session runtime opened (transfer/runtime-streams.ts uploadFile: atomic replace, parents
// created, expected_sha256 compare-and-swap); GET streams a file back with its SHA-256 as ETag, If-None-Match and single byte ranges. Allowed when write_file / read_file
// would be, held to the quota and upload limit, one audit row each.
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { sessionForRequest } from '../http/auth.js';
import { etagOf, matchesNoneMatch, parseRange } from '../http/byte-range.js';
import { clientGone } from '../http/call-response.js';
import { acceptRawBodies, binaryBody, checkDeclaredLength, rawBody } from '../http/raw-body.js';
import { commonErrors, errorRef, SessionIdParams } from '../http/schemas.js';
import { rawBodyValidatorCompiler } from '../http/validator-compiler.js';
import { Workspace } from '../runtime/workspace.js';
import { mimeType } from '../lib/mime.js';
import { admitTransfer } from '../engine/transfer-gate.js';
import { pullFrom, uploadFile } from '../transfer/runtime-streams.js';

// The file path is the route's wildcard ("*"): TypeBox cannot compile a property of that name, so it is
// read from the params as they come and checked by the runtime.
const FileParams = SessionIdParams;
const wildcard = (params: unknown): string => (params as { '*'?: string })['*'] ?? '';

const Sha256 = Type.String({ pattern: '^([0-9a-fA-F]{64})?$' });

const Uploaded = Type.Object({
  path: Type.String(),
  size: Type.Integer(),
  sha256: Type.String({ description: 'SHA-256 of the new content; also the ETag' }),
  created: Type.Boolean(),
});

const EXPECTED_HELP =
  'Compare-and-swap: the SHA-256 the file must have now (its ETag), or empty for "must not exist". ' +
  'Otherwise 409 CONFLICT and nothing is written.';

export default async function fileRoutes(fastify: FastifyInstance): Promise<void> {
  acceptRawBodies(fastify);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, runtimes, fileLocks, fileReads } = app.services;

  app.put(
    '/v1/sessions/:id/files/*',
    {
      validatorCompiler: rawBodyValidatorCompiler,
      schema: {
        operationId: 'uploadFile',
        tags: ['files'],
        summary: 'Write a file from the raw request body (any bytes)',
        description:
          `The body is the file's content, byte for byte; Content-Type is ignored. Parents are created and the ` +
          `replacement is atomic. Streams (up to limits.uploadMaxBytes), held to the workspace quota. ` +
          `Allowed when write_file is. expected_sha256 (header "Expected-SHA256" or query): ${EXPECTED_HELP}`,
        params: FileParams,
        querystring: Type.Object({ expected_sha256: Type.Optional(Sha256) }),
        headers: Type.Object({ 'expected-sha256': Type.Optional(Sha256) }),
        body: binaryBody,
        response: { 200: Uploaded, 201: Uploaded, ...commonErrors, 409: errorRef, 413: errorRef },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const filePath = wildcard(request.params);
      const expected = request.headers['expected-sha256'] ?? request.query.expected_sha256;
      const transfer = await admitTransfer(app.services, request, session, {
        name: 'file_upload',
        like: 'write_file',
        input: { path: filePath, ...(expected !== undefined ? { expected_sha256: expected } : {}) },
      });
      reply.headers(transfer.headers);
      const sent = { bytes: 0 };
      try {
        checkDeclaredLength(request, config.limits.uploadMaxBytes);
        const workspace = new Workspace(runtimes.for(session), clientGone(reply));
        const { relative } = await workspace.resolve(filePath);
        const result = await fileLocks.run([`${session.id}\0${relative}`], () =>
          uploadFile(
            workspace,
            {
              path: relative,
              maxBytes: config.limits.uploadMaxBytes,
              ...(expected !== undefined ? { expectedSha256: expected } : {}),
            },
            rawBody(request),
            sent,
          ),
        );
        if (!('sha256' in result))
          throw toolgateError('INTERNAL_ERROR', 'The upload finished as something else');
        // The session wrote it, so it knows this version: its next edit needs no fresh read.
        if (request.principal?.kind === 'session')
          await fileReads.record(session.id, result.relative, {
            sha256: result.sha256,
            mtimeMs: result.stat.mtimeMs,
            size: result.stat.size,
          });
        transfer.end({ bytesIn: sent.bytes, bytesOut: 0 });
        return reply
          .code(result.created ? 201 : 200)
          .header('etag', etagOf(result.sha256))
          .send({
            path: result.relative,
            size: result.stat.size,
            sha256: result.sha256,
            created: result.created,
          });
      } catch (err) {
        transfer.end({ bytesIn: sent.bytes, bytesOut: 0, error: err });
        throw err;
      }
    },
  );

  app.get(
    '/v1/sessions/:id/files/*',
    {
      schema: {
        operationId: 'downloadFile',
        tags: ['files'],
        summary: "Read a file's raw bytes (streamed)",
        description:
          'The bytes as they are, with a Content-Type guessed from the name, ETag = the SHA-256 of the content ' +
          '(If-None-Match gives 304) and one byte range (Range: bytes=a-b, 206; past the end 416). Allowed when ' +
          'read_file is.',
        params: FileParams,
        response: {
          200: { description: 'The whole file', ...binaryBody },
          206: { description: 'The requested byte range', ...binaryBody },
          304: { description: 'Not modified (If-None-Match matched the ETag)', type: 'null' },
          ...commonErrors,
          416: errorRef,
          422: errorRef,
        },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const filePath = wildcard(request.params);
      const rangeHeader = request.headers.range;
      const transfer = await admitTransfer(app.services, request, session, {
        name: 'file_download',
        like: 'read_file',
        input: { path: filePath, ...(rangeHeader ? { range: rangeHeader } : {}) },
      });
      reply.headers(transfer.headers);
      try {
        const workspace = new Workspace(runtimes.for(session), clientGone(reply));
        const noneMatch = request.headers['if-none-match'];
        // HEAD (Fastify answers it with this route) and conditional or partial GETs first hash and stat.
        const head = request.method === 'HEAD';
        let span: { start: number; end: number } | undefined;
        let digest: { relative: string; size: number; mtimeMs: number; sha256: string } | undefined;
        if (rangeHeader || noneMatch || head) {
          digest = (await workspace.call('fileDigest', { path: filePath })).result;
          if (matchesNoneMatch(noneMatch, digest.sha256)) {
            transfer.end({ bytesIn: 0, bytesOut: 0 });
            return reply.code(304).header('etag', etagOf(digest.sha256)).send();
          }
          span = parseRange(rangeHeader, digest.size);
        }
        const opened = head
          ? { ...digest!, stream: undefined }
          : (await workspace.call('downloadOpen', { path: filePath, ...span })).result;
        const start = span?.start ?? 0;
        const end = Math.min(span?.end ?? opened.size - 1, opened.size - 1);
        reply
          .code(span ? 206 : 200)
          .header('content-type', mimeType(path.posix.basename(opened.relative), true))
          .header('content-length', String(Math.max(0, end - start + 1)))
          .header('etag', etagOf(opened.sha256))
          .header('last-modified', new Date(opened.mtimeMs).toUTCString())
          .header('accept-ranges', 'bytes');
        if (span) reply.header('content-range', `bytes ${start}-${end}/${opened.size}`);
        if (opened.stream === undefined) {
          transfer.end({ bytesIn: 0, bytesOut: 0 });
          // An empty stream: Fastify's HEAD handling then keeps our Content-Length (it sets 0 for no body).
          return reply.send(Readable.from([]));
        }
        const body = pullFrom(workspace, opened.stream, (bytes, complete, error) =>
          transfer.end({
            bytesIn: 0,
            bytesOut: bytes,
            ...(complete
              ? {}
              : {
                  error: error ?? toolgateError('BAD_REQUEST', 'The client left before the end of the file'),
                }),
          }),
        );
        return reply.send(body);
      } catch (err) {
        transfer.end({ bytesIn: 0, bytesOut: 0, error: err });
        throw err;
      }
    },
  );
}
