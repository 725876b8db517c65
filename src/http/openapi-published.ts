// The OpenAPI document as clients see it, made from what @fastify/swagger derives from the route
// schemas: a request field with a default is optional (the server fills it in; a generated client must
// not force callers to send it), tool operations carry their tools' examples, and the document says where
// it is served (relative to itself), under which license, and what every operation may answer.
import type { AnyTool } from '../contract/tool.js';
import { isJsonObject, type JsonObject } from '../lib/json.js';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** A copy of a request schema where no property that has a default is listed as required. */
export function defaultsOptional(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(defaultsOptional);
  if (!isJsonObject(schema)) return schema;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = defaultsOptional(value);
  const properties = copy.properties;
  if (Array.isArray(copy.required) && isJsonObject(properties)) {
    const required = copy.required.filter(
      (name) =>
        !(
          isJsonObject(properties[name as string]) && 'default' in (properties[name as string] as JsonObject)
        ),
    );
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  return copy;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

/** A body the MCP SDK writes itself (a JSON-RPC response or error object), not serialised by Fastify. */
const jsonRpcResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
});

/** What a public route without input can answer besides 200: a bad URL, or a Host/Origin of another site. */
const HOST_AND_URL = {
  400: errorResponse('The URL is not valid'),
  403: errorResponse('The Host or Origin header names another site (HOST_NOT_ALLOWED, ORIGIN_NOT_ALLOWED)'),
};

/** Responses of routes whose replies are not described by a Fastify response schema. */
const EXTRA_RESPONSES: Record<string, JsonObject> = {
  mcp: {
    200: jsonRpcResponse('A JSON-RPC response (or a batch of them)'),
    202: { description: 'A JSON-RPC notification or response was accepted; no body' },
    400: jsonRpcResponse('A malformed JSON-RPC message: a JSON-RPC error object'),
    401: errorResponse(
      'No or invalid session token; WWW-Authenticate carries error, error_description and resource_metadata',
    ),
    403: errorResponse('An admin key (MCP needs a session token), or a Host/Origin of another site'),
    406: jsonRpcResponse('The client does not accept both application/json and text/event-stream'),
    415: jsonRpcResponse('The body is not application/json'),
    429: errorResponse('Rate limited'),
  },
  mcpStream: {
    200: {
      description:
        'The server-to-client event stream (stays open; JSON-RPC notifications as `message` events)',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    401: errorResponse('No or invalid session token'),
    403: errorResponse('An admin key (MCP needs a session token), or a Host/Origin of another site'),
    405: errorResponse('No `Accept: text/event-stream`: there is nothing else to GET'),
    429: errorResponse('Rate limited'),
  },
  mcpDelete: {
    401: errorResponse('No or invalid session token'),
    403: errorResponse('An admin key (MCP needs a session token), or a Host/Origin of another site'),
    405: errorResponse('Stateless: there is no MCP session to end'),
    429: errorResponse('Rate limited'),
  },
  // Public and without input: a URL that is not valid percent-encoding, or a request for another site's
  // name, is all a client can get wrong.
  health: HOST_AND_URL,
  ready: HOST_AND_URL,
  mcpResourceMetadata: HOST_AND_URL,
  resourceMetadata: HOST_AND_URL,
  getConfigSchema: HOST_AND_URL,
};

export interface PublishOptions {
  readonly tools: readonly AnyTool[];
  readonly license: { name: string; url: string };
}

export function publishDocument(document: JsonObject, options: PublishOptions): JsonObject {
  const examples = new Map(options.tools.map((tool) => [`call_${tool.name}`, tool.examples ?? []]));
  const paths = wildcardsNamed(isJsonObject(document.paths) ? document.paths : {});
  for (const operations of Object.values(paths)) {
    if (!isJsonObject(operations)) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (!HTTP_METHODS.has(method) || !isJsonObject(operation)) continue;
      publishOperation(operation, examples);
    }
  }
  const info = isJsonObject(document.info) ? document.info : {};
  return {
    ...document,
    info: {
      ...info,
      license: options.license,
      contact: { name: 'toolgate maintainers' },
    },
    // Relative: a client resolves it against the document's own URL (OpenAPI 3.1, 4.8.5), so Swagger UI
    // and generated clients call the service that served the document, on whatever port, host or proxy.
    servers: [{ url: '/', description: 'The service that serves this document' }],
    paths,
  };
}

/** A wildcard route (`/files/*`, a workspace path with slashes) as a named path parameter `{path}`. */
function wildcardsNamed(paths: JsonObject): JsonObject {
  const named: JsonObject = {};
  for (const [route, operations] of Object.entries(paths)) {
    if (!route.endsWith('/{*}') || !isJsonObject(operations)) {
      named[route] = operations;
      continue;
    }
    for (const operation of Object.values(operations)) {
      if (!isJsonObject(operation)) continue;
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
      operation.parameters = [
        ...parameters,
        {
          in: 'path',
          name: 'path',
          required: true,
          description: 'Workspace-relative file path; may contain slashes (percent-decoded once)',
          schema: { type: 'string', minLength: 1 },
        },
      ];
    }
    named[`${route.slice(0, -4)}/{path}`] = operations;
  }
  return named;
}

function publishOperation(operation: JsonObject, examples: Map<string, unknown[]>): void {
  const operationId = typeof operation.operationId === 'string' ? operation.operationId : '';
  const body = isJsonObject(operation.requestBody) ? operation.requestBody : undefined;
  const content = body && isJsonObject(body.content) ? body.content : {};
  for (const media of Object.values(content)) {
    if (!isJsonObject(media)) continue;
    media.schema = defaultsOptional(media.schema);
    const toolExamples = examples.get(operationId);
    if (toolExamples?.length) {
      media.examples = Object.fromEntries(
        toolExamples.map((value, i) => [`example${i + 1}`, { summary: `Example ${i + 1}`, value }]),
      );
    }
  }
  if (Array.isArray(operation.parameters)) {
    for (const parameter of operation.parameters) {
      if (isJsonObject(parameter) && isJsonObject(parameter.schema) && 'default' in parameter.schema) {
        parameter.required = false;
      }
    }
  }
  const extra = EXTRA_RESPONSES[operationId];
  if (extra)
    operation.responses = { ...(isJsonObject(operation.responses) ? operation.responses : {}), ...extra };
}
