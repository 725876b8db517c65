// /v1/sessions: create (admin), list (admin, paginated), get, delete (removes the workspace).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { NetworkPolicySchema, RateLimitsSchema } from '../config.js';
import { isToolgateError, toolgateError } from '../lib/errors.js';
import { sessionPolicy } from '../policies/permissions/session-policy.js';
import { toolAccess } from '../policies/permissions/permissions.js';
import type { ToolRegistry } from '../contract/registry.js';
import { sessionForRequest } from '../http/auth.js';
import {
  commonErrors,
  errorRef,
  decodeCursor,
  encodeCursor,
  Pagination,
  SessionIdParams,
} from '../http/schemas.js';
import type { SessionRecord } from '../store/sessions.js';
import { writeSeedFiles } from '../sandbox/seed-files.js';
import { Workspace } from '../runtime/workspace.js';
import { applySource, openSource, SessionSourceFields } from '../transfer/session-source.js';

const CreateSessionBody = Type.Object(
  {
    profile: Type.Optional(
      Type.String({ minLength: 1, description: 'read-only, read-write, execute, full, or a configured one' }),
    ),
    categories: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'Only these tool categories' }),
    ),
    excludeTools: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Tools this session may not call: names, or "tag:<tag>" for every tool with that tag',
      }),
    ),
    rateLimits: Type.Optional(RateLimitsSchema),
    approval: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Tools or categories whose calls need approval',
      }),
    ),
    ttlSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Lifetime; expired sessions are removed with their workspace',
      }),
    ),
    files: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.String(), {
        description: 'Seed files: workspace-relative path → content',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form, returned as given' }),
    ),
    network: Type.Optional(
      Type.Object(NetworkPolicySchema.properties, {
        additionalProperties: false,
        description:
          "Narrows the profile's egress policy (a stricter mode, or allow-list entries within the profile's); never widens it",
      }),
    ),
    image: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "The session's toolchain image: a key of the operator's image table (docker and kubernetes runtime backends; default: the profile's image, else the table's default)",
      }),
    ),
    ...SessionSourceFields,
  },
  { additionalProperties: false },
);

export const SessionView = Type.Object({
  id: Type.String(),
  profile: Type.String(),
  permissions: Type.Array(Type.String()),
  categories: Type.Array(Type.String(), { description: 'Categories this session can call tools in' }),
  excludeTools: Type.Array(Type.String()),
  rateLimits: RateLimitsSchema,
  approval: Type.Array(Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  network: Type.Object(NetworkPolicySchema.properties, {
    additionalProperties: false,
    description: 'Where its commands and web_fetch may connect, through the egress proxy',
  }),
  image: Type.Union([Type.String(), Type.Null()], {
    description: "Image key of the session's runtime (null: the backend's default or no images)",
  }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

const RuntimeState = Type.Union(
  [Type.Literal('stopped'), Type.Literal('starting'), Type.Literal('running')],
  {
    description: "The session's runtime process; reading it never starts one",
  },
);

const RuntimeView = Type.Object(
  {
    state: RuntimeState,
    isolated: Type.Boolean({
      description: 'False when the runtime runs unsandboxed (TOOLGATE_SANDBOX=none)',
    }),
    backend: Type.String(),
    starts: Type.Integer({
      description: 'Times this runtime was started (restarts after idle stops or crashes)',
    }),
    lastActivityAt: Type.String({ format: 'date-time' }),
    rssBytes: Type.Optional(Type.Integer({ description: "The runtime process's resident memory" })),
    cpuUserMs: Type.Optional(Type.Integer()),
    cpuSystemMs: Type.Optional(Type.Integer()),
  },
  { description: "The session's runtime (admin only): the process that performs its workspace operations" },
);

const UsageView = Type.Object(
  {
    bytes: Type.Integer({ description: 'Bytes in regular files of the workspace' }),
    files: Type.Integer({ description: 'Regular files in the workspace' }),
    limitBytes: Type.Union([Type.Integer(), Type.Null()], { description: 'The workspace quota; null: none' }),
    logBytes: Type.Integer({ description: "Bytes in this session's kept command logs" }),
    logLimitBytes: Type.Integer({ description: "The cap on this session's command logs" }),
  },
  {
    description: 'Disk used by the session: its workspace (commands are stopped past the quota) and its logs',
  },
);

const SessionDetail = Type.Intersect([
  SessionView,
  Type.Object({ usage: UsageView, runtime: Type.Optional(RuntimeView) }),
]);

const ListedSession = Type.Intersect([
  SessionView,
  Type.Object({
    runtimeState: RuntimeState,
  }),
]);

export const CreatedSession = Type.Intersect([
  SessionView,
  Type.Object({ token: Type.String({ description: 'Shown once' }) }),
]);

export function sessionView(session: SessionRecord, registry: ToolRegistry): Static<typeof SessionView> {
  const categories = new Set(
    registry
      .list()
      .filter((entry) => toolAccess(session, entry).allowed)
      .map((entry) => entry.tool.category),
  );
  return {
    id: session.id,
    profile: session.profile,
    permissions: session.permissions,
    categories: [...categories].sort(),
    excludeTools: session.excludeTools,
    rateLimits: session.rateLimits,
    approval: session.approval,
    metadata: session.metadata,
    network: session.network,
    image: session.image ?? null,
    createdAt: new Date(session.createdAt).toISOString(),
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}

/** A failed step of seeding a workspace, its error prefixed with the step's name. */
const labelled = (step: string, work: Promise<void>): Promise<void> =>
  work.catch((err: unknown) => {
    throw isToolgateError(err)
      ? toolgateError(err.code, `${step}: ${err.message}`, {
          suggestion: err.suggestion,
          details: err.details,
        })
      : err;
  });

const isCursor = (value: unknown): value is { createdAt: number; id: string } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { createdAt?: unknown }).createdAt === 'number' &&
  typeof (value as { id?: unknown }).id === 'string';

export default async function sessionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, registry, sessions, workspaces } = app.services;

  app.post(
    '/v1/sessions',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'createSession',
        tags: ['sessions'],
        summary: 'Create a session with its own workspace; returns its token once',
        description:
          'Admin only. Creates a workspace (optionally from an archive, an uploaded blob or a template, and with seed files on top), picks the tools by profile, categories and exclusions, and returns the session token once; only its hash is stored.',
        body: CreateSessionBody,
        response: { 201: CreatedSession, ...commonErrors, 413: errorRef, 415: errorRef, 422: errorRef },
      },
    },
    async (request, reply) => {
      const { files, archive, archive_base64, template, git, ...policyRequest } = request.body;
      // A key at its quota, or a full replica, says so before any work (the client or the balancer goes
      // elsewhere).
      const apiKey = request.principal?.kind === 'admin' ? request.principal.key : undefined;
      await app.services.capacity.admitSession(apiKey);
      const now = Date.now();
      const policy = sessionPolicy(policyRequest, config, registry, now);
      // A runtime image missing on the engine: the session could never run a thing, so no session.
      await app.services.runtimes.backend.checkImage?.(policy.image ?? undefined);
      // A bad source is refused before the session exists.
      const source = await openSource(app.services, { archive, archive_base64, template, git });
      // Checked again with the row's insert, one create at a time: a burst cannot pass a limit together.
      const { session, token } = await app.services.capacity.admitting(apiKey, () =>
        sessions.create({ ...policy, apiKey: apiKey ?? null }, now),
      );
      try {
        await workspaces.create(session.id);
        if (source) await labelled('Source', applySource(app.services, session, source));
        // Seed files are written by the session's runtime; a session without them starts none yet.
        const workspace = new Workspace(app.services.runtimes.for(session));
        const seeded = files !== undefined && Object.keys(files).length > 0;
        if (seeded) await labelled('Seed files', writeSeedFiles(workspace, files));
        // The base of `changes?since=start`, after the source and the seed files (the empty tree, without
        // a runtime, when there was neither).
        await app.services.snapshots.baseline(session.id, seeded || source ? workspace : undefined);
      } catch (err) {
        // All or nothing: a session whose source or seed files failed is removed again.
        await app.services.deleteSession(session.id);
        throw err;
      }
      return reply.code(201).send({ ...sessionView(session, registry), token });
    },
  );

  app.get(
    '/v1/sessions',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listSessions',
        tags: ['sessions'],
        summary: 'List live sessions, newest first',
        description: 'Admin only. Sessions that have not expired, newest first, paged with cursor.',
        querystring: Type.Object(Pagination),
        response: {
          200: Type.Object({
            sessions: Type.Array(ListedSession),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, isCursor);
      if (cursor !== undefined && !after) throw toolgateError('VALIDATION_FAILED', 'Invalid cursor');
      const page = await sessions.list(limit, after);
      const last = page.at(-1);
      return {
        sessions: page.map((s) => ({
          ...sessionView(s, registry),
          runtimeState: app.services.runtimes.get(s.id)?.state ?? 'stopped',
        })),
        nextCursor:
          page.length === limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      };
    },
  );

  app.get(
    '/v1/sessions/:id',
    {
      schema: {
        operationId: 'getSession',
        tags: ['sessions'],
        summary: 'A session (admin, or the session itself)',
        description:
          "The session's settings, its disk use (workspace bytes and files, quota, command logs) and, for the admin, its runtime (state, isolation, restarts, RSS and CPU).",
        params: SessionIdParams,
        response: { 200: SessionDetail, ...commonErrors },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const runtime = app.services.runtimes.for(session);
      const disk = (await runtime.call('usage', {})).result;
      const view = {
        ...sessionView(session, registry),
        usage: {
          ...disk,
          limitBytes: config.limits.workspaceMaxBytes || null,
          logBytes: app.services.jobs.logBytes(session.id),
          logLimitBytes: app.services.jobs.limits.sessionLogMaxBytes,
        },
      };
      if (request.principal?.kind !== 'admin') return view;
      const usage = await runtime.usage().catch(() => null);
      return {
        ...view,
        runtime: {
          state: runtime.state,
          isolated: runtime.isolated,
          backend: app.services.runtimes.backend.name,
          starts: runtime.starts,
          lastActivityAt: new Date(runtime.lastActivity).toISOString(),
          ...(usage ?? {}),
        },
      };
    },
  );

  app.delete(
    '/v1/sessions/:id',
    {
      schema: {
        operationId: 'deleteSession',
        tags: ['sessions'],
        summary: 'Delete a session and its workspace',
        description:
          "Stops the session's commands and runtime, removes its workspace, logs and history; its token stops working. Audit rows are kept.",
        params: SessionIdParams,
        response: { 204: Type.Null(), ...commonErrors },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      await app.services.deleteSession(session.id);
      return reply.code(204).send(null);
    },
  );
}
