// Builds a small valid example input from a JSON Schema, for docs and validation errors.
type JsonSchema = Record<string, unknown>;

export function exampleFor(schema: JsonSchema, depth = 0): unknown {
  if (depth > 6) return null;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants?.length) return exampleFor(variants[0], depth + 1);
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) {
        if (required.has(key)) out[key] = exampleFor(sub, depth + 1);
      }
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const item = schema.items && typeof schema.items === 'object' ? (schema.items as JsonSchema) : {};
      return min > 0 ? Array.from({ length: min }, () => exampleFor(item, depth + 1)) : [];
    }
    case 'string':
      return typeof schema.minLength === 'number' && schema.minLength > 7
        ? 'x'.repeat(schema.minLength)
        : 'example';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}
