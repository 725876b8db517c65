// A batch as the engine runs it: the calls read from a body (in whichever wire format, see
// src/protocols/batch.ts) and each call's outcome, to be answered in the format it came in.
import type { ToolgateError } from '../../lib/errors.js';
import type { CallOutcome } from '../../contract/call.js';

export type BatchFormat = 'toolgate' | 'openai' | 'openai-responses' | 'anthropic' | 'gemini';

export interface BatchCall {
  /** The caller's id for the call (tool_call_id, tool_use_id, Gemini's call id, or the toolgate call's). */
  id?: string;
  name: string;
  arguments: unknown;
  /** Size of this call's arguments as sent, for the audit log. */
  bytesIn: number;
  /** Set when the arguments could not be read: the call is answered with this error and not run. */
  argumentsError?: ToolgateError;
  /** Position of the body's item this call came from (one item may become several calls). */
  item?: number;
  /**
   * What the model called when that is not our tool by name (a vendor's built-in tool, e.g.
   * "anthropic:str_replace_based_edit_tool.view"): recorded in the call's audit row.
   */
  wireTool?: string;
  /** Answered with this text without running any tool (e.g. restarting a shell that keeps no state). */
  reply?: string;
  /** Run instead when the call fails with one of `codes` (e.g. list_directory when the path of a view is a directory). */
  orElse?: { codes: readonly string[]; name: string; arguments: unknown };
}

export interface ParsedBatch {
  format: BatchFormat;
  calls: BatchCall[];
  /** The body's tool-call items the calls came from (a call's `item` indexes them), for the answer. */
  items?: readonly unknown[];
  /** The body as sent: what else a format's answer depends on (Anthropic's tool definitions). */
  body?: unknown;
}

export interface BatchResult {
  call: BatchCall;
  outcome: CallOutcome;
}
