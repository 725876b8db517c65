// The Gemini wire format (generateContent, @google/genai): declarations are `functionDeclarations` in
// Gemini's schema subset (gemini-schema.ts); a batch is the model's Content (`candidates[0].content`),
// whose functionCall parts are run (text and thought parts ignored); the answer is a user Content of
// functionResponse parts, `response: {output}` or `response: {error}` as Gemini asks.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { batchReader, jsonBytes, type BatchWire } from './batch-call.js';
import { toGeminiSchema, type GeminiSchema } from './gemini-schema.js';
import { llmInputSchema } from './llm-schema.js';
import { outcomeText } from './result-text.js';

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Absent for a tool without arguments. */
  parameters?: GeminiSchema;
}

/** Documents a tool group in OpenAPI; Gemini's recursive schema subset is described, not spelled out. */
export const GeminiToolSchema = Type.Object({
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
});

export function geminiDeclaration({ tool }: RegisteredTool): GeminiFunctionDeclaration {
  const parameters = toGeminiSchema(llmInputSchema(tool));
  // A tool without arguments has no parameters: Gemini refuses `{type: OBJECT}` with no properties.
  return {
    name: tool.name,
    description: tool.description,
    ...(parameters.properties ? { parameters } : {}),
  };
}

/** The `tools` of a request: one group, or none for no tools (Gemini refuses a group without declarations). */
export const geminiTools = (entries: RegisteredTool[]) =>
  entries.length ? [{ functionDeclarations: entries.map(geminiDeclaration) }] : [];

const FunctionCallPartSchema = Type.Object({
  functionCall: Type.Object({
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    args: Type.Optional(Type.Unknown()),
  }),
});

export const GeminiBatchSchema = Type.Object(
  { role: Type.Optional(Type.String()), parts: Type.Array(Type.Object({})) },
  {
    description:
      "Gemini format: the model's Content (candidates[0].content); functionCall parts are run, others ignored",
  },
);

export const GeminiAnswerSchema = Type.Object({
  role: Type.Literal('user'),
  parts: Type.Array(
    Type.Object({
      functionResponse: Type.Object({
        id: Type.Optional(Type.String({ description: 'The functionCall id, when the call had one' })),
        name: Type.String(),
        response: Type.Union([
          Type.Object({ output: Type.String({ description: 'The result as text' }) }),
          Type.Object({ error: Type.String({ description: 'Starts with "Error <CODE>:"' }) }),
        ]),
      }),
    }),
  ),
});

export type GeminiBatch = Static<typeof GeminiBatchSchema>;
export type GeminiAnswer = Static<typeof GeminiAnswerSchema>;

const readBody = batchReader('gemini', GeminiBatchSchema);
const readCall = batchReader('gemini', FunctionCallPartSchema);

export const geminiBatch: BatchWire<GeminiBatch['parts'][number]> = {
  format: 'gemini',
  key: 'parts',
  body: GeminiBatchSchema,
  answer: GeminiAnswerSchema,
  emptySuggestion: 'Include the functionCall parts of the model content.',
  items: (body) => readBody(body).parts.filter((part) => Object.hasOwn(part, 'functionCall')),
  call(part, index) {
    const { id, name, args = {} } = readCall(part, `/functionCall[${index}]`).functionCall;
    return { ...(id !== undefined ? { id } : {}), name, arguments: args, bytesIn: jsonBytes(args) };
  },
  // Gemini matches a response to its call by id when the call had one, else by name and order.
  render: (results): GeminiAnswer => ({
    role: 'user',
    parts: results.map(({ call, outcome }) => ({
      functionResponse: {
        ...(call.id !== undefined ? { id: call.id } : {}),
        name: call.name,
        response: outcome.ok ? { output: outcomeText(outcome) } : { error: outcomeText(outcome) },
      },
    })),
  }),
};
