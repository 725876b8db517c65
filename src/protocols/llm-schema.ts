// A tool's input schema as LLM vendors want it: plain JSON (TypeBox's hidden keys gone), and fields with a
// default no longer required, since the pipeline fills them in and a model should feel free to omit them.
import type { AnyTool } from '../contract/tool.js';

export type { JsonObject } from '../lib/json.js';
import { isJsonObject as isObject, type JsonObject } from '../lib/json.js';

/** The root of a tool's parameters: always an object schema. */
export interface ObjectSchema extends JsonObject {
  type: 'object';
  properties: Record<string, JsonObject>;
  required?: string[];
}

/** Property schemas are objects (a bare `true`/`false` schema says nothing a model can use). */
const objectProperties = (value: unknown): Record<string, JsonObject> =>
  isObject(value)
    ? Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, JsonObject] => isObject(entry[1])),
      )
    : {};

/** Deep copy of a JSON Schema with `required` relaxed for defaulted properties, at every level. */
export function relaxDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(relaxDefaults);
  if (!isObject(schema)) return schema;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    // `default`, `enum`, `const` and `examples` hold values, not schemas: copy them verbatim.
    copy[key] =
      key === 'default' || key === 'enum' || key === 'const' || key === 'examples'
        ? value
        : relaxDefaults(value);
  }
  if (isObject(copy.properties) && Array.isArray(copy.required)) {
    const properties = copy.properties;
    const required = copy.required.filter(
      (name) => typeof name !== 'string' || !(isObject(properties[name]) && 'default' in properties[name]),
    );
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  return copy;
}

/** JSON round trip: drops TypeBox's non-enumerable bookkeeping and anything not JSON. */
const plainJson = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema ?? {})) as unknown;

export function llmInputSchema(tool: AnyTool): ObjectSchema {
  const relaxed = relaxDefaults(plainJson(tool.input));
  const schema = isObject(relaxed) ? relaxed : {};
  delete schema.$id;
  delete schema.$schema;
  return { ...schema, type: 'object', properties: objectProperties(schema.properties) };
}

/** The tool's output schema when it describes an object (MCP's outputSchema must); undefined otherwise. */
export function objectOutputSchema(tool: AnyTool): ObjectSchema | undefined {
  const output = plainJson(tool.output);
  if (!isObject(output) || output.type !== 'object') return undefined;
  delete output.$id;
  delete output.$schema;
  return { ...output, type: 'object', properties: objectProperties(output.properties) };
}
