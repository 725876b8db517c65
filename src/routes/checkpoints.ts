// /v1/sessions/{id}/checkpoints: create, list, restore and delete snapshots of a session's workspace.
// Create, list and restore are the checkpoint_* tools underneath (same permissions, approvals, audit);
// delete touches only the snapshot store, and needs the session's write permission.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, errorRef, PendingCallSchema } from '../http/schemas.js';
import { emptyBodyAsObject, sendToolResult } from '../http/tool-backed.js';
import { CheckpointSchema } from '../store/checkpoints.js';
import checkpointRestore from '../tools/workspace/checkpoint_restore.js';

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const CheckpointParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  checkpoint: Type.String({ minLength: 1, maxLength: 100 }),
});
const toolErrors = { ...commonErrors, 409: errorRef, 422: errorRef, 504: errorRef };

export default async function checkpointRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/sessions/:id/checkpoints',
    {
      // A POST without a body is a checkpoint without a name.
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'createCheckpoint',
        tags: ['workspace'],
        summary: 'Snapshot the workspace',
        description:
          'Saves the whole workspace (contents, modes, symlinks). Files unchanged since the last snapshot are matched by inode, size and times without being read, and share their stored content: a checkpoint of an unchanged tree costs a scan and a manifest. Runs the checkpoint_create tool.',
        params: Params,
        body: Type.Optional(
          Type.Object(
            { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
            { additionalProperties: false },
          ),
        ),
        response: { 201: CheckpointSchema, 202: PendingCallSchema, ...toolErrors },
      },
    },
    async (request, reply) => {
      const input = request.body ?? {};
      return sendToolResult(app, request, reply, {
        sessionId: request.params.id,
        toolName: 'checkpoint_create',
        input,
        status: 201,
      });
    },
  );

  app.get(
    '/v1/sessions/:id/checkpoints',
    {
      schema: {
        operationId: 'listCheckpoints',
        tags: ['workspace'],
        summary: "The session's checkpoints, oldest first",
        description:
          "Id, name, time, files and bytes of each checkpoint, and the content bytes it added to the store. Runs the checkpoint_list tool; with the admin key as an operator read (entry point `operator`: not rate-limited, parked or counted in the session's stats; in GET /v1/audit only with operatorReads=true).",
        params: Params,
        response: { 200: Type.Object({ checkpoints: Type.Array(CheckpointSchema) }), ...toolErrors },
      },
    },
    async (request, reply) => {
      const sessionId = request.params.id;
      return sendToolResult(app, request, reply, {
        sessionId,
        toolName: 'checkpoint_list',
        input: {},
        status: 200,
        read: true,
      });
    },
  );

  app.post(
    '/v1/sessions/:id/checkpoints/:checkpoint/restore',
    {
      schema: {
        operationId: 'restoreCheckpoint',
        tags: ['workspace'],
        summary: 'Put the workspace back as it was at a checkpoint',
        description:
          'Every file back to its content and mode, symlinks recreated, entries made since removed; unchanged files are not rewritten. A write: needs the write permission, follows the approval policy, audited (the checkpoint_restore tool).',
        params: CheckpointParams,
        response: { 200: checkpointRestore.output, 202: PendingCallSchema, ...toolErrors },
      },
    },
    async (request, reply) => {
      const { id, checkpoint } = request.params;
      const input = { checkpoint };
      return sendToolResult(app, request, reply, {
        sessionId: id,
        toolName: 'checkpoint_restore',
        input,
        status: 200,
      });
    },
  );

  app.delete(
    '/v1/sessions/:id/checkpoints/:checkpoint',
    {
      schema: {
        operationId: 'deleteCheckpoint',
        tags: ['workspace'],
        summary: 'Delete a checkpoint',
        description:
          'Removes the checkpoint and whatever stored content no other snapshot of the session shares. Admin, or the session with the write permission.',
        params: CheckpointParams,
        response: { 204: Type.Null(), ...commonErrors },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      if (request.principal?.kind === 'session' && !session.permissions.includes('write')) {
        throw toolgateError('PERMISSION_DENIED', 'Deleting a checkpoint needs the write permission', {
          details: { missing: ['write'] },
        });
      }
      await app.services.snapshots.deleteCheckpoint(session.id, request.params.checkpoint);
      return reply.code(204).send(null);
    },
  );
}
