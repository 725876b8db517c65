// The body a call's outcome is answered with, the same whichever way it leaves: JSON response, SSE
// `end` event, or a stored approval result. A success is assembled from the once-serialised data.
import type { CallFailure, CallSuccess } from '../engine/types.js';

/** `status` is added where the HTTP status is not otherwise visible (the SSE `end` event). */
export const successEnvelopeJson = (outcome: CallSuccess, status?: number): string =>
  `{"success":true,${status === undefined ? '' : `"status":${status},`}"callId":${JSON.stringify(outcome.callId)},"data":${outcome.dataJson},"metadata":${JSON.stringify(outcome.metadata)}}`;

export const failureEnvelope = (outcome: CallFailure, status?: number) => ({
  success: false as const,
  ...(status === undefined ? {} : { status }),
  callId: outcome.callId,
  error: outcome.error.toBody(),
});
