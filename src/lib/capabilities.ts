// What a tool may do, as a schema: tool definitions, tool folders and the operator's overrides for MCP
// servers (in the config file) all declare it, so it lives below both the config and the tool contract.
import { Type, type Static } from 'typebox';

/**
 * What a tool may do; permissions, policy and MCP hints are derived from these. A schema, because tool
 * folders and the operator's overrides for MCP servers declare them in JSON.
 */
export const CapabilitiesSchema = Type.Object(
  {
    readsFiles: Type.Optional(Type.Boolean()),
    writesFiles: Type.Optional(Type.Boolean()),
    executesCommands: Type.Optional(Type.Boolean()),
    network: Type.Optional(Type.Boolean()),
    idempotent: Type.Optional(
      Type.Boolean({ description: 'Calling twice with the same input has the same effect as once' }),
    ),
    destructive: Type.Optional(Type.Boolean({ description: 'May delete or overwrite existing data' })),
  },
  { additionalProperties: false },
);
export type Capabilities = Static<typeof CapabilitiesSchema>;
