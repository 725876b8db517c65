// OpenAI strict mode without HTTP: a schema rewritten into strict mode's subset, and arguments a model
// wrote against it turned back into the tool's input (which the tool's own validator then accepts).
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/contract/validation.js';
import { defineTool } from '../../src/contract/tool.js';
import { llmInputSchema } from '../../src/protocols/llm-schema.js';
import { looseArguments, strictSchema } from '../../src/protocols/openai-strict.js';

const tool = defineTool({
  name: 'strict_probe',
  category: 'filesystem',
  description: 'Exercises what strict mode cannot say as is.',
  capabilities: { readsFiles: true },
  input: Type.Object(
    {
      path: Type.String({ minLength: 1 }),
      kind: Type.Optional(Type.Literal('file')),
      mode: Type.Enum(['fast', 'slow'], { default: 'fast' }),
      env: Type.Optional(Type.Record(Type.String(), Type.String())),
      nested: Type.Optional(
        Type.Object({ depth: Type.Integer({ minimum: 0, default: 1 }) }, { additionalProperties: false }),
      ),
      label: Type.Union([Type.String(), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({}),
  async execute() {
    return {};
  },
});

describe('OpenAI strict schemas', () => {
  const declared = llmInputSchema(tool);
  const strict = strictSchema(declared);

  it('closes every object, requires every property and makes the optional ones nullable', () => {
    expect(strict).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['path', 'kind', 'mode', 'env', 'nested', 'label'],
      properties: {
        path: { type: 'string' },
        kind: { anyOf: [{ const: 'file', type: 'string' }, { type: 'null' }] },
        mode: { anyOf: [{ enum: ['fast', 'slow'], description: '(default "fast")' }, { type: 'null' }] },
        env: { type: ['array', 'null'], items: { required: ['key', 'value'], additionalProperties: false } },
        nested: {
          type: ['object', 'null'],
          additionalProperties: false,
          required: ['depth'],
          properties: { depth: { type: ['integer', 'null'] } },
        },
      },
    });
    expect(JSON.stringify(strict)).not.toMatch(/"(default|minLength|minimum|patternProperties)"/);
  });

  it('reads arguments written against it back into input the tool accepts', () => {
    const written = {
      path: 'a.txt',
      kind: null,
      mode: null,
      env: [{ key: 'A', value: '1' }],
      nested: { depth: null },
      label: null,
    };
    const input = looseArguments(declared, written);
    expect(input).toEqual({ path: 'a.txt', env: { A: '1' }, nested: {}, label: null });
    expect(compileValidator(tool).validate(input)).toEqual({
      path: 'a.txt',
      mode: 'fast',
      env: { A: '1' },
      nested: { depth: 1 },
      label: null,
    });
  });
});
