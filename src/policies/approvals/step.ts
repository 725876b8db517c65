// Calls to tools or categories the session marks as needing approval, and every call of a tool defined
// with autoRun false (a tool folder's `auto_run: false`), are parked: stored as pending and
// answered 202 with the call id. An operator approves or denies them (service.ts); an
// approved call re-enters the pipeline with `approved` set and passes this step.
import type { ApprovalStore } from './store.js';
import { toolgateError } from '../../lib/errors.js';
import { summarizeInput } from '../../lib/input-summary.js';
import { isOperatorRead, type Middleware } from '../../contract/call.js';

/** Whether a call of `tool` waits for an operator in a session with this approval list. */
export const needsApproval = (
  approvalList: readonly string[],
  tool: { name: string; category: string; autoRun?: boolean },
): boolean =>
  tool.autoRun === false || approvalList.includes(tool.name) || approvalList.includes(tool.category);

export const approval =
  (store: ApprovalStore, ttlMs: number): Middleware =>
  async (call, next) => {
    const { request } = call;
    const tool = call.entry.tool;
    // The operator reading a session is the one who would approve: never parked.
    if (request.approved || isOperatorRead(request) || !needsApproval(request.session.approval, tool))
      return next();
    const now = Date.now();
    const expiresAt = now + ttlMs;
    await store.create({
      callId: call.callId,
      sessionId: request.session.id,
      tool: tool.name,
      category: tool.category,
      input: call.input,
      inputSummary: summarizeInput(request.input),
      caller: request.caller,
      entryPoint: request.entryPoint,
      createdAt: now,
      expiresAt,
    });
    const resultUrl = `/v1/sessions/${request.session.id}/calls/${call.callId}`;
    throw toolgateError(
      'APPROVAL_PENDING',
      `${tool.name} needs an operator's approval; the call is waiting`,
      {
        suggestion: `Fetch the result with GET ${resultUrl}?wait=30 (long-poll) once it is approved.`,
        details: { callId: call.callId, expiresAt: new Date(expiresAt).toISOString(), resultUrl },
      },
    );
  };
