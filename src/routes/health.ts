// /healthz (the process is up) and /readyz (database writable, workspace root writable).
import { constants, promises as fs } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.String()) });

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'health',
        tags: ['health'],
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'ready',
        tags: ['health'],
        security: [],
        response: {
          200: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Check) }),
          503: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Check) }),
        },
      },
    },
    async (_request, reply) => {
      const { db, workspaces } = app.services;
      const checks: Record<string, { ok: boolean; detail?: string }> = {};
      try {
        // BEGIN IMMEDIATE takes the write lock: proves the database is writable without writing a row.
        db.prepare('BEGIN IMMEDIATE').run();
        db.prepare('ROLLBACK').run();
        checks.database = { ok: true };
      } catch (err) {
        checks.database = { ok: false, detail: (err as Error).message };
      }
      try {
        await fs.access(workspaces.baseDir, constants.W_OK);
        checks.workspaces = { ok: true };
      } catch {
        checks.workspaces = { ok: false, detail: 'workspace directory is not writable' };
      }
      const ready = Object.values(checks).every((c) => c.ok);
      return reply.code(ready ? 200 : 503).send({ ready, checks });
    },
  );
}
