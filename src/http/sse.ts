// Server-Sent Events: a hijacked response with heartbeat comments, used by the activity stream and by
// tool calls sent with "Accept: text/event-stream" (start, output…, end with the result envelope).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { failureEnvelope, successEnvelopeJson } from '../lib/envelope.js';
import { newCallId } from '../lib/call-id.js';
import type { CallOutcome, CallRequest } from '../contract/call.js';

export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface EventStream {
  send(event: string, data: unknown, id?: number): void;
  /** As send, with data already serialised as JSON. */
  sendJson(event: string, json: string, id?: number): void;
  comment(text: string): void;
  close(): void;
  /** Fires once when the client goes away or the stream is closed. */
  onClose(listener: () => void): void;
}

export const wantsEventStream = (request: FastifyRequest): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes('text/event-stream');

export function openEventStream(reply: FastifyReply, heartbeatMs = DEFAULT_HEARTBEAT_MS): EventStream {
  reply.hijack();
  const raw = reply.raw;
  // Headers hooks already set on the reply (request id, rate limits…) still go out.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Proxies such as nginx would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  const listeners: Array<() => void> = [];
  let closed = false;
  const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
  const shut = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const listener of listeners) listener();
  };
  raw.once('close', shut);
  function write(text: string) {
    if (!closed && !raw.destroyed) raw.write(text);
  }
  return {
    send(event, data, id) {
      this.sendJson(event, JSON.stringify(data), id);
    },
    sendJson(event, json, id) {
      // JSON never contains a raw newline, so one data line always carries the whole payload.
      write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${json}\n\n`);
    },
    comment: (text) => write(`: ${text.replace(/\n/g, ' ')}\n\n`),
    close() {
      shut();
      raw.end();
    },
    onClose: (listener) => listeners.push(listener),
  };
}

export interface CallStream {
  /** Spread into the CallRequest: the call id announced in `start` and the output sink. */
  callOptions: Pick<CallRequest, 'callId' | 'onOutput'>;
  /** Sends `end` with the same envelope a JSON response would carry (plus its HTTP status) and closes. */
  end(outcome: CallOutcome): void;
}

/** Starts the event stream of one tool call: `start` at once, `output` per chunk, `end` with the result. */
export function openCallStream(reply: FastifyReply, sessionId: string, tool: string): CallStream {
  const stream = openEventStream(reply);
  const callId = newCallId();
  stream.send('start', { callId, tool, sessionId });
  return {
    callOptions: { callId, onOutput: (chunk) => stream.send('output', chunk) },
    end(outcome) {
      if (outcome.ok) stream.sendJson('end', successEnvelopeJson(outcome, 200));
      else
        stream.send(
          'end',
          failureEnvelope(outcome.error, { status: outcome.error.statusCode, callId: outcome.callId }),
        );
      stream.close();
    },
  };
}
