// The vendor formats of GET /v1/tools?format=…: each answer is `{ tools }`, ready to use as the `tools`
// field of that vendor's request (Gemini's entries are `{ functionDeclarations }` tool groups).
import { Type } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { anthropicDeclaration, AnthropicToolSchema, type AnthropicTool } from './anthropic.js';
import { geminiDeclaration, type GeminiFunctionDeclaration } from './gemini-schema.js';
import { mcpDeclaration, McpToolSchema, type McpTool } from './mcp/declarations.js';
import { openaiDeclaration, OpenAiToolSchema, type OpenAiTool } from './openai.js';

export const LLM_FORMATS = ['openai', 'anthropic', 'gemini', 'mcp'] as const;
export type LlmFormat = (typeof LLM_FORMATS)[number];

export type LlmToolList =
  | { tools: OpenAiTool[] }
  | { tools: AnthropicTool[] }
  | { tools: { functionDeclarations: GeminiFunctionDeclaration[] }[] }
  | { tools: McpTool[] };

/** Documents the answers in OpenAPI; Gemini's recursive schema subset is described, not spelled out. */
export const LlmToolListSchema = Type.Object({
  tools: Type.Union([
    Type.Array(OpenAiToolSchema),
    Type.Array(AnthropicToolSchema),
    Type.Array(
      Type.Object({
        functionDeclarations: Type.Array(
          Type.Object({
            name: Type.String(),
            description: Type.String(),
            // Left out for a tool without parameters, as Gemini expects.
            parameters: Type.Optional(
              Type.Record(Type.String(), Type.Unknown(), {
                description: "Gemini's OpenAPI-3 schema subset",
              }),
            ),
          }),
        ),
      }),
    ),
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
      // Gemini refuses a tool group without declarations; no tools means no group.
      return { tools: entries.length ? [{ functionDeclarations: entries.map(geminiDeclaration) }] : [] };
    case 'mcp':
      return { tools: entries.map(mcpDeclaration) };
  }
}
