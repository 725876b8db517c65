// The built-in tools as the OpenAPI document publishes them (one `call_<name>` operation per tool under
// /v1/sessions/{id}/tools/<name>): what the client SDK generators turn into typed methods. Reading the
// document, not the registry, keeps the clients equal to what a server publishes; a tool added to the
// service reaches both clients with `npm run openapi`, no hand edit.

/** A JSON Schema as the document holds it (only what the generators read). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
  default?: unknown;
}

export interface ToolOperation {
  name: string;
  operationId: string;
  category: string;
  summary: string;
  description: string;
  input: JsonSchema;
  data: JsonSchema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
}

const TOOL_PATH = /^\/v1\/sessions\/\{id\}\/tools\/([a-z][a-z0-9_]*)$/;

/** Every tool operation of the document, in the document's order (the registry's). */
export function toolOperations(document: OpenApiDocument): ToolOperation[] {
  const tools: ToolOperation[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    const name = TOOL_PATH.exec(path)?.[1];
    const post = operations.post;
    if (!name || !post || post.operationId !== `call_${name}`) continue;
    const success = post.responses['200']?.content?.['application/json']?.schema;
    tools.push({
      name,
      operationId: post.operationId,
      category: post.tags?.[0] ?? 'tools',
      summary: post.summary ?? name,
      description: post.description ?? post.summary ?? '',
      input: post.requestBody?.content['application/json']?.schema ?? { type: 'object', properties: {} },
      data: success?.properties?.data ?? {},
    });
  }
  return tools;
}
