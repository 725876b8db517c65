// /mcp: the route wiring of the tools over MCP Streamable HTTP (stateless, JSON responses); the protocol
// lives in src/protocols/mcp. A single tools/call takes the fast path (fast-call.ts); everything else gets
// a fresh SDK server and transport per POST (server.ts). Authenticated like every route; only session
// tokens, since an MCP client acts as one session.
// GET /mcp opens the server-to-client SSE stream, which carries notifications/tools/list_changed whenever
// the operator enables or disables a tool or category, or a tool folder is loaded, changed or removed.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toolgateError } from '../lib/errors.js';
import { clientGoneHook, turnOf } from '../http/call-response.js';
import { openEventStream, wantsEventStream, type EventStream } from '../http/sse.js';
import { fastToolCall, runFastToolCall } from '../protocols/mcp/fast-call.js';
import { handleMcpRequest, type McpHttpAnswer } from '../protocols/mcp/server.js';
import type { SessionRecord } from '../store/sessions.js';
import {
  mcpBearerChallenge,
  mcpResourceMetadata,
  RESOURCE_METADATA_PATH,
  ResourceMetadataSchema,
  SESSION_TOKEN_REQUIRED,
} from '../http/bearer-challenge.js';

/** Every /mcp route: a 401 says a session token is needed, the MCP authorization spec's way. */
const MCP_AUTH = {
  bearerChallenge: mcpBearerChallenge,
  missingTokenMessage: `Missing bearer token: ${SESSION_TOKEN_REQUIRED}`,
};

const LIST_CHANGED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

function sessionOf(request: FastifyRequest): SessionRecord {
  const principal = request.principal;
  if (principal?.kind !== 'session') {
    throw toolgateError('PERMISSION_DENIED', 'The MCP endpoint needs a session token, not the admin key', {
      suggestion: 'Create a session with POST /v1/sessions and configure its token in the MCP client.',
    });
  }
  return principal.session;
}

/** The Fastify request as a web Request; the body was already parsed and is handed over separately. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

function sendAnswer(reply: FastifyReply, answer: McpHttpAnswer) {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  return reply.send(answer.body);
}

export default async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const { registry, pipeline, switches } = app.services;
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  app.post(
    '/mcp',
    {
      config: MCP_AUTH,
      schema: {
        operationId: 'mcp',
        tags: ['mcp'],
        summary: 'MCP Streamable HTTP endpoint (JSON-RPC; session token required)',
        description:
          'Point an MCP client here with "Authorization: Bearer <session token>". tools/list shows the ' +
          "session's tools; tools/call runs them with the same permissions, limits and audit as REST.",
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const fast = fastToolCall(request.headers, request.body);
      if (fast) {
        const body = await runFastToolCall(pipeline, session, fast, clientGoneHook(reply), turnOf(request));
        return reply.code(200).type('application/json').send(body);
      }
      const answer = await handleMcpRequest(
        { registry, pipeline, switches, jsonSchemaValidator, services: app.services },
        session,
        webRequest(request),
        request.body,
      );
      return sendAnswer(reply, answer);
    },
  );

  // RFC 9728 metadata of the /mcp resource (at the path with the resource appended, and at the bare
  // well-known path that clients of older drafts ask): public, as the spec has it.
  for (const url of [`${RESOURCE_METADATA_PATH}/mcp`, RESOURCE_METADATA_PATH]) {
    app.get(
      url,
      {
        config: { access: 'public' },
        schema: {
          operationId: url.endsWith('/mcp') ? 'mcpResourceMetadata' : 'resourceMetadata',
          tags: ['mcp'],
          summary: 'OAuth protected-resource metadata of /mcp (RFC 9728): no authorization server',
          description:
            'Names no authorization server: toolgate issues its own session tokens (POST /v1/sessions). ' +
            'MCP clients read it after a 401 from /mcp, whose WWW-Authenticate points here.',
          response: { 200: ResourceMetadataSchema },
        },
      },
      async (request) => mcpResourceMetadata(request),
    );
  }

  // A notification stream never ends by itself: close them all when the app closes.
  const open = new Set<EventStream>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.close();
  });

  // Stateless: no session to end (DELETE); GET without Accept: text/event-stream has nothing to open.
  const notAllowed = async (request: FastifyRequest) => {
    sessionOf(request);
    throw toolgateError(
      'METHOD_NOT_ALLOWED',
      `${request.method} /mcp is not supported; POST JSON-RPC messages (GET only with Accept: text/event-stream)`,
      {
        headers: { allow: 'GET, POST' },
      },
    );
  };
  app.get(
    '/mcp',
    {
      config: MCP_AUTH,
      schema: {
        operationId: 'mcpStream',
        tags: ['mcp'],
        summary: 'MCP server-to-client stream (SSE; session token required)',
        description:
          'With "Accept: text/event-stream": an event stream that stays open and carries ' +
          'notifications/tools/list_changed whenever the tools the session sees change. Without it: 405.',
      },
    },
    async (request, reply) => {
      if (!wantsEventStream(request)) return notAllowed(request);
      sessionOf(request);
      const stream = openEventStream(reply);
      // Sends the headers now: the client's GET completes and it knows the stream is open.
      stream.comment('tools/list_changed notifications');
      // The tools a session sees change with a switch, or a tool folder loaded or removed while running.
      const notify = () => stream.sendJson('message', LIST_CHANGED);
      const unsubscribes = [switches.onChange(notify), registry.onChange(notify)];
      const unsubscribe = () => unsubscribes.forEach((off) => off());
      open.add(stream);
      stream.onClose(() => {
        unsubscribe();
        open.delete(stream);
      });
    },
  );

  app.delete(
    '/mcp',
    {
      config: MCP_AUTH,
      schema: {
        operationId: 'mcpDelete',
        tags: ['mcp'],
        summary: 'Ending an MCP session: not supported (stateless server), always 405',
        description:
          'The server keeps no MCP session (no Mcp-Session-Id), so there is nothing to end; a client ' +
          'that tries is told so with 405 and `Allow: GET, POST`.',
      },
    },
    notAllowed,
  );
}
