// /v1/sessions/{id}/archive: a tar, tar.gz or zip body extracted into a workspace directory (POST), and
// a subtree streamed out as tar.gz or zip (GET). Both run inside the session runtime: extraction is
// checked entry by entry, staged and moved into place only when all of it passed (see
// runtime/inside/archive-*.ts); packing walks the tree as the client reads. Allowed when write_file /
// read_file would be, with the archive caps of the config, one audit row each.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { sessionForRequest } from '../http/auth.js';
import { clientGone } from '../http/call-response.js';
import { acceptRawBodies, binaryBody, checkDeclaredLength, rawBody } from '../http/raw-body.js';
import { commonErrors, errorRef, SessionIdParams } from '../http/schemas.js';
import { rawBodyValidatorCompiler } from '../http/validator-compiler.js';
import { Workspace } from '../runtime/workspace.js';
import { admitTransfer } from '../engine/transfer-gate.js';
import { feedAndFinish, pullFrom } from '../transfer/runtime-streams.js';

const Extracted = Type.Object({
  path: Type.String({ description: 'The directory extracted into' }),
  format: Type.Enum(['tar', 'tar.gz', 'zip']),
  files: Type.Integer(),
  directories: Type.Integer(),
  symlinks: Type.Integer(),
  bytes: Type.Integer({ description: 'Bytes of file content written' }),
});

const TargetPath = Type.String({ minLength: 1, default: '.', description: 'Workspace-relative directory' });

const CONTENT_TYPES = { 'tar.gz': 'application/gzip', zip: 'application/zip' } as const;

export default async function archiveRoutes(fastify: FastifyInstance): Promise<void> {
  acceptRawBodies(fastify);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, runtimes } = app.services;

  app.post(
    '/v1/sessions/:id/archive',
    {
      validatorCompiler: rawBodyValidatorCompiler,
      schema: {
        operationId: 'extractArchive',
        tags: ['files'],
        summary: 'Extract a tar, tar.gz or zip body into a workspace directory, all or nothing',
        description:
          'The body is the archive (format told by its first bytes; Content-Type is ignored). Entries that would ' +
          'land outside the directory (absolute names, "..", symlinks pointing out, entries below a symlink), ' +
          'hard links, devices and FIFOs are refused (422 ARCHIVE_UNSAFE), and so are archives past the caps on ' +
          'entries, bytes and compression ratio (413 ARCHIVE_TOO_LARGE) or the quota: then nothing is written. ' +
          'Existing files are replaced, directories merged; a file where the workspace has a directory (or the ' +
          'other way round) is 409 CONFLICT. Allowed when write_file is.',
        params: SessionIdParams,
        querystring: Type.Object({ path: TargetPath }),
        body: binaryBody,
        response: {
          200: Extracted,
          ...commonErrors,
          409: errorRef,
          413: errorRef,
          415: errorRef,
          422: errorRef,
        },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const target = request.query.path;
      const transfer = await admitTransfer(app.services, request, session, {
        name: 'archive_extract',
        like: 'write_file',
        input: { path: target },
      });
      reply.headers(transfer.headers);
      const sent = { bytes: 0 };
      try {
        checkDeclaredLength(request, config.limits.uploadMaxBytes);
        const workspace = new Workspace(runtimes.for(session));
        const { stream } = (await workspace.call('extractOpen', { path: target, limits: config.archive }))
          .result;
        const result = await feedAndFinish(workspace, stream, rawBody(request), sent);
        if (!('format' in result))
          throw toolgateError('INTERNAL_ERROR', 'The extraction finished as something else');
        transfer.end({ bytesIn: sent.bytes, bytesOut: 0 });
        const { relative, ...counts } = result;
        return { path: relative, ...counts };
      } catch (err) {
        transfer.end({ bytesIn: sent.bytes, bytesOut: 0, error: err });
        throw err;
      }
    },
  );

  app.get(
    '/v1/sessions/:id/archive',
    {
      schema: {
        operationId: 'downloadArchive',
        tags: ['files'],
        summary: 'Stream a workspace directory out as tar.gz or zip',
        description:
          'Walks the subtree as the client reads (never held in memory). Symlinks are stored as symlinks; FIFOs, ' +
          "sockets and devices are left out. gitignore=true also leaves out .gitignore'd paths and .git. " +
          'Allowed when read_file is.',
        params: SessionIdParams,
        querystring: Type.Object({
          path: TargetPath,
          format: Type.Enum(['tar.gz', 'zip'], { default: 'tar.gz' }),
          gitignore: Type.Boolean({ default: false }),
        }),
        response: {
          200: {
            description: 'The archive',
            content: {
              'application/gzip': { schema: { type: 'string', format: 'binary' } },
              'application/zip': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...commonErrors,
          422: errorRef,
        },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const { path: target, format, gitignore } = request.query;
      const transfer = await admitTransfer(app.services, request, session, {
        name: 'archive_download',
        like: 'read_file',
        input: { path: target, format, gitignore },
      });
      reply.headers(transfer.headers);
      try {
        const workspace = new Workspace(runtimes.for(session), clientGone(reply));
        const opened = (await workspace.call('packOpen', { path: target, format, gitignore })).result;
        const base = opened.relative === '.' ? 'workspace' : path.posix.basename(opened.relative);
        reply
          .type(CONTENT_TYPES[format])
          .header('content-disposition', `attachment; filename="${base.replace(/[^\w.-]/g, '_')}.${format}"`);
        return reply.send(
          pullFrom(workspace, opened.stream, (bytes, complete, error) =>
            transfer.end({
              bytesIn: 0,
              bytesOut: bytes,
              ...(complete
                ? {}
                : {
                    error:
                      error ?? toolgateError('BAD_REQUEST', 'The client left before the end of the archive'),
                  }),
            }),
          ),
        );
      } catch (err) {
        transfer.end({ bytesIn: 0, bytesOut: 0, error: err });
        throw err;
      }
    },
  );
}
