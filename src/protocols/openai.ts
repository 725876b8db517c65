// OpenAI declarations: the `tools` entries of a Chat Completions request ({type: "function", function}).
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { llmInputSchema } from './llm-schema.js';

export const OpenAiToolSchema = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String(),
    description: Type.String(),
    parameters: Type.Record(Type.String(), Type.Unknown()),
    strict: Type.Optional(Type.Boolean()),
  }),
});

export type OpenAiTool = Static<typeof OpenAiToolSchema>;

// `strict` is left out: strict mode needs every property required and no defaults, which would force a
// model to spell out every optional argument. Non-strict function calling accepts our schemas as they are.
export const openaiDeclaration = ({ tool }: RegisteredTool): OpenAiTool => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: llmInputSchema(tool) },
});
