// /v1/approvals (admin): calls parked for approval; approve (the call runs) or deny them.
// GET /v1/sessions/{id}/calls/{callId}: a parked call's result, with long-poll (?wait=seconds).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { sessionForRequest } from '../../http/auth.js';
import { clientGoneHook } from '../../http/call-response.js';
import { pendingEnvelope, storedEnvelope } from '../../lib/envelope.js';
import { commonErrors, errorRef, SessionIdParams } from '../../http/schemas.js';
import type { ApprovalRecord } from './store.js';

const ApprovalView = Type.Object({
  callId: Type.String(),
  sessionId: Type.String(),
  tool: Type.String(),
  category: Type.String(),
  inputSummary: Type.String({ description: 'Redacted, like the audit log' }),
  input: Type.Unknown({
    description: 'The full input the call will run with, so the operator sees what they approve',
  }),
  status: Type.Enum(['pending', 'approved', 'completed', 'denied', 'expired']),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  decidedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const view = (r: ApprovalRecord) => ({
  callId: r.callId,
  sessionId: r.sessionId,
  tool: r.tool,
  category: r.category,
  inputSummary: r.inputSummary,
  input: r.input,
  status: r.status,
  reason: r.reason,
  createdAt: new Date(r.createdAt).toISOString(),
  expiresAt: new Date(r.expiresAt).toISOString(),
  decidedAt: r.decidedAt === null ? null : new Date(r.decidedAt).toISOString(),
});

const CallIdParams = Type.Object({ callId: Type.String({ minLength: 1, maxLength: 100 }) });
const Decision = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

export default async function approvalRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { approvals } = app.services;

  app.get(
    '/v1/approvals',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listApprovals',
        tags: ['approvals'],
        summary: 'Calls parked for approval (pending by default), newest first',
        description:
          'Admin only. Calls whose session profile requires approval wait here with 202 until an operator approves or denies them; filter by status and session.',
        querystring: Type.Object({
          status: Type.Enum(['pending', 'approved', 'completed', 'denied', 'expired'], {
            default: 'pending',
          }),
          sessionId: Type.Optional(Type.String({ minLength: 1 })),
          limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
        }),
        response: { 200: Type.Object({ approvals: Type.Array(ApprovalView) }), ...commonErrors },
      },
    },
    async (request) => {
      await approvals.expireDue();
      return { approvals: (await approvals.list(request.query)).map(view) };
    },
  );

  for (const action of ['approve', 'deny'] as const) {
    app.post(
      `/v1/approvals/:callId/${action}`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `${action}Call`,
          tags: ['approvals'],
          summary: action === 'approve' ? 'Approve a parked call; it runs now' : 'Deny a parked call',
          description:
            action === 'approve'
              ? 'Admin only. Runs the parked call now, through the same pipeline; the caller polling it receives its result.'
              : 'Admin only. Ends the parked call with 403 APPROVAL_DENIED and the reason given; the tool never runs.',
          params: CallIdParams,
          body: Type.Optional(Decision),
          response: { 200: ApprovalView, ...commonErrors, 409: errorRef },
        },
      },
      async (request) => {
        const reason = request.body?.reason ?? null;
        const record =
          action === 'approve'
            ? await approvals.approve(request.params.callId, reason)
            : await approvals.deny(request.params.callId, reason);
        return view(record);
      },
    );
  }

  app.get(
    '/v1/sessions/:id/calls/:callId',
    {
      schema: {
        operationId: 'getCallResult',
        tags: ['approvals'],
        summary: "A parked call's result: 202 while pending, then the call's own response",
        description:
          'Poll with the token of the session that made the call (or the admin key): 202 with the pending body until an operator decides, then the status and body the call would have had.',
        params: Type.Intersect([SessionIdParams, CallIdParams]),
        querystring: Type.Object({
          wait: Type.Integer({
            minimum: 0,
            maximum: 60,
            default: 0,
            description: 'Seconds to long-poll for a result',
          }),
        }),
        response: { 200: Type.Unknown(), 202: Type.Unknown(), ...commonErrors, 410: errorRef },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const record = await approvals.waitForResult(
        request.params.callId,
        request.query.wait * 1000,
        clientGoneHook(reply),
      );
      if (!record || record.sessionId !== session.id) {
        throw toolgateError(
          'CALL_NOT_FOUND',
          `No parked call ${request.params.callId.slice(0, 80)} in this session`,
        );
      }
      if (record.result === null) {
        const status = record.status === 'approved' ? 'running' : 'pending_approval';
        return reply
          .code(202)
          .send(pendingEnvelope(record.callId, status, new Date(record.expiresAt).toISOString()));
      }
      return reply.code(record.result.status).send(storedEnvelope(record.result.body, request.id));
    },
  );
}
