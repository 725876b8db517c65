// MCP declarations: the `tools/list` result entries, with behaviour hints derived from capabilities.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../../contract/registry.js';
import { isReadOnly } from '../../contract/tool.js';
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
});

export type McpTool = Static<typeof McpToolSchema>;

/** "read_file" → "Read file": the human-facing title MCP clients show. */
const titleOf = (name: string) => {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export function mcpDeclaration({ tool }: RegisteredTool): McpTool {
  const title = titleOf(tool.name);
  const readOnly = isReadOnly(tool.capabilities);
  const outputSchema = objectOutputSchema(tool);
  return {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: llmInputSchema(tool),
    ...(outputSchema ? { outputSchema } : {}),
    annotations: {
      title,
      readOnlyHint: readOnly,
      // MCP reads destructive/idempotent as meaningful only for tools that modify their environment.
      destructiveHint: !readOnly && tool.capabilities.destructive === true,
      idempotentHint: tool.capabilities.idempotent === true,
      // Only tools that reach the network interact with an open world; the workspace is a closed one.
      openWorldHint: tool.capabilities.network === true,
    },
  };
}
