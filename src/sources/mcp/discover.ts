// At start, each configured MCP server is run once inside a sandbox of its own (a fresh, empty workspace,
// no network) to list its tools, which become toolgate tools. A server that cannot start or list stops
// the start with a message naming it, like a bad config key.
import { randomBytes } from 'node:crypto';
import type { Config, McpServerConfig } from '../../config.js';
import type { ToolLogger } from '../../lib/logger.js';
import type { AnyTool } from '../../contract/tool.js';
import type { RuntimeManager } from '../../runtime/manager.js';
import type { WorkspaceManager } from '../../sandbox/workspaces.js';
import { mcpTool } from './mcp-tool.js';
import { connectServer, connectUrlServer } from './server-process.js';
import type { McpSessionClients } from './session-clients.js';

async function listUrlTools(name: string, server: McpServerConfig, clients: McpSessionClients) {
  try {
    const client = await connectUrlServer(server);
    try {
      const { tools } = await client.listTools();
      return tools.map((tool) => mcpTool(name, server, tool, clients));
    } finally {
      await client.close();
    }
  } catch (err) {
    throw new Error(
      `mcpServers.${name}: ${server.url} could not be reached to list its tools (${(err as Error).message})`,
      {
        cause: err,
      },
    );
  }
}

export async function discoverMcpTools(
  config: Config,
  deps: {
    runtimes: RuntimeManager;
    workspaces: WorkspaceManager;
    clients: McpSessionClients;
    logger: ToolLogger;
  },
): Promise<{ server: string; tools: AnyTool[] }[]> {
  const found: { server: string; tools: AnyTool[] }[] = [];
  for (const [name, server] of Object.entries(config.mcpServers)) {
    if (server.url !== undefined) {
      found.push({ server: name, tools: await listUrlTools(name, server, deps.clients) });
      continue;
    }
    const id = `mcp-discovery-${randomBytes(6).toString('hex')}`;
    await deps.workspaces.create(id);
    try {
      const runtime = deps.runtimes.for({ id });
      const client = await connectServer(name, server, runtime, deps.logger);
      try {
        const { tools } = await client.listTools();
        found.push({ server: name, tools: tools.map((tool) => mcpTool(name, server, tool, deps.clients)) });
      } finally {
        await client.close();
      }
    } catch (err) {
      throw new Error(
        `mcpServers.${name}: the server could not be started to list its tools (${(err as Error).message})`,
        {
          cause: err,
        },
      );
    } finally {
      await deps.runtimes.remove(id);
      await deps.workspaces.remove(id);
    }
  }
  return found;
}
