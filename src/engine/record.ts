// Outermost middleware: every call — run, failed, or refused by validation or policy — gets one audit
// row (the source of the stats) and start/end activity events. Unexpected exceptions become INTERNAL_ERROR.
import { fromStorageError, isToolgateError, toolgateError, type ToolgateError } from '../lib/errors.js';
import type { EventHub } from './events.js';
import type { ToolLogger } from '../lib/logger.js';
import type { AuditEntry, AuditStatus, AuditStore } from '../store/audit.js';
import { summarizeInput } from '../lib/input-summary.js';
import { isOperatorRead, type CallState, type Middleware } from '../contract/call.js';

export function asToolgateError(
  err: unknown,
  logger: ToolLogger,
  context: Record<string, unknown>,
): ToolgateError {
  if (isToolgateError(err)) return err;
  const storage = fromStorageError(err);
  if (storage) {
    logger.warn({ err, ...context }, 'tool call failed on storage');
    return storage;
  }
  logger.error({ err, ...context }, 'tool call failed with an unexpected error');
  return toolgateError(
    'INTERNAL_ERROR',
    'The tool failed unexpectedly; this is a bug in toolgate or the tool',
    {
      cause: err,
    },
  );
}

export const statusOf = (error: ToolgateError): AuditStatus =>
  error.code === 'APPROVAL_PENDING'
    ? 'pending'
    : error.type === 'permission_error' || error.type === 'rate_limited'
      ? 'refused'
      : 'error';

export const record =
  (audit: AuditStore, events: EventHub, logger: ToolLogger): Middleware<CallState> =>
  async (call, next) => {
    const { request } = call;
    const sessionId = request.session.id;
    const inputSummary = summarizeInput(request.input);
    // The session's live activity is its agent's: an operator's reads are not announced there.
    const announce = () => !isOperatorRead(request) && events.watching(sessionId);
    // Events are built only for a session someone watches: most calls have no audience.
    if (announce()) {
      events.publish(sessionId, 'tool_call_start', {
        callId: call.callId,
        tool: request.toolName,
        entryPoint: request.entryPoint,
        caller: request.caller,
        inputSummary,
      });
    }
    try {
      const result = await next();
      result.dataJson ??= JSON.stringify(result.data) ?? 'null';
      // The answer waits for the row's journal write (shared by the calls that end in the same turn).
      await audit.recordBeforeAnswer(
        auditEntry(call, inputSummary, 'success', 200, null, Buffer.byteLength(result.dataJson)),
      );
      if (announce()) publishEnd(events, call, true);
      return result;
    } catch (err) {
      const error = asToolgateError(err, logger, { callId: call.callId, tool: request.toolName, sessionId });
      await audit.recordBeforeAnswer(
        auditEntry(call, inputSummary, statusOf(error), error.statusCode, error.code, 0),
      );
      if (announce()) {
        events.publish(sessionId, 'error', {
          callId: call.callId,
          tool: request.toolName,
          error: error.toBody(),
        });
        publishEnd(events, call, false);
      }
      throw error;
    }
  };

function auditEntry(
  call: CallState,
  inputSummary: string,
  status: AuditStatus,
  httpStatus: number,
  errorCode: string | null,
  bytesOut: number,
): AuditEntry {
  const { request } = call;
  return {
    callId: call.callId,
    ts: Date.now(),
    sessionId: request.session.id,
    tool: String(request.toolName).slice(0, 100),
    category: call.entry?.tool.category ?? null,
    status,
    errorCode,
    httpStatus,
    durationMs: elapsed(call),
    bytesIn: request.bytesIn,
    bytesOut,
    caller: request.caller,
    entryPoint: request.entryPoint,
    inputSummary,
    attempts: call.attempts ?? 1,
    duplicate: call.duplicate === true,
    ...(request.wireTool !== undefined ? { wireTool: request.wireTool } : {}),
  };
}

const publishEnd = (events: EventHub, call: CallState, success: boolean) =>
  events.publish(call.request.session.id, 'tool_call_end', {
    callId: call.callId,
    tool: call.request.toolName,
    success,
    durationMs: elapsed(call),
  });

export const elapsed = (call: CallState): number =>
  Math.round((performance.now() - call.startedAt) * 1000) / 1000;
