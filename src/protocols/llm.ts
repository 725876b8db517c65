// The vendor formats of GET /v1/tools?format=…: each answer is `{ tools }`, ready to use as the `tools`
// field of that vendor's request (Gemini's entries are `{ functionDeclarations }` tool groups).
import { Type } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { anthropicDeclaration, AnthropicToolSchema, type AnthropicTool } from './anthropic.js';
import { geminiTools, GeminiToolSchema, type GeminiFunctionDeclaration } from './gemini.js';
import { mcpDeclaration, McpToolSchema, type McpTool } from './mcp/declarations.js';
import { openaiDeclaration, OpenAiToolSchema, type OpenAiTool } from './openai.js';

export const LLM_FORMATS = ['openai', 'anthropic', 'gemini', 'mcp'] as const;
export type LlmFormat = (typeof LLM_FORMATS)[number];

export type LlmToolList =
  | { tools: OpenAiTool[] }
  | { tools: AnthropicTool[] }
  | { tools: { functionDeclarations: GeminiFunctionDeclaration[] }[] }
  | { tools: McpTool[] };

/** Documents the answers in OpenAPI. */
export const LlmToolListSchema = Type.Object({
  tools: Type.Union([
    Type.Array(OpenAiToolSchema),
    Type.Array(AnthropicToolSchema),
    Type.Array(GeminiToolSchema),
    Type.Array(McpToolSchema),
  ]),
});

export function llmToolList(format: LlmFormat, entries: RegisteredTool[]): LlmToolList {
  switch (format) {
    case 'openai':
      return { tools: entries.map(openaiDeclaration) };
    case 'anthropic':
      return { tools: entries.map(anthropicDeclaration) };
    case 'gemini':
      return { tools: geminiTools(entries) };
    case 'mcp':
      return { tools: entries.map(mcpDeclaration) };
  }
}
