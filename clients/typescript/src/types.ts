// Types shared by the client's modules: per-call options, and how a tool's input and data are read from
// an openapi-typescript operation (src/openapi.ts), so the generated methods carry the document's types.

/** Options of one call. */
export interface CallOptions {
  /** Sent as Idempotency-Key; one is made per call when omitted, so a retry never runs the tool twice. */
  idempotencyKey?: string;
  /** Aborts the request (the call may still finish on the service). */
  signal?: AbortSignal;
}

/** The JSON body of an operation. */
export type OperationInput<Op> = Op extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : Op extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body
    : Record<string, never>;

/** The `data` of an operation's 200 answer. */
export type OperationData<Op> = Op extends {
  responses: { 200: { content: { 'application/json': { data: infer Data } } } };
}
  ? Data
  : unknown;

/** A tool call's success envelope. */
export interface ToolResult<Data = unknown> {
  success: true;
  callId: string;
  data: Data;
  metadata: Record<string, unknown> & { executionTimeMs: number; tool: string };
}

/** The body of every error answer. */
export interface ErrorBody {
  code: string;
  type: string;
  message: string;
  suggestion?: string;
  details?: Record<string, unknown>;
}

/** One Server-Sent Event of a streamed call: `start`, `output` ({stream, chunk}) … `end` (the envelope). */
export interface StreamEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** The vendor formats of GET /v1/tools?format=… */
export type ToolFormat = 'toolgate' | 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';
