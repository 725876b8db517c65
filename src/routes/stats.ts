// GET /v1/stats: totals, success/error/refused counts and mean/p50/p95 duration, by tool, category and
// session, and errors by code. GET /v1/stats/timeline: calls per time bucket by outcome (for charts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import type { StatsBucket } from '../store/stats.js';
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
  lastCallAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Time of the newest call counted here',
  }),
});

const TimelineBucket = Type.Object({
  start: Type.String({ format: 'date-time' }),
  success: Type.Integer(),
  error: Type.Integer(),
  refused: Type.Integer(),
  pending: Type.Integer(),
  rateLimited: Type.Integer({ description: 'Refusals with RATE_LIMITED (also counted in refused)' }),
});

/** At most this many buckets per timeline: a day by the minute. */
const MAX_BUCKETS = 1440;

const bucketView = (bucket: StatsBucket) => ({
  ...bucket,
  lastCallAt: bucket.lastCallAt === null ? null : new Date(bucket.lastCallAt).toISOString(),
});
const bucketsView = (map: Record<string, StatsBucket>) =>
  Object.fromEntries(Object.entries(map).map(([key, bucket]) => [key, bucketView(bucket)]));

const timeParam = (name: string, value: string | undefined, fallback: number): number => {
  const parsed = parseTime(value);
  if (parsed === null)
    throw toolgateError('VALIDATION_FAILED', `${name} must be an ISO-8601 time or epoch ms`);
  return parsed ?? fallback;
};

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
          'Totals, success and error counts, mean, p50 and p95 duration and the last call, by tool, by category and by session, and failed or refused calls by error code, over the audit rows that match the filters.',
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
            bySession: Type.Record(Type.String(), Bucket),
            byErrorCode: Type.Record(Type.String(), Type.Integer(), {
              description: 'Failed and refused calls by error code',
            }),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const since = parseTime(request.query.since);
      if (since === null)
        throw toolgateError('VALIDATION_FAILED', 'since must be an ISO-8601 time or epoch ms');
      const report = await app.services.stats.report({
        sessionId: await scopedSessionId(app, request, request.query.sessionId),
        tool: request.query.tool,
        since,
      });
      return {
        totals: bucketView(report.totals),
        byTool: bucketsView(report.byTool),
        byCategory: bucketsView(report.byCategory),
        bySession: bucketsView(report.bySession),
        byErrorCode: report.byErrorCode,
      };
    },
  );

  app.get(
    '/v1/stats/timeline',
    {
      schema: {
        operationId: 'getStatsTimeline',
        tags: ['observability'],
        summary: 'Calls over time, by outcome, in fixed buckets',
        description: `Counts of successful, failed, refused (and of those, rate-limited) and parked calls per bucket of bucketSeconds, from since (default: an hour ago) until until (default: now). Every bucket is listed, empty ones too; at most ${MAX_BUCKETS}.`,
        querystring: Type.Object({
          sessionId: Type.Optional(Type.String({ minLength: 1 })),
          tool: Type.Optional(Type.String({ minLength: 1 })),
          since: Type.Optional(Type.String({ description: 'ISO-8601 time or epoch ms (inclusive)' })),
          until: Type.Optional(Type.String({ description: 'ISO-8601 time or epoch ms (exclusive)' })),
          bucketSeconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
        }),
        response: {
          200: Type.Object({
            since: Type.String({ format: 'date-time' }),
            until: Type.String({ format: 'date-time' }),
            bucketSeconds: Type.Integer(),
            buckets: Type.Array(TimelineBucket),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const { bucketSeconds } = request.query;
      const bucketMs = bucketSeconds * 1000;
      const now = Date.now();
      // Bucket edges fall on multiples of the bucket size, so two consoles draw the same bars.
      const until = Math.ceil(timeParam('until', request.query.until, now) / bucketMs) * bucketMs;
      const since =
        Math.floor(timeParam('since', request.query.since, until - 3_600_000) / bucketMs) * bucketMs;
      if (since >= until) throw toolgateError('VALIDATION_FAILED', 'since must be before until');
      if ((until - since) / bucketMs > MAX_BUCKETS) {
        throw toolgateError(
          'VALIDATION_FAILED',
          `The range holds ${Math.ceil((until - since) / bucketMs)} buckets; at most ${MAX_BUCKETS}`,
          { suggestion: 'Use larger buckets (bucketSeconds) or a shorter range.' },
        );
      }
      const buckets = await app.services.stats.timeline({
        sessionId: await scopedSessionId(app, request, request.query.sessionId),
        tool: request.query.tool,
        since,
        until,
        bucketMs,
      });
      return {
        since: new Date(since).toISOString(),
        until: new Date(until).toISOString(),
        bucketSeconds,
        buckets: buckets.map((b) => ({ ...b, start: new Date(b.start).toISOString() })),
      };
    },
  );
}
