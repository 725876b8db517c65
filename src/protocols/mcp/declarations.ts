// MCP declarations: the `tools/list` result entries, with behaviour hints derived from capabilities.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../../contract/registry.js';
import { isReadOnly, titleOf } from '../../contract/tool.js';
import { llmInputSchema, objectOutputSchema } from '../llm-schema.js';

const ObjectSchemaSchema = Type.Object({
  type: Type.Literal('object'),
  properties: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
  required: Type.Optional(Type.Array(Type.String())),
});

export const McpToolSchema = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  inputSchema: ObjectSchemaSchema,
  outputSchema: Type.Optional(ObjectSchemaSchema),
  annotations: Type.Object({
    title: Type.String(),
    readOnlyHint: Type.Boolean(),
    destructiveHint: Type.Boolean(),
    idempotentHint: Type.Boolean(),
    openWorldHint: Type.Boolean(),
  }),
  _meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export type McpTool = Static<typeof McpToolSchema>;

/** The hints MCP assumes for a tool that gives none (MCP spec, ToolAnnotations). */
const MCP_DEFAULT_HINTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** Hints from what toolgate enforces: the tool's capabilities. */
function hintsOf(tool: RegisteredTool['tool']) {
  const readOnly = isReadOnly(tool.capabilities);
  return {
    readOnlyHint: readOnly,
    // MCP reads destructive/idempotent as meaningful only for tools that modify their environment.
    destructiveHint: !readOnly && tool.capabilities.destructive === true,
    idempotentHint: tool.capabilities.idempotent === true,
    // Only tools that reach the network interact with an open world; the workspace is a closed one.
    openWorldHint: tool.capabilities.network === true,
  };
}

export function mcpDeclaration({ tool }: RegisteredTool): McpTool {
  const title = tool.title ?? titleOf(tool.name);
  const outputSchema = objectOutputSchema(tool);
  // A tool from an MCP server keeps the hints its server gave (a missing one means MCP's default);
  // every other tool's hints are its capabilities.
  const upstream = tool.mcp?.annotations;
  const hints = upstream ? { ...MCP_DEFAULT_HINTS, ...upstream } : hintsOf(tool);
  return {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: llmInputSchema(tool),
    ...(outputSchema ? { outputSchema } : {}),
    annotations: { title, ...hints },
    ...(tool.mcp?.meta ? { _meta: tool.mcp.meta } : {}),
  };
}
