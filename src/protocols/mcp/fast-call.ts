// The hot path of the MCP endpoint: one JSON-RPC `tools/call` request, answered as JSON. Agents send
// this far more than anything else, and building the SDK's server and web-standard transport for each
// one cost about 1.7× a REST call. This recognises exactly that message, under exactly the conditions in
// which the SDK transport would answer it with a plain JSON response (it accepts JSON and SSE, sends
// JSON, speaks a supported protocol version, asks for no progress notifications), and runs it through
// the same pipeline and the same result mapping. Anything else (initialize, tools/list, notifications,
// batches, malformed messages) goes to the SDK, which stays the reference for the protocol.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { Pipeline } from '../../engine/pipeline.js';
import type { SessionRecord } from '../../store/sessions.js';
import type { CancelSignal } from '../../lib/cancellation.js';
import { isJsonObject } from '../../lib/json.js';
import { callToolResultJson, runToolCall } from './call-result.js';

export interface FastToolCall {
  readonly id: string | number;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** The call, when this request is one the fast path answers exactly as the SDK would; else undefined. */
export function fastToolCall(headers: IncomingHttpHeaders, body: unknown): FastToolCall | undefined {
  const accept = header(headers, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const contentType = (header(headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') return undefined;
  const version = header(headers, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (!isJsonObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return undefined;
  if (!isJsonObject(params) || typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isJsonObject(params.arguments)) return undefined;
  // Progress notifications need the SDK's stream handling.
  if (params._meta !== undefined) return undefined;
  if (Object.keys(body).some((key) => !['jsonrpc', 'id', 'method', 'params'].includes(key))) return undefined;
  return { id, name: params.name, arguments: params.arguments ?? {} };
}

/** Runs the call (see runToolCall) and returns the JSON-RPC response body, as JSON. */
export async function runFastToolCall(
  pipeline: Pipeline,
  session: SessionRecord,
  call: FastToolCall,
  signal: CancelSignal,
  turn?: string,
): Promise<string> {
  const outcome = await runToolCall(pipeline, session, call.name, call.arguments, signal, turn);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":${callToolResultJson(outcome)}}`;
}
