// The one envelope module: every body a client sees for a success, a failure or a parked call, with the
// members each way out adds (status on SSE, requestId on HTTP, callId when there was a call) and in the
// key order clients have always seen. The success is a string around the once-serialised data.
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import {
  failureEnvelope,
  outcomeMembers,
  pendingEnvelope,
  storedEnvelope,
  successEnvelopeJson,
} from '../../src/lib/envelope.js';
import { toolgateError } from '../../src/lib/errors.js';
import { ErrorEnvelopeSchema, PendingCallSchema } from '../../src/http/schemas.js';

const notFound = toolgateError('FILE_NOT_FOUND', 'No such file or directory: a.txt', {
  suggestion: 'List the directory first.',
});

describe('envelope', () => {
  it('writes a success around the data JSON as given, with status only when asked', () => {
    const parts = { callId: 'call_1', dataJson: '{"b":1,"a":[1,2]}', metadata: { tool: 'read_file' } };
    expect(successEnvelopeJson(parts)).toBe(
      '{"success":true,"callId":"call_1","data":{"b":1,"a":[1,2]},"metadata":{"tool":"read_file"}}',
    );
    expect(JSON.parse(successEnvelopeJson(parts, 200))).toEqual({
      success: true,
      status: 200,
      callId: 'call_1',
      data: { b: 1, a: [1, 2] },
      metadata: { tool: 'read_file' },
    });
  });

  it('writes a failure with only the members its way out has, in one key order', () => {
    const http = failureEnvelope(notFound, { callId: 'call_2', requestId: 'req-1' });
    expect(Object.keys(http)).toEqual(['success', 'callId', 'requestId', 'error']);
    expect(Value.Check(ErrorEnvelopeSchema, http)).toBe(true);
    expect(http.error).toEqual({
      code: 'FILE_NOT_FOUND',
      type: 'user_error',
      message: 'No such file or directory: a.txt',
      suggestion: 'List the directory first.',
    });
    expect(Object.keys(failureEnvelope(notFound, { status: 404, callId: 'c' }))).toEqual([
      'success',
      'status',
      'callId',
      'error',
    ]);
    // A stored failure (an approval's result) has no request yet; an expiry has no call either.
    expect(failureEnvelope(notFound.toBody())).toEqual({ success: false, error: notFound.toBody() });
  });

  it('gives a stored failure the requestId of the request that reads it, and leaves a success alone', () => {
    const stored = failureEnvelope(notFound, { callId: 'call_3' });
    const answered = storedEnvelope(JSON.parse(JSON.stringify(stored)), 'req-2');
    expect(answered).toEqual({ ...stored, requestId: 'req-2' });
    expect(Value.Check(ErrorEnvelopeSchema, answered)).toBe(true);
    const success = { success: true, callId: 'call_4', data: {} };
    expect(storedEnvelope(success, 'req-3')).toBe(success);
  });

  it('writes the pending body, with the message and result URL of a freshly parked call', () => {
    const polled = pendingEnvelope('call_5', 'running', '2026-01-01T00:00:00.000Z');
    expect(polled).toEqual({
      success: true,
      pending: true,
      status: 'running',
      callId: 'call_5',
      expiresAt: '2026-01-01T00:00:00.000Z',
    });
    const parked = pendingEnvelope('call_6', 'pending_approval', '2026-01-01T00:00:00.000Z', {
      message: 'Waits for an operator',
      resultUrl: '/v1/sessions/s/calls/call_6',
    });
    expect(Value.Check(PendingCallSchema, parked)).toBe(true);
    expect(parked).toMatchObject({
      message: 'Waits for an operator',
      resultUrl: '/v1/sessions/s/calls/call_6',
    });
  });

  it('gives a batch result its call id, success flag and data or error', () => {
    expect(outcomeMembers({ ok: true, callId: 'c1', data: { n: 1 } })).toEqual({
      callId: 'c1',
      success: true,
      data: { n: 1 },
    });
    expect(outcomeMembers({ ok: false, callId: 'c2', error: notFound })).toEqual({
      callId: 'c2',
      success: false,
      error: notFound.toBody(),
    });
  });
});
