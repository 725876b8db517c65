// Schemas shared by several routes and the OpenAPI document: the error envelope and common params.
import { Type } from 'typebox';

export const ErrorEnvelopeSchema = Type.Object(
  {
    success: Type.Literal(false),
    callId: Type.Optional(Type.String()),
    requestId: Type.String(),
    error: Type.Object({
      code: Type.String({ description: 'Stable SCREAMING_SNAKE code, e.g. PATH_OUTSIDE_WORKSPACE' }),
      type: Type.Enum([
        'validation_error',
        'user_error',
        'permission_error',
        'security_error',
        'rate_limited',
        'timeout',
        'system_error',
      ]),
      message: Type.String(),
      suggestion: Type.Optional(Type.String()),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every error response has this shape' },
);

export const errorRef = Type.Ref('ErrorEnvelope');

/** Error responses every authenticated route may give (503: storage or runtime unavailable, shutting down). */
export const commonErrors = {
  400: errorRef,
  401: errorRef,
  403: errorRef,
  404: errorRef,
  429: errorRef,
  500: errorRef,
  503: errorRef,
  507: errorRef,
};

/** The 202 body of a call parked for approval (or approved and still running). */
export const PendingCallSchema = Type.Object(
  {
    success: Type.Literal(true),
    pending: Type.Literal(true),
    status: Type.Enum(['pending_approval', 'running']),
    callId: Type.String(),
    expiresAt: Type.String(),
    message: Type.Optional(Type.String()),
    resultUrl: Type.Optional(Type.String({ description: 'GET it for the result once an operator decides' })),
  },
  { description: 'The call waits for an operator; poll resultUrl' },
);

export const SessionIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const Pagination = {
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  cursor: Type.Optional(Type.String({ maxLength: 500, description: 'nextCursor from the previous page' })),
};

/** Opaque cursors: base64url JSON, rejected with 400 when tampered with. */
export const encodeCursor = (value: unknown): string =>
  Buffer.from(JSON.stringify(value)).toString('base64url');

export function decodeCursor<T>(cursor: string, isValid: (value: unknown) => value is T): T | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return isValid(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Accepts ISO-8601 or epoch milliseconds. */
export function parseTime(value: string | undefined): number | undefined | null {
  if (value === undefined || value === '') return undefined;
  const asNumber = Number(value);
  const ms = Number.isFinite(asNumber) ? asNumber : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
