// The messages between the CpuPool and its workers: a job (a function exported by a module, by URL, and
// its input, both structured-cloneable) and its answer.
import type { ErrorCode } from '../lib/errors.js';

export interface CpuRequest {
  id: number;
  /** URL of a module of pure functions (no I/O, no state between jobs). */
  module: string;
  fn: string;
  input: unknown;
}

export type CpuReply =
  | { id: number; ok: true; value: unknown }
  | {
      id: number;
      ok: false;
      /** A ToolgateError's fields when the job threw one; otherwise only a message (a bug). */
      error: { code?: ErrorCode; message: string; suggestion?: string; details?: Record<string, unknown> };
    };
