// POST /v1/sessions/{id}/fork: a new session whose workspace is a copy of this one's now, with the same
// policy, and optionally its todos, read-tracking and checkpoints. For best-of-n and tree-search agents.
// The copy comes from the snapshot store: where overlayfs works (bwrap backend, as root), the new
// workspace is a copy-on-write view of the parent's snapshot (sandbox/overlay-workspaces.ts), else the
// files are written by the new session's own runtime. Either way the service never touches either
// workspace, and symlinks stay symlinks.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isToolgateError, toolgateError } from '../lib/errors.js';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, errorRef, SessionIdParams } from '../http/schemas.js';
import { emptyBodyAsObject } from '../http/tool-backed.js';
import { Workspace } from '../runtime/workspace.js';
import { CreatedSession, sessionView } from './sessions.js';

const ForkBody = Type.Object(
  {
    include: Type.Optional(
      Type.Array(Type.Enum(['todos', 'reads', 'checkpoints']), {
        uniqueItems: true,
        description:
          'What else the fork takes over: the todo list, the read-tracking (what the session has read, so writes need no re-read), the checkpoints',
      }),
    ),
    ttlSeconds: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Lifetime of the fork (default: the usual)' }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Merged over the parent's metadata" }),
    ),
  },
  { additionalProperties: false },
);

const ForkedSession = Type.Intersect([
  CreatedSession,
  Type.Object({
    forkedFrom: Type.String(),
    files: Type.Integer({ description: 'Regular files copied' }),
    bytes: Type.Integer({ description: 'Bytes of file content copied' }),
    copy: Type.Union([Type.Literal('overlay'), Type.Literal('full')], {
      description:
        'How the workspace was copied: `overlay`, a copy-on-write view of the snapshot (nothing copied until written; file mtimes are those of the stored contents), or `full`, every file written',
    }),
  }),
]);

export default async function forkRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, registry, sessions, workspaces, runtimes, snapshots } = app.services;

  app.post(
    '/v1/sessions/:id/fork',
    {
      // A POST without a body is a fork with the defaults.
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'forkSession',
        tags: ['sessions'],
        summary: 'Create a session with a copy of this workspace; returns its token once',
        description:
          'Admin, or the session itself when its profile allows forking (`fork: true` in the profile). The new session has the same profile, tools, limits and approvals; its start (for `changes?since=start`) is the copy.',
        params: SessionIdParams,
        body: Type.Optional(ForkBody),
        response: { 201: ForkedSession, ...commonErrors, 409: errorRef, 504: errorRef },
      },
    },
    async (request, reply) => {
      const parent = await sessionForRequest(app, request, request.params.id);
      if (request.principal?.kind === 'session' && config.profiles[parent.profile]?.fork !== true) {
        throw toolgateError('PERMISSION_DENIED', `Profile "${parent.profile}" may not fork sessions`, {
          suggestion: 'Ask the operator: forking needs the admin key or a profile with "fork": true.',
        });
      }
      // A fork is a new session: of the parent's key's quota, and on this replica's capacity.
      await app.services.capacity.admitSession(parent.apiKey);
      const body = request.body ?? {};
      const include = new Set(body.include ?? []);
      const ttlSeconds = body.ttlSeconds ?? config.sessions.defaultTtlSeconds;
      if (ttlSeconds > config.sessions.maxTtlSeconds) {
        throw toolgateError(
          'VALIDATION_FAILED',
          `ttlSeconds may be at most ${config.sessions.maxTtlSeconds}`,
        );
      }
      const now = Date.now();
      const { id: _id, createdAt: _createdAt, ...policy } = parent;
      await runtimes.backend.checkImage?.(parent.image ?? undefined);
      const { session, token } = await app.services.capacity.admitting(parent.apiKey, () =>
        sessions.create(
          {
            ...policy,
            metadata: { ...parent.metadata, ...body.metadata },
            expiresAt: now + ttlSeconds * 1000,
          },
          now,
        ),
      );
      let copied: { files: number; bytes: number; copy: 'overlay' | 'full' };
      try {
        await workspaces.create(session.id);
        const overlays = workspaces.overlays;
        const overlay = overlays && (await overlays.available()) ? overlays : undefined;
        const counts = await snapshots.fork(
          parent.id,
          new Workspace(runtimes.for(parent)),
          session.id,
          new Workspace(runtimes.for(session)),
          {
            withCheckpoints: include.has('checkpoints'),
            overlay:
              overlay &&
              (async (entries, blobPath) => {
                const { tree } = await overlay.create(session.id, entries, blobPath);
                return (entryPath) => overlay.lowerFile(tree, entryPath);
              }),
          },
        );
        copied = { ...counts, copy: overlay ? 'overlay' : 'full' };
        if (include.has('todos')) {
          const { todos } = app.services;
          await todos.replace(session.id, await todos.list(parent.id));
        }
        if (include.has('reads')) await app.services.fileReads.copySession(parent.id, session.id);
      } catch (err) {
        // All or nothing, as for a new session whose seed files failed.
        await app.services.deleteSession(session.id);
        if (isToolgateError(err))
          throw toolgateError(err.code, `Fork: ${err.message}`, { suggestion: err.suggestion });
        throw err;
      }
      return reply
        .code(201)
        .send({ ...sessionView(session, registry), token, forkedFrom: parent.id, ...copied });
    },
  );
}
