// The vendor formats of GET /v1/tools?format=…: each answer is `{ tools }`, ready to use as the `tools`
// field of that vendor's request (Gemini's entries are `{ functionDeclarations }` tool groups). OpenAI's
// formats take `strict` (declarations in strict mode's schema subset); the Responses and Anthropic formats
// also list the vendor's built-in tools whose calls toolgate runs (`builtins`).
import { Type } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { anthropicDeclaration, AnthropicToolSchema, type AnthropicTool } from './anthropic.js';
import { anthropicBuiltins, AnthropicBuiltinSchema, type AnthropicBuiltin } from './anthropic-builtin.js';
import { geminiTools, GeminiToolSchema, type GeminiFunctionDeclaration } from './gemini.js';
import { mcpDeclaration, McpToolSchema, type McpTool } from './mcp/declarations.js';
import { openaiDeclaration, openaiStrictDeclaration, OpenAiToolSchema, type OpenAiTool } from './openai.js';
import {
  responsesBuiltins,
  ResponsesBuiltinSchema,
  responsesDeclaration,
  ResponsesToolSchema,
  type ResponsesBuiltin,
  type ResponsesTool,
} from './openai-responses.js';

export const LLM_FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
export type LlmFormat = (typeof LLM_FORMATS)[number];

export type LlmToolList =
  | { tools: OpenAiTool[] }
  | { tools: ResponsesTool[]; builtins: ResponsesBuiltin[] }
  | { tools: AnthropicTool[]; builtins: AnthropicBuiltin[] }
  | { tools: { functionDeclarations: GeminiFunctionDeclaration[] }[] }
  | { tools: McpTool[] };

/** Documents the answers in OpenAPI. */
export const LlmToolListSchema = Type.Object({
  tools: Type.Union([
    Type.Array(OpenAiToolSchema),
    Type.Array(ResponsesToolSchema),
    Type.Array(AnthropicToolSchema),
    Type.Array(GeminiToolSchema),
    Type.Array(McpToolSchema),
  ]),
  builtins: Type.Optional(
    Type.Union([Type.Array(ResponsesBuiltinSchema), Type.Array(AnthropicBuiltinSchema)], {
      description:
        "openai-responses and anthropic: the vendor's built-in tools whose calls toolgate runs, and the tools each maps to",
    }),
  ),
});

export interface LlmListOptions {
  /** OpenAI formats: declarations for strict mode. */
  strict?: boolean;
}

/** Whether a tool is among the listed ones (the built-ins that map to it are listed with it). */
const listed = (entries: RegisteredTool[]) => {
  const names = new Set(entries.map((entry) => entry.tool.name));
  return (name: string) => names.has(name);
};

export function llmToolList(
  format: LlmFormat,
  entries: RegisteredTool[],
  options: LlmListOptions = {},
): LlmToolList {
  const strict = options.strict === true;
  switch (format) {
    case 'openai':
      return { tools: entries.map(strict ? openaiStrictDeclaration : openaiDeclaration) };
    case 'openai-responses':
      return {
        tools: entries.map((entry) => responsesDeclaration(entry, strict)),
        builtins: responsesBuiltins(listed(entries)),
      };
    case 'anthropic':
      return { tools: entries.map(anthropicDeclaration), builtins: anthropicBuiltins(listed(entries)) };
    case 'gemini':
      return { tools: geminiTools(entries) };
    case 'mcp':
      return { tools: entries.map(mcpDeclaration) };
  }
}
