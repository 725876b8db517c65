// A session's exposed ports and links to them: GET /v1/sessions/{id}/ports (what is exposed, and what
// listens now when the runtime runs) and POST /v1/sessions/{id}/ports/{port}/links (a signed link that
// opens the preview in a browser for N minutes), DELETE /v1/sessions/{id}/exposed-ports/{port} (no longer
// exposed). The previews themselves: routes/previews.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, errorRef, SessionIdParams } from '../http/schemas.js';
import { PreviewLinkSchema, PortsViewSchema, portsView } from '../preview/views.js';
import { portParam } from './previews.js';
import { HOST_LINK_PARAM, previewHost } from '../preview/host-form.js';

export default async function portRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { preview } = app.services;
  app.get(
    '/v1/sessions/:id/ports',
    {
      schema: {
        operationId: 'getSessionPorts',
        tags: ['sessions'],
        summary: "A session's exposed ports",
        description:
          'Whether the session may expose ports, the ports it exposed (by its profile or expose_port) and, when its runtime runs, the ports its processes listen on. Not a tool call: no audit row.',
        params: SessionIdParams,
        response: { 200: PortsViewSchema, ...commonErrors },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      return portsView(preview, app.services.runtimes, session);
    },
  );
  app.delete(
    '/v1/sessions/:id/exposed-ports/:port',
    {
      schema: {
        operationId: 'unexposeSessionPort',
        tags: ['sessions'],
        summary: 'Stop exposing a port',
        description:
          "Takes back what expose_port gave: previews of the port and every link to it are refused from then on (403 PORT_NOT_EXPOSED; other replicas within a second), idle connections into it close. A WebSocket already open stays open. 409 PORT_EXPOSED_BY_POLICY for a port the session's profile exposes. Answers the session's ports as they are now.",
        params: Type.Object({
          id: SessionIdParams.properties.id,
          port: Type.String({ pattern: '^[0-9]{1,5}$' }),
        }),
        response: { 200: PortsViewSchema, ...commonErrors, 409: errorRef },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      await preview.unexpose(session, portParam(request.params.port));
      return portsView(preview, app.services.runtimes, session);
    },
  );
  app.post(
    '/v1/sessions/:id/ports/:port/links',
    {
      schema: {
        operationId: 'createPreviewLink',
        tags: ['sessions'],
        summary: 'A signed, expiring link to an exposed port',
        description:
          "A URL that opens the port's preview in a browser without a token header: /v1/previews/{token}/, valid `minutes` (config preview.linkMinutes by default, at most preview.maxLinkMinutes). 403 PORT_NOT_EXPOSED until the session exposed the port.",
        params: Type.Object({
          id: SessionIdParams.properties.id,
          port: Type.String({ pattern: '^[0-9]{1,5}$' }),
        }),
        body: Type.Optional(
          Type.Object(
            {
              minutes: Type.Optional(
                Type.Integer({ minimum: 1, maximum: 10_080, description: 'how long the link lasts' }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 201: PreviewLinkSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const link = await preview.link(session, portParam(request.params.port), request.body?.minutes);
      reply.code(201);
      const host = previewHost(
        session.id,
        link.port,
        app.services.config.preview.domain,
        /:(\d{1,5})$/.exec(request.host)?.[1],
      );
      return {
        ...link,
        url: `${request.protocol}://${request.host}${link.path}`,
        ...(host ? { hostUrl: `${request.protocol}://${host}/?${HOST_LINK_PARAM}=${link.token}` } : {}),
      };
    },
  );
}
