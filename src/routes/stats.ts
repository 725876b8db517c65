// GET /v1/stats: totals, success/error/refused counts and mean/p50/p95 duration, by tool and category.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../core/errors.js';
import { commonErrors, parseTime } from '../http/schemas.js';
import { scopedSessionId } from './scope.js';

const Bucket = Type.Object({
  total: Type.Integer(),
  success: Type.Integer(),
  error: Type.Integer(),
  refused: Type.Integer(),
  pending: Type.Integer(),
  duplicates: Type.Integer({
    description: 'Calls answered from an identical call of the same batch or turn',
  }),
  meanMs: Type.Number(),
  p50Ms: Type.Number(),
  p95Ms: Type.Number(),
});

export default async function statsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/stats',
    {
      schema: {
        operationId: 'getStats',
        tags: ['observability'],
        summary: 'Execution statistics from the audit log',
        description:
          'Totals, success and error counts, mean, p50 and p95 duration, by tool and by category, over the audit rows that match the filters.',
        querystring: Type.Object({
          sessionId: Type.Optional(Type.String({ minLength: 1 })),
          tool: Type.Optional(Type.String({ minLength: 1 })),
          since: Type.Optional(Type.String({ description: 'ISO-8601 time or epoch ms' })),
        }),
        response: {
          200: Type.Object({
            totals: Bucket,
            byTool: Type.Record(Type.String(), Bucket),
            byCategory: Type.Record(Type.String(), Bucket),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const since = parseTime(request.query.since);
      if (since === null)
        throw toolgateError('VALIDATION_FAILED', 'since must be an ISO-8601 time or epoch ms');
      return app.services.stats.report({
        sessionId: scopedSessionId(app, request, request.query.sessionId),
        tool: request.query.tool,
        since,
      });
    },
  );
}
