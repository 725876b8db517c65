// Where the tools come from, wired: the built-ins, the operator's tool folders (loaded, then watched), MCP
// servers' tools and plugin modules, all in one registry behind the sandbox gate, with their lifecycles.
// Three steps, in the start order: the folders are read first (a bad one stops the start before the ingress
// listens or any runtime starts), the registry is filled once the runtimes exist (MCP discovery starts
// some), and the folders are watched once the audit log exists. src/services.ts composes them.
import path from 'node:path';
import type { Config } from '../config.js';
import { loadPluginTools } from '../contract/plugins.js';
import { ToolRegistry } from '../contract/registry.js';
import { gateOnSandbox } from '../contract/sandbox-gate.js';
import type { AnyTool } from '../contract/tool.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { ToolLogger } from '../lib/logger.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { SandboxStatus } from '../runtime/runner/types.js';
import type { WorkspaceManager } from '../sandbox/workspaces.js';
import type { AuditStore } from '../store/audit.js';
import { BUILTIN_TOOLS } from '../tools/index.js';
import { loadToolFolders, type LoadedFolder } from './folder/load.js';
import { sourceOf, ToolFolderWatcher } from './folder/watch.js';
import { discoverMcpTools } from './mcp/discover.js';
import { McpSessionClients } from './mcp/session-clients.js';

/** The tool folders of TOOLGATE_TOOLS_DIR (none without it); a bad folder stops the start. */
export async function loadFolderTools(
  config: Pick<Config, 'toolsDir' | 'toolFolders'>,
): Promise<LoadedFolder[]> {
  return config.toolsDir
    ? await loadToolFolders(config.toolsDir, { defaultCategory: config.toolFolders.category })
    : [];
}

export interface ToolSourceParts {
  readonly registry: ToolRegistry;
  readonly mcpClients: McpSessionClients;
  readonly lifecycles: { readonly mcpClients: Lifecycle; readonly tools: Lifecycle };
}

/** Every tool in one registry, each behind the sandbox gate (execution tools refuse when it is off). */
export async function wireToolSources(
  config: Config,
  logger: ToolLogger,
  parts: {
    /** Replaces the built-in list (tests). */
    builtins: readonly AnyTool[] | undefined;
    toolFolders: readonly LoadedFolder[];
    sandbox: SandboxStatus;
    runtimes: RuntimeManager;
    workspaces: WorkspaceManager;
  },
): Promise<ToolSourceParts> {
  const gate = (tool: AnyTool) => gateOnSandbox(tool, parts.sandbox);
  const registry = new ToolRegistry();
  for (const tool of parts.builtins ?? BUILTIN_TOOLS) registry.add(gate(tool), 'builtin');
  for (const { folder, tool } of parts.toolFolders) registry.add(gate(tool), sourceOf(path.basename(folder)));
  const mcpClients = new McpSessionClients(config.mcpServers, logger, config.runtime.idleSeconds * 1000);
  const deps = { runtimes: parts.runtimes, workspaces: parts.workspaces, clients: mcpClients, logger };
  for (const { server, tools } of await discoverMcpTools(config, deps)) {
    for (const tool of tools) registry.add(gate(tool), `mcp ${server}`);
  }
  if (config.pluginsDir) {
    for (const { file, tools } of await loadPluginTools(config.pluginsDir)) {
      for (const tool of tools) registry.add(gate(tool), `plugin ${file}`);
    }
  }
  return {
    registry,
    mcpClients,
    lifecycles: {
      mcpClients: {
        name: 'mcp-clients',
        forgetSession: (id) => mcpClients.closeSession(id),
        close: () => mcpClients.close(),
      },
      tools: {
        name: 'tools',
        close: async () => {
          for (const { tool } of registry.list()) await tool.shutdown?.();
        },
      },
    },
  };
}

/** The tool folders loaded again as they change (undefined without TOOLGATE_TOOLS_DIR), watching now. */
export function watchToolFolders(
  config: Pick<Config, 'toolsDir' | 'toolFolders'>,
  logger: ToolLogger,
  parts: { registry: ToolRegistry; audit: AuditStore; sandbox: SandboxStatus; toolFolders: LoadedFolder[] },
): { folderWatcher: ToolFolderWatcher | undefined; lifecycle: Lifecycle } {
  const folderWatcher = config.toolsDir
    ? new ToolFolderWatcher(config.toolsDir, {
        registry: parts.registry,
        audit: parts.audit,
        logger,
        prepare: (tool) => gateOnSandbox(tool, parts.sandbox),
        options: { defaultCategory: config.toolFolders.category },
      })
    : undefined;
  folderWatcher?.start(parts.toolFolders);
  // No tool folder is loaded while the rest closes.
  return { folderWatcher, lifecycle: { name: 'tool-folders', close: () => folderWatcher?.close() } };
}
