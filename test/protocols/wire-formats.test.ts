// Each wire format module on its own, without HTTP: declare a tool in the vendor's format, read the
// model's tool calls (typed with the vendor's SDK) with parseBatch, check them with the tool's real
// validator, and render the outcomes back as the vendor's next message (typed with its SDK again).
import type Anthropic from '@anthropic-ai/sdk';
import type { Content } from '@google/genai';
import type {
  ChatCompletionMessage,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ToolRegistry, type RegisteredTool } from '../../src/contract/registry.js';
import { defineTool } from '../../src/contract/tool.js';
import type { CallOutcome } from '../../src/contract/call.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { anthropicBatch, anthropicDeclaration, type AnthropicAnswer } from '../../src/protocols/anthropic.js';
import { parseBatch, renderBatch, type BatchCall } from '../../src/protocols/batch.js';
import { geminiBatch, geminiTools, type GeminiAnswer } from '../../src/protocols/gemini.js';
import { openaiBatch, openaiDeclaration, type OpenAiAnswer } from '../../src/protocols/openai.js';
import { toolgateBatch, toolgateDeclaration, type NativeAnswer } from '../../src/protocols/toolgate.js';

const addNumbers = defineTool({
  name: 'add_numbers',
  category: 'filesystem',
  description: 'Adds two numbers.',
  capabilities: { readsFiles: true },
  input: Type.Object({ a: Type.Number(), b: Type.Number({ default: 0 }) }, { additionalProperties: false }),
  output: Type.Object({ sum: Type.Number() }),
  async execute({ a, b }) {
    return { sum: a + b };
  },
  render: ({ sum }) => `sum: ${sum}`,
});

const registry = new ToolRegistry();
registry.add(addNumbers, 'test');
const entry: RegisteredTool = registry.get('add_numbers')!;

/** What the pipeline's validate step decides for a call: its defaults filled in, or VALIDATION_FAILED. */
function outcomeOf(call: BatchCall, index: number): CallOutcome {
  const callId = `call_${index}`;
  try {
    const input = entry.validator.validate(structuredClone(call.arguments)) as { a: number; b: number };
    const data = { sum: input.a + input.b };
    return {
      ok: true,
      callId,
      data,
      dataJson: JSON.stringify(data),
      metadata: {
        executionTimeMs: 1,
        tool: call.name,
        category: 'filesystem',
        version: '1.0.0',
        sessionId: 's',
      },
      headers: {},
      text: () => addNumbers.render!(data),
    };
  } catch (err) {
    if (!isToolgateError(err)) throw err;
    return { ok: false, callId, error: err, tool: call.name, headers: {} };
  }
}

const roundTrip = (body: unknown) => {
  const batch = parseBatch(body, registry);
  return {
    batch,
    answer: renderBatch(
      batch,
      batch.calls.map((call, i) => ({ call, outcome: outcomeOf(call, i) })),
    ),
  };
};

describe('wire format modules: declare → parse → render', () => {
  it('openai: a ChatCompletionTool in, the assistant message read, role "tool" messages out', () => {
    const declared: ChatCompletionTool = openaiDeclaration(entry);
    expect(declared.type === 'function' && declared.function.name).toBe('add_numbers');
    const assistant: ChatCompletionMessage = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'add_numbers', arguments: '{"a": 2, "b": 3}' } },
        { id: 'c2', type: 'function', function: { name: 'add_numbers', arguments: '{"a": "two"}' } },
      ],
    };
    const { batch, answer } = roundTrip(assistant);
    expect(batch).toMatchObject({
      format: 'openai',
      calls: [
        { id: 'c1', name: 'add_numbers', arguments: { a: 2, b: 3 }, bytesIn: 16, item: 0 },
        { id: 'c2', name: 'add_numbers', arguments: { a: 'two' }, bytesIn: 12, item: 1 },
      ],
    });
    const messages: ChatCompletionToolMessageParam[] = (answer as OpenAiAnswer).messages;
    expect(messages).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'sum: 5' },
      { role: 'tool', tool_call_id: 'c2', content: expect.stringMatching(/^Error VALIDATION_FAILED: /) },
    ]);
    expect(openaiBatch.format).toBe(batch.format);
  });

  it('anthropic: a Tool in, tool_use blocks read (text ignored), a user message of tool_result blocks out', () => {
    const declared: Anthropic.Tool = anthropicDeclaration(entry);
    const content: Anthropic.ContentBlockParam[] = [
      { type: 'text', text: 'Adding.' },
      { type: 'tool_use', id: 'toolu_1', name: declared.name, input: { a: 1 } },
      { type: 'tool_use', id: 'toolu_2', name: declared.name, input: { a: 1, c: 2 } },
    ];
    const { batch, answer } = roundTrip({ role: 'assistant', content });
    expect(batch.format).toBe(anthropicBatch.format);
    expect(batch.calls.map((call) => [call.id, call.arguments])).toEqual([
      ['toolu_1', { a: 1 }],
      ['toolu_2', { a: 1, c: 2 }],
    ]);
    const next: Anthropic.MessageParam = answer as AnthropicAnswer;
    expect(next).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sum: 1', is_error: false },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: expect.stringMatching(/^Error VALIDATION_FAILED: /),
          is_error: true,
        },
      ],
    });
  });

  it('gemini: a functionDeclarations group in, functionCall parts read, functionResponse parts out', () => {
    // (declarations.test.ts checks these against the SDK's Schema; its enums are strings on the wire.)
    const tools = geminiTools([entry]);
    expect(tools[0].functionDeclarations[0]).toMatchObject({
      name: 'add_numbers',
      parameters: { type: 'OBJECT' },
    });
    // candidates[0].content of a generateContent response: a thought, text, and two calls (one without id).
    const content: Content = {
      role: 'model',
      parts: [
        { text: 'Adding.', thought: true },
        { functionCall: { id: 'g1', name: 'add_numbers', args: { a: 4, b: 4 } }, thoughtSignature: 'c2ln' },
        { functionCall: { name: 'add_numbers', args: { b: 1 } } },
      ],
    };
    const { batch, answer } = roundTrip(content);
    expect(batch).toMatchObject({
      format: geminiBatch.format,
      calls: [
        { id: 'g1', name: 'add_numbers', arguments: { a: 4, b: 4 }, bytesIn: 13, item: 0 },
        { name: 'add_numbers', arguments: { b: 1 }, bytesIn: 7, item: 1 },
      ],
    });
    const next: Content = answer as GeminiAnswer;
    expect(next).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'g1', name: 'add_numbers', response: { output: 'sum: 8' } } },
        {
          functionResponse: {
            name: 'add_numbers',
            response: { error: expect.stringMatching(/^Error VALIDATION_FAILED: /) },
          },
        },
      ],
    });
  });

  it('gemini: a call without args runs with {}; a malformed functionCall part fails the batch', () => {
    expect(parseBatch({ parts: [{ functionCall: { name: 'add_numbers' } }] }, registry).calls).toEqual([
      { name: 'add_numbers', arguments: {}, bytesIn: 2, item: 0 },
    ]);
    expect(() => parseBatch({ parts: [{ text: 'hi' }, { functionCall: { args: {} } }] }, registry)).toThrow(
      /Invalid gemini batch: \/functionCall\[0\]\/functionCall/,
    );
    expect(() => parseBatch({ role: 'model', parts: [{ text: 'no calls' }] }, registry)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: 'The batch has no tool calls',
        suggestion: 'Include the functionCall parts of the model content.',
      }),
    );
    expect(() => parseBatch({ parts: 'x' }, registry)).toThrow(/Invalid gemini batch: \/parts/);
    expect(() => parseBatch({ parts: [], calls: [] }, registry)).toThrow(
      /only one format, got parts and calls/,
    );
  });

  it('toolgate: the full declaration, {calls} read, {results} with data, error and text out', () => {
    expect(toolgateDeclaration(entry)).toMatchObject({ name: 'add_numbers', permissions: ['read'] });
    const { batch, answer } = roundTrip({
      calls: [
        { id: 'x', name: 'add_numbers', arguments: { a: 1, b: 2 } },
        { name: 'add_numbers', arguments: {} },
      ],
    });
    expect(batch.format).toBe(toolgateBatch.format);
    const { results } = answer as NativeAnswer;
    expect(results[0]).toEqual({
      index: 0,
      id: 'x',
      name: 'add_numbers',
      callId: 'call_0',
      success: true,
      data: { sum: 3 },
      text: 'sum: 3',
    });
    expect(results[1]).toMatchObject({
      index: 1,
      name: 'add_numbers',
      callId: 'call_1',
      success: false,
      error: { code: 'VALIDATION_FAILED', type: 'validation_error' },
      text: expect.stringMatching(/^Error VALIDATION_FAILED: /),
    });
    expect(results[1]).not.toHaveProperty('id');
  });
});
