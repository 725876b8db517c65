// A batch as the engine runs it: the calls read from a body (in whichever wire format, see
// src/protocols/batch.ts) and each call's outcome, to be answered in the format it came in.
import type { ToolgateError } from '../../lib/errors.js';
import type { CallOutcome } from '../../contract/call.js';

export type BatchFormat = 'toolgate' | 'openai' | 'anthropic' | 'gemini';

export interface BatchCall {
  /** The caller's id for the call (tool_call_id, tool_use_id, Gemini's call id, or the toolgate call's). */
  id?: string;
  name: string;
  arguments: unknown;
  /** Size of this call's arguments as sent, for the audit log. */
  bytesIn: number;
  /** Set when the arguments could not be read: the call is answered with this error and not run. */
  argumentsError?: ToolgateError;
}

export interface ParsedBatch {
  format: BatchFormat;
  calls: BatchCall[];
}

export interface BatchResult {
  call: BatchCall;
  outcome: CallOutcome;
}
