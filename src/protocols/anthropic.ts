// The Anthropic wire format (Messages API): declarations are the `tools` entries of a request
// ({name, description, input_schema}); a batch is the assistant message's `content`, whose tool_use
// blocks are run (text and thinking blocks ignored); the answer is a user message of tool_result blocks.
// tool_use blocks of Anthropic's built-in text editor and bash are run by anthropic-builtin.ts.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { builtinCall } from './anthropic-builtin.js';
import { builtinAnswer, viewLimit } from './anthropic-builtin-answer.js';
import { batchReader, jsonBytes, type BatchWire } from './batch-call.js';
import { llmInputSchema } from './llm-schema.js';
import { outcomeText } from './result-text.js';

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

const AnthropicToolUseSchema = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String({ minLength: 1, maxLength: 200 }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  input: Type.Unknown(),
});

/**
 * An entry of the Messages request's `tools`, as the client sent it: only the text editor's
 * `max_characters` (text_editor_20250728) is read; custom tools' entries pass unread.
 */
const AnthropicToolEntrySchema = Type.Object({
  name: Type.String(),
  type: Type.Optional(Type.String()),
  // The SDK's type allows null: no limit given, so the default applies.
  max_characters: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
});

export const AnthropicBatchSchema = Type.Object(
  {
    content: Type.Array(Type.Object({ type: Type.String() })),
    tools: Type.Optional(
      Type.Array(AnthropicToolEntrySchema, {
        description:
          "The request's tools list, as sent to Anthropic (optional): the text editor's max_characters cuts its views (else 16,000 characters)",
      }),
    ),
  },
  { description: 'Anthropic format: the assistant message content; tool_use blocks are run, others ignored' },
);

export const AnthropicAnswerSchema = Type.Object({
  role: Type.Literal('user'),
  content: Type.Array(
    Type.Object({
      type: Type.Literal('tool_result'),
      tool_use_id: Type.String(),
      content: Type.String(),
      is_error: Type.Boolean(),
    }),
  ),
});

export type AnthropicBatch = Static<typeof AnthropicBatchSchema>;
export type AnthropicAnswer = Static<typeof AnthropicAnswerSchema>;

const readBody = batchReader('anthropic', AnthropicBatchSchema);
const readToolUse = batchReader('anthropic', AnthropicToolUseSchema);

export const anthropicBatch: BatchWire<AnthropicBatch['content'][number]> = {
  format: 'anthropic',
  key: 'content',
  body: AnthropicBatchSchema,
  answer: AnthropicAnswerSchema,
  emptySuggestion: 'Include the tool_use blocks of the assistant message.',
  items: (body) => readBody(body).content.filter((block) => block.type === 'tool_use'),
  call(block, index, tools) {
    const at = `/tool_use[${index}]`;
    const toolUse = readToolUse(block, at);
    const { id, name, input } = toolUse;
    return builtinCall(toolUse, at, tools) ?? { id, name, arguments: input, bytesIn: jsonBytes(input) };
  },
  // Every tool_use block carries an id (the schema requires one), hence the `?? ''` is unreachable.
  render: (results, items, body): AnthropicAnswer => ({
    role: 'user',
    content: results.map(({ call, outcome }) => {
      // A built-in tool's call (text editor, bash) is answered in the words its models know.
      const block =
        call.wireTool !== undefined && call.item !== undefined ? readToolUse(items[call.item]) : undefined;
      const answer = block
        ? builtinAnswer(block, outcome, viewLimit(readBody(body).tools, block.name))
        : { text: outcomeText(outcome), isError: !outcome.ok };
      return {
        type: 'tool_result',
        tool_use_id: call.id ?? '',
        content: answer.text,
        is_error: answer.isError,
      };
    }),
  }),
};
