// Answers a batch in the format it came in: toolgate results, OpenAI `role: "tool"` messages, or an
// Anthropic user message of `tool_result` blocks — each ready to append to the conversation as is.
import { Type, type Static } from 'typebox';
import type { CallOutcome } from '../../engine/types.js';
import type { BatchCall, BatchFormat } from '../batch.js';
import { outcomeText } from '../result-text.js';

export interface BatchResult {
  call: BatchCall;
  outcome: CallOutcome;
}

const ErrorBodySchema = Type.Object({
  code: Type.String(),
  type: Type.String(),
  message: Type.String(),
  suggestion: Type.Optional(Type.String()),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const NativeAnswerSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position of the call in the request' }),
      id: Type.Optional(Type.String()),
      name: Type.String(),
      callId: Type.String({ description: 'The audit log id of this call' }),
      success: Type.Boolean(),
      data: Type.Optional(Type.Unknown()),
      error: Type.Optional(ErrorBodySchema),
      text: Type.String({ description: 'The result as text for a model' }),
      duplicate: Type.Optional(
        Type.Literal(true, { description: 'Answered from an identical earlier call of this batch or turn' }),
      ),
      hint: Type.Optional(Type.String()),
    }),
  ),
});

export const OpenAiAnswerSchema = Type.Object({
  messages: Type.Array(
    Type.Object({
      role: Type.Literal('tool'),
      tool_call_id: Type.String(),
      content: Type.String({ description: 'The result as text; failures start with "Error <CODE>:"' }),
    }),
  ),
});

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

export const BatchAnswerSchema = Type.Union([NativeAnswerSchema, OpenAiAnswerSchema, AnthropicAnswerSchema]);

export type NativeAnswer = Static<typeof NativeAnswerSchema>;
export type OpenAiAnswer = Static<typeof OpenAiAnswerSchema>;
export type AnthropicAnswer = Static<typeof AnthropicAnswerSchema>;

export const nativeAnswer = (results: BatchResult[]): NativeAnswer => ({
  results: results.map(({ call, outcome }, index) => ({
    index,
    ...(call.id !== undefined ? { id: call.id } : {}),
    name: call.name,
    callId: outcome.callId,
    success: outcome.ok,
    ...(outcome.ok ? { data: outcome.data } : { error: outcome.error.toBody() }),
    text: outcomeText(outcome),
    ...(outcome.ok && outcome.metadata.duplicate === true
      ? { duplicate: true as const, hint: String(outcome.metadata.hint) }
      : {}),
  })),
});

// OpenAI and Anthropic calls always carry an id (the parser requires one), hence the `?? ''` is unreachable.
export const openAiAnswer = (results: BatchResult[]): OpenAiAnswer => ({
  messages: results.map(({ call, outcome }) => ({
    role: 'tool',
    tool_call_id: call.id ?? '',
    content: outcomeText(outcome),
  })),
});

export const anthropicAnswer = (results: BatchResult[]): AnthropicAnswer => ({
  role: 'user',
  content: results.map(({ call, outcome }) => ({
    type: 'tool_result',
    tool_use_id: call.id ?? '',
    content: outcomeText(outcome),
    is_error: !outcome.ok,
  })),
});

export function renderBatch(
  format: BatchFormat,
  results: BatchResult[],
): NativeAnswer | OpenAiAnswer | AnthropicAnswer {
  switch (format) {
    case 'toolgate':
      return nativeAnswer(results);
    case 'openai':
      return openAiAnswer(results);
    case 'anthropic':
      return anthropicAnswer(results);
  }
}
