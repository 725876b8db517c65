// OpenAI's strict function calling (`strict: true`): the model's arguments are guaranteed to match the
// schema, but only a subset of JSON Schema is allowed — every object closed (`additionalProperties:
// false`) with every property required, no defaults, no free-form maps, no length/pattern/range
// keywords on older models. strictSchema rewrites a tool's schema into that subset (optional properties
// become nullable, a map becomes a list of {key, value} pairs, dropped constraints and defaults move
// into the description), and looseArguments turns arguments written against it back into our tool's
// input (null for an optional property means "not given"; pairs become the map again).
import { isJsonObject as isObject, type JsonObject } from '../lib/json.js';

/** Keywords strict mode refuses (or some models do); our own validator still checks them on every call. */
export const STRICT_DROPPED_KEYWORDS = [
  'default',
  'examples',
  'title',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  '$id',
  '$schema',
] as const;

/** A map's schema (TypeBox Record): an object with patternProperties or an additionalProperties schema. */
function mapValueSchema(schema: JsonObject): unknown {
  if (schema.type !== 'object' || isObject(schema.properties)) return undefined;
  if (isObject(schema.patternProperties)) return Object.values(schema.patternProperties)[0];
  if (isObject(schema.additionalProperties)) return schema.additionalProperties;
  return undefined;
}

const constraintNotes = (schema: JsonObject): string[] => {
  const notes: string[] = [];
  if ('default' in schema) notes.push(`default ${JSON.stringify(schema.default)}`);
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (typeof schema[key] === 'number') notes.push(`${key} ${String(schema[key])}`);
  }
  if (typeof schema.pattern === 'string') notes.push(`pattern ${schema.pattern}`);
  return notes;
};

function nullable(schema: JsonObject): JsonObject {
  if (Array.isArray(schema.anyOf))
    return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: 'null' }] };
  if (typeof schema.type === 'string' && !('const' in schema)) {
    const out: JsonObject = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

export function strictSchema(input: unknown): JsonObject {
  if (!isObject(input)) return { type: 'string' };
  const mapped = mapValueSchema(input);
  if (mapped !== undefined) {
    return {
      type: 'array',
      description: [input.description, 'A map, as a list of {key, value} pairs'].filter(Boolean).join('. '),
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, value: strictSchema(mapped) },
        required: ['key', 'value'],
        additionalProperties: false,
      },
    };
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(input)) {
    if ((STRICT_DROPPED_KEYWORDS as readonly string[]).includes(key)) continue;
    if (key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
    if (key === 'patternProperties') continue;
    if (key === 'items') out.items = strictSchema(value);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value))
      out.anyOf = value.map(strictSchema);
    else out[key] = value;
  }
  const notes = constraintNotes(input);
  if (notes.length) out.description = [input.description, `(${notes.join(', ')})`].filter(Boolean).join(' ');
  if (input.type === 'object' || isObject(input.properties)) {
    const properties = isObject(input.properties) ? input.properties : {};
    const required = new Set(Array.isArray(input.required) ? input.required : []);
    out.type = 'object';
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => {
        const strict = strictSchema(schema);
        return [name, required.has(name) ? strict : nullable(strict)];
      }),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  // A schema that says nothing (TypeBox Unknown) must still name a type: strict mode needs one.
  if (
    out.type === undefined &&
    out.anyOf === undefined &&
    out.enum === undefined &&
    out.const === undefined
  ) {
    out.anyOf = ['string', 'number', 'boolean', 'null'].map((type) => ({ type }));
  }
  return out;
}

const acceptsNull = (schema: unknown): boolean =>
  isObject(schema) &&
  (schema.type === 'null' ||
    (Array.isArray(schema.type) && schema.type.includes('null')) ||
    schema.const === null ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some(acceptsNull)));

const isPair = (value: unknown): value is { key: string; value: unknown } =>
  isObject(value) && typeof value.key === 'string' && 'value' in value;

/**
 * Arguments for our tool's input schema (`schema`, as declared to models) from arguments written
 * against strictSchema(schema): nulls for properties that do not take null are dropped, {key, value}
 * lists become maps. Anything else is left as it is, for the tool's validator to judge.
 */
export function looseArguments(schema: unknown, value: unknown): unknown {
  if (!isObject(schema)) return value;
  const mapped = mapValueSchema(schema);
  if (mapped !== undefined && Array.isArray(value) && value.every(isPair)) {
    return Object.fromEntries(value.map((pair) => [pair.key, looseArguments(mapped, pair.value)]));
  }
  if (Array.isArray(value)) return value.map((item) => looseArguments(schema.items, item));
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !acceptsNull(properties[key])) continue;
    out[key] = looseArguments(properties[key], item);
  }
  return out;
}
