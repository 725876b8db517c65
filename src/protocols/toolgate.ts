// The toolgate wire format: the full declaration of a tool (JSON Schemas, capabilities, permissions,
// examples) and the native batch — `{calls: [{id?, name, arguments}]}` in, `{results}` with data, error
// and model-facing text per call out.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { outcomeMembers } from '../lib/envelope.js';
import { batchReader, jsonBytes, type BatchWire } from './batch-call.js';
import { outcomeText } from './result-text.js';

export const ToolgateDeclarationSchema = Type.Object({
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
  version: Type.String(),
  tags: Type.Array(Type.String()),
  capabilities: Type.Record(Type.String(), Type.Boolean()),
  permissions: Type.Array(Type.String()),
  inputSchema: Type.Record(Type.String(), Type.Unknown()),
  outputSchema: Type.Record(Type.String(), Type.Unknown()),
  examples: Type.Array(Type.Unknown()),
  source: Type.String(),
});

export type ToolgateDeclaration = Static<typeof ToolgateDeclarationSchema>;

export function toolgateDeclaration(entry: RegisteredTool): ToolgateDeclaration {
  const { tool } = entry;
  return {
    name: tool.name,
    category: tool.category,
    description: tool.description,
    version: tool.version,
    tags: tool.tags,
    capabilities: tool.capabilities,
    permissions: [...entry.permissions],
    inputSchema: tool.input as unknown as Record<string, unknown>,
    outputSchema: tool.output as unknown as Record<string, unknown>,
    examples: tool.examples ?? [],
    source: entry.source,
  };
}

export const NativeBatchSchema = Type.Object(
  {
    calls: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ maxLength: 200, description: 'Echoed in the result' })),
          name: Type.String({ minLength: 1, maxLength: 100, description: 'Tool name' }),
          arguments: Type.Optional(Type.Unknown({ description: 'The tool input (an object)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'toolgate format' },
);

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

export type NativeBatch = Static<typeof NativeBatchSchema>;
export type NativeAnswer = Static<typeof NativeAnswerSchema>;

const readBody = batchReader('toolgate', NativeBatchSchema);

export const toolgateBatch: BatchWire<NativeBatch['calls'][number]> = {
  format: 'toolgate',
  key: 'calls',
  body: NativeBatchSchema,
  answer: NativeAnswerSchema,
  items: (body) => readBody(body).calls,
  call: (call) => ({
    ...(call.id !== undefined ? { id: call.id } : {}),
    name: call.name,
    arguments: call.arguments ?? {},
    bytesIn: jsonBytes(call.arguments ?? {}),
  }),
  render: (results): NativeAnswer => ({
    results: results.map(({ call, outcome }, index) => ({
      index,
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      ...outcomeMembers(outcome),
      text: outcomeText(outcome),
      ...(outcome.ok && outcome.metadata.duplicate === true
        ? { duplicate: true as const, hint: String(outcome.metadata.hint) }
        : {}),
    })),
  }),
};
