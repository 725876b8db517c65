// The SynthDev tool system's definition.json, accepted as that system writes it: `name`, `description`,
// `auto_run`, `version`, `tags` (and the optional `category`, `requires_backup`,
// `backup_resource_path_property_name`, `author` it may add) around an OpenAI function in `schema`, whose
// `response_format.description` says what the tool returns. It becomes our Definition: the parameters
// from `schema.function.parameters`, the description the model reads from the function (plus what it
// returns), the category from the file or else the operator's `toolFolders.category`, and — since the
// format says nothing about what a tool does — the capabilities of a command (read, write, execute),
// unless the file declares `capabilities` itself.
import { Type, type Static } from 'typebox';
import { CapabilitiesSchema, type Capabilities } from '../../lib/capabilities.js';
import { TOOL_NAME_PATTERN } from '../../contract/tool.js';

const SnakeName = Type.String({ pattern: TOOL_NAME_PATTERN.source });

export const SynthDevDefinitionSchema = Type.Object(
  {
    name: SnakeName,
    description: Type.String({ minLength: 1 }),
    auto_run: Type.Boolean({ default: true }),
    version: Type.String({ minLength: 1, default: '1.0.0' }),
    tags: Type.Array(Type.String(), { default: [] }),
    category: Type.Optional(SnakeName),
    author: Type.Optional(Type.String()),
    /** SynthDev snapshots the named file before the call; toolgate keeps its own history (undo_edit). */
    requires_backup: Type.Optional(Type.Boolean()),
    backup_resource_path_property_name: Type.Optional(Type.String()),
    /** Not SynthDev's: a file may still say what the tool does, and then needs fewer permissions. */
    capabilities: Type.Optional(CapabilitiesSchema),
    schema: Type.Object(
      {
        type: Type.Literal('function'),
        function: Type.Object(
          {
            name: SnakeName,
            description: Type.Optional(Type.String()),
            parameters: Type.Object(
              {
                type: Type.Literal('object'),
                properties: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())),
                required: Type.Optional(Type.Array(Type.String())),
              },
              { additionalProperties: true },
            ),
            response_format: Type.Optional(
              Type.Object({ description: Type.Optional(Type.String()) }, { additionalProperties: true }),
            ),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type SynthDevDefinition = Static<typeof SynthDevDefinitionSchema>;

/** A file in this format: it has `schema` (ours has `parameters` at the top). */
export const isSynthDevFormat = (raw: unknown): boolean =>
  typeof raw === 'object' && raw !== null && 'schema' in raw;

/** What a command may do: a tool that says nothing about itself is given exactly that, never less. */
export const UNDECLARED_CAPABILITIES: Capabilities = {
  readsFiles: true,
  writesFiles: true,
  executesCommands: true,
  destructive: true,
};

/** The fields of our definition that a SynthDev file determines. */
export function fromSynthDev(definition: SynthDevDefinition, defaultCategory: string) {
  const fn = definition.schema.function;
  const returns = fn.response_format?.description?.trim();
  const description = fn.description?.trim() || definition.description;
  return {
    name: definition.name,
    description: returns ? `${description}\n\nReturns: ${returns}` : description,
    version: definition.version,
    tags: definition.tags,
    auto_run: definition.auto_run,
    category: definition.category ?? defaultCategory,
    capabilities: definition.capabilities ?? UNDECLARED_CAPABILITIES,
    parameters: fn.parameters,
  };
}
