// Request spans when tracing is on: the agent's W3C `traceparent`/`tracestate` become the parent of a
// server span per API request, in force while its handler runs, so every tool call it makes (REST, each
// call of a batch, MCP tools/call) is a child of it. With tracing off only a null field is added.
import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Tracing } from '../ops/trace.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's server span (null when tracing is off or the route is not traced). */
    traceSpan: Span | null;
    /** The context the handler runs in: the agent's, with traceSpan as the active span. */
    traceContext: Context | null;
  }
}

/** The API is traced; probes, metrics, docs and the long-lived event stream are not. */
const isTraced = (url: string): boolean =>
  (url.startsWith('/v1/') && !url.endsWith('/events')) || url === '/mcp';

/** `traceId`/`spanId` of the span in force, for a pino mixin: every log line inside a call carries them. */
export function activeTraceFields(tracing: Tracing | undefined): Record<string, string> {
  const span = tracing ? trace.getSpan(tracing.active()) : undefined;
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

export function registerRequestTrace(app: FastifyInstance, tracing: Tracing | undefined): void {
  app.decorateRequest('traceSpan', null);
  app.decorateRequest('traceContext', null);
  if (!tracing) return;

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !isTraced(route)) return done();
    const parent = tracing.extract(request.headers);
    const span = tracing.tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'toolgate.request.id': request.id,
        },
      },
      parent,
    );
    request.traceSpan = span;
    request.traceContext = trace.setSpan(parent, span);
    done();
  });

  // The handler (and all it awaits) runs with the request's context in force.
  app.addHook('onRoute', (route) => {
    if (!isTraced(route.url)) return;
    const handler = route.handler;
    const traced: RouteHandlerMethod = function (this: FastifyInstance, request, reply) {
      const context = request.traceContext;
      return context
        ? tracing.with(context, () => handler.call(this, request, reply))
        : handler.call(this, request, reply);
    };
    route.handler = traced;
  });

  // Ended once: a request may be aborted and then answered, or the other way round.
  const end = (span: Span | null, finish: (span: Span) => void) => {
    if (span?.isRecording()) {
      finish(span);
      span.end();
    }
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request.traceSpan, (span) => {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    });
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request.traceSpan, (span) =>
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'client went away' }),
    );
    done();
  });
}
