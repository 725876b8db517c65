// GET /v1/capacity: what this replica takes on, each limit with its use (the console's capacity line; a
// client or an operator asking why a create was refused).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { commonErrors } from '../http/schemas.js';
import { Capacity } from '../ops/capacity/index.js';

const LimitState = Type.Object({
  used: Type.Number({ description: 'Use now, in the unit of the limit' }),
  limit: Type.Number({ description: 'New sessions are refused at this use' }),
  full: Type.Boolean({ description: 'Whether this limit refuses a new session now' }),
  unit: Type.Enum(['sessions', 'runtimes', 'bytes', 'tasks']),
});

const CapacityView = Type.Object({
  full: Type.Boolean({ description: 'Whether a new session is refused now (/readyz says the same)' }),
  fullLimits: Type.Array(Type.String()),
  limits: Type.Object({
    sessions: LimitState,
    runtimes: LimitState,
    memory: LimitState,
    pids: LimitState,
    disk: LimitState,
  }),
  retryAfterSeconds: Type.Integer(),
});

export default async function capacityRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/capacity',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getCapacity',
        tags: ['health'],
        summary: "This replica's capacity: each limit with its use",
        description:
          'Admin only. Live sessions, running runtimes, host memory, host tasks (process ids) and data disk, ' +
          'each as use and limit in one unit; a session create is refused with 503 CAPACITY_EXHAUSTED while ' +
          'a limit is full (runtimes, memory and pids count as full only when no idle runtime can be stopped).',
        response: { 200: CapacityView, ...commonErrors },
      },
    },
    async () => {
      const { capacity } = app.services;
      const limits = await capacity.report();
      const fullLimits = Capacity.fullLimits(limits);
      return {
        full: fullLimits.length > 0,
        fullLimits,
        limits,
        retryAfterSeconds: capacity.limits.retryAfterSeconds,
      };
    },
  );
}
