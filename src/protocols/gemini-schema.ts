// A tool's JSON Schema in Gemini's OpenAPI-3 schema subset, for the parameters of its declarations.
// JSON Schema it cannot express is rewritten (type arrays → nullable, const → enum, null variants →
// nullable) or dropped (additionalProperties, patternProperties, $id…); int64 bounds travel as strings.
import { isJsonObject as isObject } from '../lib/json.js';
import type { JsonObject } from './llm-schema.js';

export type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';

/** The subset of JSON Schema Gemini accepts (its `Schema` message). */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  items?: GeminiSchema;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  anyOf?: GeminiSchema[];
  minimum?: number;
  maximum?: number;
  minItems?: string;
  maxItems?: string;
  minLength?: string;
  maxLength?: string;
  minProperties?: string;
  maxProperties?: string;
  pattern?: string;
}

const TYPES: Record<string, GeminiType> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

/** Gemini only knows these formats, per type; others are rejected by the API, so they are dropped. */
const FORMATS: Partial<Record<GeminiType, string[]>> = {
  STRING: ['enum', 'date-time'],
  INTEGER: ['int32', 'int64'],
  NUMBER: ['float', 'double'],
};

const COUNT_KEYS = [
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
] as const;

const isFreeFormObject = (schema: GeminiSchema) =>
  schema.type === 'OBJECT' && schema.properties === undefined;

const isNullSchema = (schema: unknown) =>
  isObject(schema) && (schema.type === 'null' || schema.const === null);

function inferType(schema: JsonObject): GeminiType | undefined {
  if (typeof schema.type === 'string') return TYPES[schema.type];
  if (
    isObject(schema.properties) ||
    isObject(schema.patternProperties) ||
    isObject(schema.additionalProperties)
  ) {
    return 'OBJECT';
  }
  if (schema.items !== undefined) return 'ARRAY';
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
  if (values.length > 0 && values.every((v) => typeof v === 'string')) return 'STRING';
  return undefined;
}

function appendDescription(target: GeminiSchema, note: string): void {
  target.description = target.description ? `${target.description} (${note})` : note;
}

/** A type and enum that say "one of these values"; Gemini's enums are strings only, so others go in words. */
function constantsSchema(values: unknown[], out: GeminiSchema): GeminiSchema {
  if (values.every((value) => typeof value === 'string')) return { ...out, type: 'STRING', enum: values };
  const result: GeminiSchema = { ...out };
  if (values.every((value) => typeof value === 'number')) {
    result.type = values.every(Number.isInteger) ? 'INTEGER' : 'NUMBER';
  } else if (values.every((value) => typeof value === 'boolean')) {
    result.type = 'BOOLEAN';
  }
  appendDescription(result, `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`);
  return result;
}

function convertVariants(variants: unknown[], out: GeminiSchema): GeminiSchema {
  const nonNull = variants.filter((variant) => !isNullSchema(variant));
  if (nonNull.length < variants.length) out.nullable = true;
  if (nonNull.length > 0 && nonNull.every((variant) => isObject(variant) && 'const' in variant)) {
    return constantsSchema(
      nonNull.map((variant) => (variant as JsonObject).const),
      out,
    );
  }
  if (nonNull.length === 1) return { ...toGeminiSchema(nonNull[0]), ...out };
  return { ...out, anyOf: nonNull.map(toGeminiSchema) };
}

export function toGeminiSchema(input: unknown): GeminiSchema {
  if (!isObject(input)) return {};
  const out: GeminiSchema = {};
  if (typeof input.title === 'string') out.title = input.title;
  if (typeof input.description === 'string') out.description = input.description;
  if ('default' in input) out.default = input.default;
  if (Array.isArray(input.examples) && input.examples.length > 0) out.example = input.examples[0];

  const variants = Array.isArray(input.anyOf)
    ? input.anyOf
    : Array.isArray(input.oneOf)
      ? input.oneOf
      : undefined;
  if (variants) return convertVariants(variants, out);

  if (Array.isArray(input.type)) {
    const types = input.type.filter((t): t is string => typeof t === 'string');
    return convertVariants(
      types.map((type) => ({ ...input, type })),
      out,
    );
  }

  const type = inferType(input);
  if (type) out.type = type;
  if (typeof input.format === 'string' && type && FORMATS[type]?.includes(input.format))
    out.format = input.format;
  if (typeof input.pattern === 'string') out.pattern = input.pattern;
  if (typeof input.minimum === 'number') out.minimum = input.minimum;
  if (typeof input.maximum === 'number') out.maximum = input.maximum;
  for (const key of COUNT_KEYS) {
    if (typeof input[key] === 'number') out[key] = String(input[key]);
  }

  const values = Array.isArray(input.enum) ? input.enum : 'const' in input ? [input.const] : undefined;
  if (values) Object.assign(out, constantsSchema(values, { ...out }));

  if (input.items !== undefined) out.items = toGeminiSchema(input.items);
  if (isObject(input.properties)) {
    const requiredNames = Array.isArray(input.required)
      ? input.required.filter((name): name is string => typeof name === 'string')
      : [];
    const properties = Object.entries(input.properties)
      .map(([name, schema]) => [name, toGeminiSchema(schema)] as const)
      // Gemini rejects an OBJECT without properties, and cannot declare a map: an optional map is left out.
      .filter(([name, schema]) => !isFreeFormObject(schema) || requiredNames.includes(name));
    const names = properties.map(([name]) => name);
    if (names.length > 0) {
      out.properties = Object.fromEntries(properties);
      out.propertyOrdering = names;
    }
    const required = requiredNames.filter((name) => names.includes(name));
    if (required.length > 0) out.required = required;
  } else if (
    type === 'OBJECT' &&
    (isObject(input.patternProperties) || isObject(input.additionalProperties))
  ) {
    // A free-form map: Gemini cannot declare its value type, so tell the model in words.
    appendDescription(out, 'an object with any keys');
  }
  return out;
}
