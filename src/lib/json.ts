// A JSON object as parsed from the wire or a schema: a plain object, not null, not an array.
export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
