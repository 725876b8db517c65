// /v1/blobs: archives uploaded ahead of session creation (admin only, like creating sessions), so a
// large one travels as raw bytes, not base64 in JSON. POST streams the body to the data dir and answers
// its id, size and SHA-256; the blob seeds sessions (`archive: <id>`) until it expires or is deleted.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { acceptRawBodies, binaryBody, checkDeclaredLength, rawBody } from '../http/raw-body.js';
import { commonErrors, errorRef } from '../http/schemas.js';
import { rawBodyValidatorCompiler } from '../http/validator-compiler.js';

const BlobView = Type.Object({
  id: Type.String({ description: 'Pass as `archive` to POST /v1/sessions' }),
  size: Type.Integer(),
  sha256: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});

export default async function blobRoutes(fastify: FastifyInstance): Promise<void> {
  acceptRawBodies(fastify);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { blobs, config } = app.services;

  app.post(
    '/v1/blobs',
    {
      config: { access: 'admin' },
      validatorCompiler: rawBodyValidatorCompiler,
      schema: {
        operationId: 'uploadBlob',
        tags: ['files'],
        summary: 'Upload an archive to seed sessions with (admin)',
        description:
          'Admin only. The body (any bytes, up to limits.uploadMaxBytes) is stored for blobs.ttlSeconds; pass its ' +
          'id as `archive` to POST /v1/sessions, as often as you like until it expires.',
        body: binaryBody,
        response: { 201: BlobView, ...commonErrors, 413: errorRef },
      },
    },
    async (request, reply) => {
      checkDeclaredLength(request, config.limits.uploadMaxBytes);
      const blob = await blobs.put(rawBody(request), config.limits.uploadMaxBytes);
      return reply.code(201).send({ ...blob, expiresAt: new Date(blob.expiresAt).toISOString() });
    },
  );

  app.delete(
    '/v1/blobs/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteBlob',
        tags: ['files'],
        summary: 'Delete an uploaded blob (admin)',
        description: 'Admin only. Sessions already created from it keep their workspaces.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 204: Type.Null(), ...commonErrors },
      },
    },
    async (request, reply) => {
      if (!(await blobs.remove(request.params.id)))
        throw toolgateError('NOT_FOUND', `Blob ${request.params.id} not found`);
      return reply.code(204).send(null);
    },
  );
}
