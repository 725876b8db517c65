// The schema of a tool folder's definition.json (ours; SynthDev's in synthdev.ts), and its check at start: a bad definition stops the start
// with a message naming the file and the field, the same way a bad config file does.
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { Compile } from 'typebox/compile';
import { CapabilitiesSchema } from '../../lib/capabilities.js';
import { TOOL_NAME_PATTERN } from '../../contract/tool.js';
import { fromSynthDev, isSynthDevFormat, SynthDevDefinitionSchema } from './synthdev.js';

const SnakeName = Type.String({ pattern: TOOL_NAME_PATTERN.source });

/** An input JSON Schema in the OpenAI function shape (`parameters`): an object with properties. */
const ParametersSchema = Type.Object(
  {
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
    required: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);

export const DefinitionSchema = Type.Object(
  {
    name: SnakeName,
    description: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1, default: '1.0.0' }),
    tags: Type.Array(Type.String(), { default: [] }),
    /** false: every call waits for an operator's approval. */
    auto_run: Type.Boolean({ default: true }),
    category: SnakeName,
    capabilities: CapabilitiesSchema,
    parameters: ParametersSchema,
    output_schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    examples: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
    /** The entry: words of a command (files of the folder named by their relative path); else `run`. */
    command: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String(), { minItems: 1 })]),
    ),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
    retryable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type Definition = Static<typeof DefinitionSchema>;

export class DefinitionError extends Error {
  constructor(file: string, field: string, problem: string) {
    super(`${file}: ${field} ${problem}`);
    this.name = 'DefinitionError';
  }
}

const fieldOf = (instancePath: string) =>
  instancePath === '' ? '(definition)' : instancePath.slice(1).replace(/\//g, '.');

/** The value with the schema's defaults, or a DefinitionError naming `file` and the first bad field. */
function checked<T extends TSchema>(schema: T, file: string, raw: unknown): Static<T> {
  const value = Value.Default(schema, raw);
  const errors = [...Value.Errors(schema, value)];
  if (errors.length > 0) {
    const first = errors[0] as unknown as { instancePath: string; schemaPath: string; message: string };
    // An unknown field is reported against its own path by an `additionalProperties: false` schema.
    const unknownField = first.schemaPath.endsWith('/additionalProperties');
    throw new DefinitionError(
      file,
      fieldOf(first.instancePath),
      unknownField ? 'is not a known field' : first.message,
    );
  }
  return value as Static<T>;
}

export interface DefinitionOptions {
  /** The category of a definition that names none (SynthDev's format): config `toolFolders.category`. */
  defaultCategory: string;
}

/**
 * The parsed definition with defaults, or a DefinitionError naming `file` and the first bad field. Ours,
 * or the SynthDev tool system's format (with `schema`), read as it is written (see synthdev.ts).
 */
export function checkDefinition(file: string, text: string, options: DefinitionOptions): Definition {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new DefinitionError(file, '(file)', `is not valid JSON (${(err as Error).message})`);
  }
  let value: Definition;
  if (isSynthDevFormat(raw)) {
    const synthDev = checked(SynthDevDefinitionSchema, file, raw);
    if (synthDev.schema.function.name !== synthDev.name) {
      throw new DefinitionError(file, 'schema.function.name', `must equal name ("${synthDev.name}")`);
    }
    value = fromSynthDev(synthDev, options.defaultCategory) as Definition;
  } else {
    value = checked(DefinitionSchema, file, raw);
  }
  const definition = value;
  for (const [field, schema] of [
    ['parameters', definition.parameters],
    ['output_schema', definition.output_schema],
  ] as const) {
    if (schema === undefined) continue;
    try {
      Compile(schema as never);
    } catch (err) {
      throw new DefinitionError(file, field, `is not a usable JSON Schema (${(err as Error).message})`);
    }
  }
  const parametersCheck = Compile(definition.parameters as never);
  definition.examples?.forEach((example, index) => {
    if (!parametersCheck.Check(Value.Default(definition.parameters as never, structuredClone(example)))) {
      throw new DefinitionError(file, `examples[${index}]`, 'does not match parameters');
    }
  });
  return definition;
}
