// One call through each entry format, and its answer read back into one shape (CallResult) that the
// expectations check: REST and the toolgate batch carry data and the error body; MCP carries the data as
// structuredContent and the error in _meta; the LLM formats (OpenAI, Anthropic, Gemini) carry only text,
// whose "Error <CODE>:" prefix gives the code. The status of a batch or MCP call is the one its code
// maps to in the error catalog (200 on success), so one dataset can expect the same status through any.
import { ERROR_CODES, type ErrorCode } from '../lib/errors.js';
import { isJsonObject } from '../lib/json.js';
import type { Via } from './case-schema.js';
import { jsonOf, type EvalTransport } from './transport.js';

export interface CallResult {
  ok: boolean;
  status: number;
  code?: string;
  data?: unknown;
  error?: Record<string, unknown>;
  text?: string;
  durationMs: number;
}

export interface SessionRef {
  id: string;
  token: string;
}

type Answer = Omit<CallResult, 'durationMs'>;

const statusOf = (code: string | undefined): number =>
  code === undefined ? 200 : (ERROR_CODES[code as ErrorCode]?.status ?? 500);

const ERROR_TEXT = /^Error ([A-Z][A-Z0-9_]*):/;

/** An answer given as text only: its error code from the "Error <CODE>:" prefix. */
function fromText(text: string, isError: boolean): Answer {
  const code = isError ? (ERROR_TEXT.exec(text)?.[1] ?? 'UNKNOWN') : undefined;
  return { ok: !isError, status: statusOf(code), ...(code ? { code } : {}), text };
}

/** A non-200 answer to a batch or MCP request: the request itself was refused (auth, body, session). */
function refused(status: number, body: unknown): Answer {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : `HTTP_${status}`;
  return { ok: false, status, code, ...(error ? { error } : {}) };
}

interface Format {
  request(
    session: SessionRef,
    tool: string,
    input: Record<string, unknown>,
  ): {
    url: string;
    body: unknown;
    headers?: Record<string, string>;
  };
  answer(body: unknown): Answer;
}

const batchUrl = (session: SessionRef) => `/v1/sessions/${session.id}/calls`;
const first = (body: unknown, key: string): Record<string, unknown> => {
  const list = isJsonObject(body) ? body[key] : undefined;
  const item: unknown = Array.isArray(list) ? list[0] : undefined;
  return isJsonObject(item) ? item : {};
};

const FORMATS: Record<Exclude<Via, 'rest'>, Format> = {
  toolgate: {
    request: (s, name, input) => ({ url: batchUrl(s), body: { calls: [{ name, arguments: input }] } }),
    answer(body) {
      const result = first(body, 'results');
      const error = isJsonObject(result.error) ? result.error : undefined;
      const code = typeof error?.code === 'string' ? error.code : undefined;
      return {
        ok: result.success === true,
        status: statusOf(code),
        ...(code ? { code, error } : { data: result.data }),
        text: String(result.text ?? ''),
      };
    },
  },
  openai: {
    request: (s, name, input) => ({
      url: batchUrl(s),
      body: {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(input) } },
        ],
      },
    }),
    answer(body) {
      const text = String(first(body, 'messages').content ?? '');
      return fromText(text, ERROR_TEXT.test(text));
    },
  },
  anthropic: {
    request: (s, name, input) => ({
      url: batchUrl(s),
      body: { content: [{ type: 'tool_use', id: 'toolu_1', name, input }] },
    }),
    answer(body) {
      const block = first(body, 'content');
      return fromText(String(block.content ?? ''), block.is_error === true);
    },
  },
  gemini: {
    request: (s, name, input) => ({
      url: batchUrl(s),
      body: { parts: [{ functionCall: { name, args: input } }] },
    }),
    answer(body) {
      const response = (first(body, 'parts').functionResponse as { response?: Record<string, unknown> })
        ?.response;
      const isError = typeof response?.error === 'string';
      return fromText(String(isError ? response?.error : (response?.output ?? '')), isError);
    },
  },
  mcp: {
    request: (_s, name, input) => ({
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: input } },
    }),
    answer(body) {
      const result = isJsonObject(body) && isJsonObject(body.result) ? body.result : {};
      const content = Array.isArray(result.content) ? (result.content[0] as { text?: string }) : undefined;
      const meta = isJsonObject(result._meta) ? result._meta : {};
      const error = isJsonObject(meta['toolgate/error']) ? meta['toolgate/error'] : undefined;
      if (isJsonObject(body) && isJsonObject(body.error)) {
        // A JSON-RPC error (unknown method, bad params): no tool ran.
        return { ok: false, status: 400, code: 'MCP_ERROR', error: body.error };
      }
      const code =
        typeof error?.code === 'string' ? error.code : result.isError === true ? 'UNKNOWN' : undefined;
      return {
        ok: code === undefined,
        status: statusOf(code),
        ...(code ? { code, ...(error ? { error } : {}) } : { data: result.structuredContent }),
        text: content?.text ?? '',
      };
    },
  },
};

/** Sends one call through `via` with the session's token and reads the answer. */
export async function sendCall(
  transport: EvalTransport,
  session: SessionRef,
  call: { tool: string; input: Record<string, unknown>; via: Via },
): Promise<CallResult> {
  const started = performance.now();
  if (call.via === 'rest') {
    const res = await transport.send({
      method: 'POST',
      url: `/v1/sessions/${session.id}/tools/${encodeURIComponent(call.tool)}`,
      token: session.token,
      body: call.input,
    });
    const durationMs = performance.now() - started;
    const body = jsonOf(res);
    if (isJsonObject(body) && body.success === true)
      return { ok: true, status: res.status, data: body.data, durationMs };
    return { ...refused(res.status, body), durationMs };
  }
  const format = FORMATS[call.via];
  const { url, body, headers } = format.request(session, call.tool, call.input);
  const res = await transport.send({
    method: 'POST',
    url,
    token: session.token,
    body,
    ...(headers ? { headers } : {}),
  });
  const durationMs = performance.now() - started;
  const answer = res.status === 200 ? format.answer(jsonOf(res)) : refused(res.status, jsonOf(res));
  return { ...answer, durationMs };
}
