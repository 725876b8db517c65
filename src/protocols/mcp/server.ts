// The MCP server one session sees: tools/list shows the tools its permissions allow, tools/call runs
// through the shared pipeline (entry point "mcp"), so permissions, limits and audit apply as for REST;
// the workspace's files are its resources (see resources.ts). handleMcpRequest answers one POST of the
// Streamable HTTP transport (stateless, JSON responses) with a fresh server and transport.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { mcpDeclaration } from './declarations.js';
import type { Pipeline } from '../../engine/pipeline.js';
import { toolAccess } from '../../policies/permissions/permissions.js';
import type { ToolRegistry } from '../../contract/registry.js';
import type { ToolSwitches } from '../../policies/tool-switches/service.js';
import type { SessionRecord } from '../../store/sessions.js';
import { callToolResult, runToolCall } from './call-result.js';
import { listResources, readResource, type ResourceServices } from './resources.js';

export interface McpDeps {
  registry: ToolRegistry;
  pipeline: Pipeline;
  switches: ToolSwitches;
  /** Shared across requests: the SDK otherwise builds a new Ajv for every server, most of a request's CPU. */
  jsonSchemaValidator: jsonSchemaValidator;
  /** For the workspace files as resources (the runtime, limits, audit). */
  services: ResourceServices;
}

const INSTRUCTIONS =
  'toolgate gives you a sandboxed workspace (a directory of files) and tools to read, search, edit and ' +
  'run commands in it. Paths are relative to the workspace root. Failed calls explain what to change.';

const turnHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

export function createMcpServer(deps: McpDeps, session: SessionRecord): Server {
  const server = new Server(
    { name: 'toolgate', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: deps.jsonSchemaValidator,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: deps.registry
      .list()
      .filter((entry) => deps.switches.isEnabled(entry.tool) && toolAccess(session, entry).allowed)
      .map(mcpDeclaration),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    callToolResult(
      await runToolCall(
        deps.pipeline,
        session,
        request.params.name,
        request.params.arguments ?? {},
        extra.signal,
        turnHeader(extra.requestInfo?.headers['x-toolgate-turn']),
      ),
    ),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => listResources(deps.services, session));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    readResource(deps.services, session, request.params.uri),
  );
  return server;
}

/** What the transport answered, read in full before the transport closes. */
export interface McpHttpAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** One POST to the endpoint (any JSON-RPC message or batch), answered as the SDK's transport does. */
export async function handleMcpRequest(
  deps: McpDeps,
  session: SessionRecord,
  request: Request,
  parsedBody: unknown,
): Promise<McpHttpAnswer> {
  const server = createMcpServer(deps, session);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    return { status: response.status, headers: response.headers, body: await response.text() };
  } finally {
    await transport.close();
    await server.close();
  }
}
