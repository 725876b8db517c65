// GET /v1/audit: one row per tool call, newest first, with filters and cursor pagination.
// A session token sees only its own session's rows; operators' reads only when asked for.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { commonErrors, decodeCursor, encodeCursor, Pagination, parseTime } from '../http/schemas.js';
import { scopedSessionId } from './scope.js';

const AuditEntry = Type.Object({
  id: Type.Integer(),
  callId: Type.String(),
  time: Type.String({ format: 'date-time' }),
  sessionId: Type.Union([Type.String(), Type.Null()]),
  tool: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  status: Type.Enum(['success', 'error', 'refused', 'pending']),
  errorCode: Type.Union([Type.String(), Type.Null()]),
  httpStatus: Type.Integer(),
  durationMs: Type.Number(),
  bytesIn: Type.Integer(),
  bytesOut: Type.Integer(),
  caller: Type.String(),
  entryPoint: Type.String(),
  inputSummary: Type.String({ description: 'Redacted: never file contents, patches, stdin or secrets' }),
  attempts: Type.Integer({ description: 'Runs of the tool: more than 1 when a retryable tool was retried' }),
  duplicate: Type.Boolean({
    description: 'Answered from an identical earlier call of the same batch or turn, without running',
  }),
  decidedBy: Type.Union([Type.String(), Type.Null()], {
    description:
      "A parked call's final row: who decided it (admin, or expiry when no operator did in time); null otherwise",
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: "A parked call's final row: the reason the operator gave, if any",
  }),
  wireTool: Type.Union([Type.String(), Type.Null()], {
    description:
      'The vendor tool the model called when it is not ours by name, as "<format>:<tool>[.<command>]" ' +
      '(e.g. "openai-responses:shell_call", "anthropic:str_replace_based_edit_tool.view"); null otherwise',
  }),
});

const isIdCursor = (value: unknown): value is { beforeId: number } =>
  typeof value === 'object' && value !== null && Number.isInteger((value as { beforeId?: unknown }).beforeId);

export default async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['observability'],
        summary: 'Audit log of tool calls, newest first',
        description:
          'One row per tool call, refused ones included: time, session, tool, status, error code, duration, bytes, caller and a redacted input summary. A session token sees its own rows; page with cursor.',
        querystring: Type.Object({
          sessionId: Type.Optional(Type.String({ minLength: 1 })),
          tool: Type.Optional(Type.String({ minLength: 1 })),
          status: Type.Optional(Type.Enum(['success', 'error', 'refused', 'pending'])),
          since: Type.Optional(Type.String({ description: 'ISO-8601 time or epoch ms (inclusive)' })),
          until: Type.Optional(Type.String({ description: 'ISO-8601 time or epoch ms (exclusive)' })),
          operatorReads: Type.Boolean({
            default: false,
            description:
              "Include operators' views of sessions (entry point operator: GET …/changes and …/checkpoints with the admin key), which are not the sessions' calls",
          }),
          ...Pagination,
        }),
        response: {
          200: Type.Object({
            entries: Type.Array(AuditEntry),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const since = parseTime(q.since);
      const until = parseTime(q.until);
      if (since === null)
        throw toolgateError('VALIDATION_FAILED', 'since must be an ISO-8601 time or epoch ms');
      if (until === null)
        throw toolgateError('VALIDATION_FAILED', 'until must be an ISO-8601 time or epoch ms');
      const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isIdCursor);
      if (q.cursor !== undefined && !cursor) throw toolgateError('VALIDATION_FAILED', 'Invalid cursor');
      const rows = await app.services.audit.query({
        sessionId: await scopedSessionId(app, request, q.sessionId),
        tool: q.tool,
        status: q.status,
        since,
        until,
        limit: q.limit,
        beforeId: cursor?.beforeId,
        operatorReads: q.operatorReads,
      });
      const last = rows.at(-1);
      return {
        entries: rows.map(({ ts, ...row }) => ({ ...row, time: new Date(ts).toISOString() })),
        nextCursor: rows.length === q.limit && last ? encodeCursor({ beforeId: last.id }) : null,
      };
    },
  );
}
