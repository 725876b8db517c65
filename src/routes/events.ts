// GET /v1/sessions/{id}/events: the session's activity as Server-Sent Events (tool_call_start,
// tool_output_chunk, tool_call_end, error) from every entry point, with heartbeats and Last-Event-ID resume.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, SessionIdParams } from '../http/schemas.js';
import { DEFAULT_HEARTBEAT_MS, openEventStream, type EventStream } from '../http/sse.js';

const Query = Type.Object({
  heartbeat_ms: Type.Integer({
    minimum: 1000,
    maximum: 60_000,
    default: DEFAULT_HEARTBEAT_MS,
    description: 'Interval of heartbeat comments that keep proxies from closing an idle stream',
  }),
  last_event_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'Resume after this event id (for clients that cannot set Last-Event-ID)',
    }),
  ),
});

function lastEventId(header: string | string[] | undefined, query: number | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const parsed = value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value) : undefined;
  return parsed ?? query;
}

export default async function eventRoutes(app: FastifyInstance): Promise<void> {
  const { events } = app.services;
  // An activity stream never ends by itself: close them all when the app closes, or close() would wait
  // for the clients forever.
  const open = new Set<EventStream>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.close();
  });
  app.get<{ Params: { id: string }; Querystring: { heartbeat_ms: number; last_event_id?: number } }>(
    '/v1/sessions/:id/events',
    {
      schema: {
        operationId: 'sessionEvents',
        tags: ['sessions'],
        summary: 'Activity stream of a session (Server-Sent Events)',
        description:
          'Events: tool_call_start (with the caller and the redacted input summary), tool_output_chunk, ' +
          'tool_call_end, error, network_connection (one per egress connection when it ends or is refused: ' +
          'host, port, address, via, decision, reason, bytesUp, bytesDown, durationMs); each with an id. ' +
          'Reconnect with Last-Event-ID to receive the events missed since (from a bounded buffer).',
        params: SessionIdParams,
        querystring: Query,
        response: {
          200: Type.String({
            description: 'text/event-stream: "id", "event" and a JSON "data" line per event',
          }),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const after = lastEventId(request.headers['last-event-id'], request.query.last_event_id);
      const stream = openEventStream(reply, request.query.heartbeat_ms);
      // The padding comment makes some clients (and proxies) deliver the stream's start at once.
      stream.comment(`connected to session ${session.id}`);
      const oldest = events.oldestId(session.id);
      if (after !== undefined && oldest !== undefined && oldest > after + 1) {
        stream.comment(`events ${after + 1} to ${oldest - 1} are no longer buffered`);
      }
      const unsubscribe = events.subscribe(
        session.id,
        (event) => stream.send(event.type, event.data, event.id),
        after,
      );
      open.add(stream);
      stream.onClose(() => {
        unsubscribe();
        open.delete(stream);
      });
    },
  );
}
