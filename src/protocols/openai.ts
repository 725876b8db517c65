// The OpenAI wire format (Chat Completions): declarations are the `tools` entries of a request
// ({type: "function", function}); a batch is the assistant message (or just its `tool_calls`), whose
// arguments arrive as JSON strings; the answer is one `role: "tool"` message per call.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { toolgateError } from '../lib/errors.js';
import { batchReader, type BatchCall, type BatchWire } from './batch-call.js';
import { llmInputSchema } from './llm-schema.js';
import { outcomeText } from './result-text.js';

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

export const OpenAiBatchSchema = Type.Object(
  {
    tool_calls: Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: 200 }),
        type: Type.Optional(Type.Literal('function')),
        function: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          arguments: Type.String({ description: 'JSON-encoded tool input' }),
        }),
      }),
    ),
  },
  { description: 'OpenAI chat-completions format: the assistant message, or just its tool_calls' },
);

export const OpenAiAnswerSchema = Type.Object({
  messages: Type.Array(
    Type.Object({
      role: Type.Literal('tool'),
      tool_call_id: Type.String(),
      content: Type.String({ description: 'The result as text; failures start with "Error <CODE>:"' }),
    }),
  ),
});

export type OpenAiBatch = Static<typeof OpenAiBatchSchema>;
export type OpenAiAnswer = Static<typeof OpenAiAnswerSchema>;

const readBody = batchReader('openai', OpenAiBatchSchema);

function openAiCall(call: OpenAiBatch['tool_calls'][number]): BatchCall {
  const raw = call.function.arguments;
  const base = { id: call.id, name: call.function.name, bytesIn: Buffer.byteLength(raw) };
  // Models sometimes send an empty string for a call without arguments.
  if (raw.trim() === '') return { ...base, arguments: {} };
  try {
    return { ...base, arguments: JSON.parse(raw) as unknown };
  } catch (err) {
    return {
      ...base,
      arguments: raw,
      argumentsError: toolgateError(
        'INVALID_JSON',
        `The arguments of ${call.function.name} are not valid JSON: ${(err as Error).message}`,
        { suggestion: 'Send the arguments as one JSON object, e.g. {"path": "src/index.ts"}.' },
      ),
    };
  }
}

export const openaiBatch: BatchWire<OpenAiBatch['tool_calls'][number]> = {
  format: 'openai',
  key: 'tool_calls',
  body: OpenAiBatchSchema,
  answer: OpenAiAnswerSchema,
  items: (body) => readBody(body).tool_calls,
  call: openAiCall,
  // Every OpenAI call carries an id (the schema requires one), hence the `?? ''` is unreachable.
  render: (results): OpenAiAnswer => ({
    messages: results.map(({ call, outcome }) => ({
      role: 'tool',
      tool_call_id: call.id ?? '',
      content: outcomeText(outcome),
    })),
  }),
};
