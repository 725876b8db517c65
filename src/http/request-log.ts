// One log line per request: request id, method, route, status, duration, for tool calls the session,
// tool and call id, and with tracing on the trace and span ids. Never tokens, keys or bodies (the
// authorization header is redacted).
import type { FastifyInstance } from 'fastify';

export interface CallInfo {
  sessionId: string;
  tool: string;
  callId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    callInfo: CallInfo | null;
  }
}

/** `traceFields`, when tracing is on, adds the active span's `traceId`/`spanId` to every line (a mixin). */
export const loggerOptions = (level: string, traceFields?: () => Record<string, string>, pretty = false) => ({
  level,
  redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
  ...(traceFields ? { mixin: traceFields } : {}),
  // A person at a terminal reads lines, a log collector reads JSON (pino-pretty runs in pino's worker).
  ...(pretty
    ? {
        transport: {
          target: 'pino-pretty',
          options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
        },
      }
    : {}),
});

export function registerRequestLog(app: FastifyInstance, logRequests: boolean): void {
  app.decorateRequest('callInfo', null);
  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Without a logger there is nobody to tell: skip building the line for every request.
  if (!logRequests) return;
  app.addHook('onResponse', (request, reply, done) => {
    const principal = request.principal;
    // The request's own span (the mixin may not see it here: the response ends outside the handler).
    const trace = request.traceSpan?.spanContext();
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? request.url.split('?')[0],
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        sessionId:
          request.callInfo?.sessionId ?? (principal?.kind === 'session' ? principal.session.id : undefined),
        tool: request.callInfo?.tool,
        callId: request.callInfo?.callId,
        traceId: trace?.traceId,
        spanId: trace?.spanId,
      },
      'request',
    );
    done();
  });
}
