// Anthropic declarations: the `tools` entries of a Messages API request ({name, description, input_schema}).
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { llmInputSchema } from './llm-schema.js';

export const AnthropicToolSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  input_schema: Type.Object({
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), Type.Unknown()),
    required: Type.Optional(Type.Array(Type.String())),
  }),
});

export type AnthropicTool = Static<typeof AnthropicToolSchema>;

export const anthropicDeclaration = ({ tool }: RegisteredTool): AnthropicTool => ({
  name: tool.name,
  description: tool.description,
  input_schema: llmInputSchema(tool),
});
