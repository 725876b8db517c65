// Errors: every error answer of toolgate (the envelope's code, type, message, suggestion) thrown as one
// class, so an agent can branch on `err.code` the way the HTTP contract documents it.
import type { ErrorBody } from './types.js';

export class ToolgateError extends Error {
  readonly code: string;
  readonly type?: string;
  readonly suggestion?: string;
  readonly details: Record<string, unknown>;
  readonly status?: number;
  readonly callId?: string;
  readonly requestId?: string;

  constructor(
    body: Partial<ErrorBody> & { code: string; message: string },
    extra: { status?: number; callId?: string; requestId?: string } = {},
  ) {
    super(`${body.code}: ${body.message}${body.suggestion ? ` (suggestion: ${body.suggestion})` : ''}`);
    this.name = 'ToolgateError';
    this.code = body.code;
    this.type = body.type;
    this.suggestion = body.suggestion;
    this.details = body.details ?? {};
    this.status = extra.status;
    this.callId = extra.callId;
    this.requestId = extra.requestId;
  }

  /** The error of an envelope (`{success: false, error, callId?, requestId?}`), or of an unexpected body. */
  static fromEnvelope(body: unknown, status?: number): ToolgateError {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
      error?: ErrorBody;
      callId?: string;
      requestId?: string;
      status?: number;
    };
    if (!envelope.error || typeof envelope.error.code !== 'string') {
      return new ToolgateError(
        { code: 'UNEXPECTED_RESPONSE', message: `HTTP ${status}: ${JSON.stringify(body)?.slice(0, 500)}` },
        { status },
      );
    }
    return new ToolgateError(envelope.error, {
      status: status ?? envelope.status,
      callId: envelope.callId,
      requestId: envelope.requestId,
    });
  }
}

/** The call waits for an operator's approval (HTTP 202): fetch `resultUrl` once it is decided. */
export class ApprovalPending extends ToolgateError {
  readonly resultUrl?: string;
  constructor(body: { callId?: string; message?: string; resultUrl?: string }) {
    super(
      { code: 'APPROVAL_PENDING', message: body.message ?? "The call waits for an operator's approval" },
      { status: 202, callId: body.callId },
    );
    this.name = 'ApprovalPending';
    this.resultUrl = body.resultUrl;
  }
}
