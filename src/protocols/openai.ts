// The OpenAI wire format (Chat Completions): declarations are the `tools` entries of a request
// ({type: "function", function}); a batch is the assistant message (or just its `tool_calls`), whose
// arguments arrive as JSON strings; the answer is one `role: "tool"` message per call.
import { Type, type Static } from 'typebox';
import type { RegisteredTool, ToolRegistry } from '../contract/registry.js';
import { toolgateError } from '../lib/errors.js';
import { batchReader, type BatchCall, type BatchWire } from './batch-call.js';
import { llmInputSchema } from './llm-schema.js';
import { looseArguments, strictSchema } from './openai-strict.js';
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

/**
 * The parameters of a tool for OpenAI: our schema as it is (non-strict function calling accepts it), or
 * with `strict` its rewrite into strict mode's subset (openai-strict.ts), where a model must spell out
 * every optional argument as null.
 */
export const openaiParameters = ({ tool }: RegisteredTool, strict: boolean) =>
  strict ? strictSchema(llmInputSchema(tool)) : llmInputSchema(tool);

export const openaiDeclaration = (entry: RegisteredTool): OpenAiTool => ({
  type: 'function',
  function: {
    name: entry.tool.name,
    description: entry.tool.description,
    parameters: openaiParameters(entry, false),
  },
});

export const openaiStrictDeclaration = (entry: RegisteredTool): OpenAiTool => ({
  type: 'function',
  function: {
    name: entry.tool.name,
    description: entry.tool.description,
    parameters: openaiParameters(entry, true),
    strict: true,
  },
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

/**
 * A call whose arguments arrive as a JSON string (OpenAI's chat tool_calls and Responses function_call).
 * Arguments written for the strict declarations (nulls for optional properties, maps as pairs) are
 * turned back into the tool's input, so strict and non-strict declarations can be used alike.
 */
export function jsonArgumentsCall(id: string, name: string, raw: string, tools: ToolRegistry): BatchCall {
  const base = { id, name, bytesIn: Buffer.byteLength(raw) };
  // Models sometimes send an empty string for a call without arguments.
  if (raw.trim() === '') return { ...base, arguments: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch (err) {
    return {
      ...base,
      arguments: raw,
      argumentsError: toolgateError(
        'INVALID_JSON',
        `The arguments of ${name} are not valid JSON: ${(err as Error).message}`,
        { suggestion: 'Send the arguments as one JSON object, e.g. {"path": "src/index.ts"}.' },
      ),
    };
  }
  const entry = tools.get(name);
  return { ...base, arguments: entry ? looseArguments(llmInputSchema(entry.tool), parsed) : parsed };
}

export const openaiBatch: BatchWire<OpenAiBatch['tool_calls'][number]> = {
  format: 'openai',
  key: 'tool_calls',
  body: OpenAiBatchSchema,
  answer: OpenAiAnswerSchema,
  items: (body) => readBody(body).tool_calls,
  call: (call, _index, tools) =>
    jsonArgumentsCall(call.id, call.function.name, call.function.arguments, tools),
  // Every OpenAI call carries an id (the schema requires one), hence the `?? ''` is unreachable.
  render: (results): OpenAiAnswer => ({
    messages: results.map(({ call, outcome }) => ({
      role: 'tool',
      tool_call_id: call.id ?? '',
      content: outcomeText(outcome),
    })),
  }),
};
