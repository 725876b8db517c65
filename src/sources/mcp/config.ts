// The MCP servers' config (docs/tool-platform.md): the file's `mcpServers`, whose tools become toolgate
// tools, and `mcpAllowedHosts`, the hosts a `url` server may be on.
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { ConfigError } from '../../config/error.js';
import { withDefaults } from '../../config/section.js';
import { CapabilitiesSchema } from '../../lib/capabilities.js';

/** Behaviour an operator declares for an MCP server's tool, replacing what its annotations say. */
const McpToolOverrideSchema = Type.Object(
  {
    capabilities: CapabilitiesSchema,
  },
  { additionalProperties: false },
);

/**
 * An MCP server whose tools become toolgate tools: a stdio `command`, started per session inside its
 * runtime, or a Streamable HTTP `url` on a host listed in `mcpAllowedHosts`, shared by all sessions.
 */
const McpServerSchema = Type.Object(
  {
    /** "node" means the Node.js binary the runtime itself runs on. */
    command: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** `${WORKSPACE}` in an argument or env value is the workspace directory as the server sees it. */
    args: Type.Array(Type.String(), { default: [] }),
    env: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String(), {
      additionalProperties: false,
      default: {},
    }),
    /** Host directories the server needs (its package, its node_modules), shown read-only in the sandbox. */
    readOnlyPaths: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    tools: Type.Record(Type.String(), McpToolOverrideSchema, { default: {} }),
    callTimeoutMs: Type.Integer({ minimum: 1, maximum: 600_000, default: 60_000 }),
  },
  { additionalProperties: false },
);
export type McpServerConfig = Static<typeof McpServerSchema>;
/** As written in the file: server name → the server, everything but the command or URL left out at will. */
export const McpServersFileSchema = Type.Record(
  Type.String({ pattern: '^[a-z][a-z0-9_]{0,30}$' }),
  Type.Partial(McpServerSchema, { additionalProperties: false }),
  { additionalProperties: false },
);
/** Hosts (name or address, as in the URL) that `url` MCP servers may be on. */
export const McpAllowedHostsSchema = Type.Array(Type.String({ minLength: 1 }));

/** The file's servers with their defaults and resolved paths, each checked against the allowed hosts. */
export function mcpServersConfig(
  file: Static<typeof McpServersFileSchema> | undefined,
  allowedHosts: string[] | undefined,
): Record<string, McpServerConfig> {
  const servers = Object.fromEntries(
    Object.entries(file ?? {}).map(([name, server]) => [
      name,
      {
        ...withDefaults(McpServerSchema, server),
        readOnlyPaths: (server.readOnlyPaths ?? []).map((dir) => path.resolve(dir)),
      },
    ]),
  );
  checkMcpServers(servers, allowedHosts ?? []);
  return servers;
}

/** Each MCP server has a command or a URL, and a URL only on an allowed host. */
function checkMcpServers(servers: Record<string, McpServerConfig>, allowedHosts: string[]): void {
  for (const [name, server] of Object.entries(servers)) {
    if ((server.command === undefined) === (server.url === undefined)) {
      throw new ConfigError(`mcpServers.${name}: give exactly one of "command" (stdio) or "url"`);
    }
    if (server.url === undefined) continue;
    let host: string;
    try {
      host = new URL(server.url).hostname;
    } catch {
      throw new ConfigError(`mcpServers.${name}.url: not a valid URL`);
    }
    if (!allowedHosts.includes(host)) {
      throw new ConfigError(
        `mcpServers.${name}.url: host ${host} is not in mcpAllowedHosts (${allowedHosts.join(', ') || 'empty'})`,
      );
    }
  }
}
