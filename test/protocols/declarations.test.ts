// The vendor declarations, checked against the vendors' own published types (compile time: this file
// must type-check with the SDKs' request types) and their runtime rules, as served by GET /v1/tools.
import type Anthropic from '@anthropic-ai/sdk';
import type { FunctionDeclaration, Schema, Tool as GeminiTool } from '@google/genai';
import { Type as GeminiTypeEnum } from '@google/genai';
import {
  ListToolsResultSchema,
  type ListToolsResult,
  type Tool as McpSdkTool,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicDeclaration } from '../../src/protocols/anthropic.js';
import { geminiDeclaration } from '../../src/protocols/gemini.js';
import { toGeminiSchema } from '../../src/protocols/gemini-schema.js';
import { mcpDeclaration } from '../../src/protocols/mcp/declarations.js';
import { openaiDeclaration } from '../../src/protocols/openai.js';
import type { RegisteredTool } from '../../src/contract/registry.js';
import { defineTool } from '../../src/contract/tool.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

/** A tool whose schema uses every construct the vendors disagree on. */
const awkwardTool = defineTool({
  name: 'awkward_schema',
  category: 'filesystem',
  description: 'Exercises unions, enums, records, consts and formats.',
  capabilities: { readsFiles: true },
  input: Type.Object(
    {
      mode: Type.Enum(['fast', 'slow'], { default: 'fast', description: 'How hard to try' }),
      label: Type.Union([Type.String({ maxLength: 20 }), Type.Null()]),
      kind: Type.Literal('file'),
      env: Type.Optional(Type.Record(Type.String(), Type.String())),
      level: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
      when: Type.Optional(Type.String({ format: 'date-time' })),
      site: Type.Optional(Type.String({ format: 'uri' })),
      tags: Type.Array(Type.String(), { minItems: 1, maxItems: 5 }),
      nested: Type.Optional(
        Type.Object(
          { depth: Type.Integer({ minimum: 0, default: 1 }), name: Type.String() },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ ok: Type.Boolean() }),
  examples: [{ mode: 'fast', label: null, kind: 'file', tags: ['a'] }],
  async execute() {
    return { ok: true };
  },
});

// The JSON form of Gemini's Schema: enums travel as their string values on the wire.
type GeminiWireSchema = Omit<Schema, 'type' | 'items' | 'properties' | 'anyOf'> & {
  type?: `${GeminiTypeEnum}`;
  items?: GeminiWireSchema;
  properties?: Record<string, GeminiWireSchema>;
  anyOf?: GeminiWireSchema[];
};
type GeminiWireDeclaration = Omit<FunctionDeclaration, 'parameters'> & { parameters?: GeminiWireSchema };

const GEMINI_SCHEMA_KEYS: (keyof Schema)[] = [
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
];

const VENDOR_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** JSON paths of every `type: "array"` schema without `items` below `schema`. */
function arraysWithoutItems(schema: unknown, where = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => arraysWithoutItems(item, `${where}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const here = node.type === 'array' && node.items === undefined ? [where] : [];
  return [
    ...here,
    ...Object.entries(node)
      .filter(([key]) => key !== 'default' && key !== 'enum' && key !== 'examples')
      .flatMap(([key, value]) => arraysWithoutItems(value, `${where}.${key}`)),
  ];
}

describe('LLM tool declarations', () => {
  let t: InjectApp;
  let entries: RegisteredTool[];
  beforeAll(async () => {
    t = await injectApp({}, { tools: [...BUILTIN_TOOLS, awkwardTool] });
    entries = t.app.services.registry.list();
  });
  afterAll(() => t.close());

  const list = async (format: string) => {
    const res = await t.admin(t.http.get(`/v1/tools?format=${format}`));
    expect(res.status).toBe(200);
    return res.body;
  };

  it('openai: entries are ChatCompletionTool values that a chat request accepts', async () => {
    const tools: ChatCompletionTool[] = entries.map(openaiDeclaration);
    const request: ChatCompletionCreateParamsNonStreaming = { model: 'any', messages: [], tools };
    expect((await list('openai')).tools).toEqual(request.tools);
    for (const tool of tools) {
      if (tool.type !== 'function') throw new Error('not a function tool');
      expect(tool.function.name).toMatch(VENDOR_NAME);
      expect(tool.function.parameters).toMatchObject({ type: 'object' });
      // OpenAI refuses an array schema without items ("array schema missing items"), strict or not.
      expect(arraysWithoutItems(tool.function.parameters), tool.function.name).toEqual([]);
    }
  });

  it('anthropic: entries are Messages API Tool values', async () => {
    const tools: Anthropic.Tool[] = entries.map(anthropicDeclaration);
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'any',
      max_tokens: 1,
      messages: [],
      tools,
    };
    expect((await list('anthropic')).tools).toEqual(request.tools);
    for (const tool of tools) {
      expect(tool.name).toMatch(VENDOR_NAME);
      expect(tool.input_schema.type).toBe('object');
    }
  });

  it('gemini: one tool group of FunctionDeclarations using only Schema fields and Type values', async () => {
    const declarations: GeminiWireDeclaration[] = entries.map(geminiDeclaration);
    const served = (await list('gemini')).tools as GeminiTool[];
    expect(served).toEqual([{ functionDeclarations: declarations }]);
    const types = new Set<string>(Object.values(GeminiTypeEnum));
    const walk = (schema: GeminiWireSchema, where: string) => {
      for (const key of Object.keys(schema)) expect(GEMINI_SCHEMA_KEYS, `${where}.${key}`).toContain(key);
      if (schema.type !== undefined) expect(types.has(schema.type), `${where}.type`).toBe(true);
      for (const key of ['minItems', 'maxItems', 'minLength', 'maxLength'] as const) {
        if (schema[key] !== undefined) expect(typeof schema[key], `${where}.${key}`).toBe('string');
      }
      if (schema.enum) expect(schema.enum.every((v) => typeof v === 'string')).toBe(true);
      // Gemini refuses an OBJECT without properties ("should be non-empty for OBJECT type").
      if (schema.type === 'OBJECT')
        expect(Object.keys(schema.properties ?? {}), `${where}.properties`).not.toEqual([]);
      if (schema.items) walk(schema.items, `${where}.items`);
      for (const [name, child] of Object.entries(schema.properties ?? {})) walk(child, `${where}.${name}`);
      for (const variant of schema.anyOf ?? []) walk(variant, `${where}.anyOf`);
    };
    for (const declaration of declarations) {
      expect(declaration.name).toMatch(VENDOR_NAME);
      if (declaration.parameters === undefined) continue;
      expect(declaration.parameters.type).toBe('OBJECT');
      walk(declaration.parameters, declaration.name!);
    }
  });

  it('gemini: rewrites what its schema subset cannot say', () => {
    const params = geminiDeclaration(entries.find((e) => e.tool.name === 'awkward_schema')!).parameters!;
    expect(params.properties).toMatchObject({
      mode: { type: 'STRING', enum: ['fast', 'slow'], default: 'fast' },
      label: { type: 'STRING', nullable: true, maxLength: '20' },
      kind: { type: 'STRING', enum: ['file'] },
      level: { type: 'INTEGER', description: 'one of 1, 2' },
      when: { type: 'STRING', format: 'date-time' },
      tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: '1', maxItems: '5' },
      nested: { type: 'OBJECT', required: ['name'], propertyOrdering: ['depth', 'name'] },
    });
    expect(params.properties!.site).toEqual({ type: 'STRING' });
    // An optional map cannot be declared (an OBJECT needs properties), so it is left out.
    expect(params.properties).not.toHaveProperty('env');
    expect(params.propertyOrdering).not.toContain('env');
    expect(params.required).toEqual(['label', 'kind', 'tags']);
    expect(JSON.stringify(params)).not.toMatch(/additionalProperties|patternProperties|const|\$id/);
  });

  it('gemini: a required map stays, described in words; a tool without arguments has no parameters', () => {
    expect(
      toGeminiSchema({
        type: 'object',
        properties: { labels: { type: 'object', patternProperties: { '^.*$': { type: 'string' } } } },
        required: ['labels'],
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: { labels: { type: 'OBJECT', description: 'an object with any keys' } },
      propertyOrdering: ['labels'],
      required: ['labels'],
    });
    const noArguments = defineTool({
      name: 'no_arguments',
      category: 'testing',
      description: 'Takes nothing.',
      capabilities: {},
      input: Type.Object({}, { additionalProperties: false }),
      async execute() {
        return {};
      },
    });
    const declaration = geminiDeclaration({
      tool: noArguments,
      validator: { validate: (v) => v },
      permissions: [],
      source: 'test',
    });
    expect(declaration).toEqual({ name: 'no_arguments', description: 'Takes nothing.' });
  });

  it('mcp: a tools/list result the MCP SDK parses, with hints from capabilities', async () => {
    const tools: McpSdkTool[] = entries.map(mcpDeclaration);
    const result: ListToolsResult = { tools };
    const served = await list('mcp');
    expect(ListToolsResultSchema.parse(served)).toEqual(result);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('read_file')!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.get('write_file')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('read_file')!.outputSchema).toMatchObject({ type: 'object' });
  });

  it('defaulted fields are optional for the model, and the relaxed schemas still accept the examples', () => {
    for (const entry of entries) {
      const { parameters } = openaiDeclaration(entry).function;
      const required = (parameters.required as string[] | undefined) ?? [];
      const properties = parameters.properties as Record<string, { default?: unknown }>;
      for (const name of required)
        expect(properties[name], `${entry.tool.name}.${name}`).not.toHaveProperty('default');
      for (const example of entry.tool.examples ?? []) expect(Value.Check(parameters, example)).toBe(true);
    }
    const readFile = openaiDeclaration(entries.find((e) => e.tool.name === 'read_file')!).function.parameters;
    expect(readFile.required).toEqual(['path']);
    expect(Value.Check(readFile, { path: 'a.txt' })).toBe(true);
  });

  it('a session token gets declarations for only the tools its profile allows', async () => {
    const session = await t.createSession({ profile: 'read-only' });
    const res = await t.http
      .get('/v1/tools?format=anthropic')
      .set('authorization', `Bearer ${session.token}`);
    const names = (res.body.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('read_file');
    expect(names).not.toContain('write_file');
  });

  it('an unknown format is a 400 naming the allowed ones', async () => {
    const res = await t.admin(t.http.get('/v1/tools?format=cohere'));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});
