// An MCP server's tool as a toolgate tool `<server>__<tool>` in the category named after the server:
// input schema from the server, capabilities from its annotations (or the operator's override), and
// every call through the pipeline, then to the session's own server process inside its sandbox.
import type { Tool as McpToolDeclaration } from '@modelcontextprotocol/sdk/types.js';
import { Type, type TSchema } from 'typebox';
import type { McpServerConfig } from '../../config.js';
import { toolgateError } from '../../lib/errors.js';
import { defineTool, titleOf, type AnyTool } from '../../contract/tool.js';
import type { Capabilities } from '../../lib/capabilities.js';
import type { McpSessionClients } from './session-clients.js';

/** What the MCP behaviour hints say a tool may do (a tool without hints is treated as one that writes). */
export function capabilitiesOf(annotations: McpToolDeclaration['annotations']): Capabilities {
  const readOnly = annotations?.readOnlyHint === true;
  return {
    readsFiles: true,
    ...(readOnly ? {} : { writesFiles: true }),
    ...(annotations?.destructiveHint === true && !readOnly ? { destructive: true } : {}),
    ...(annotations?.idempotentHint === true ? { idempotent: true } : {}),
    ...(annotations?.openWorldHint === true ? { network: true } : {}),
  };
}

/** The server's annotations less its title (the declaration's title is the prefixed one). */
function hintsOnly(annotations: McpToolDeclaration['annotations']): Record<string, unknown> {
  const { title: _title, ...hints } = annotations ?? {};
  return hints;
}

interface TextContent {
  type: string;
  text?: string;
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? (content as TextContent[])
        .filter((part) => part.type === 'text' && typeof part.text === 'string')
        .map((part) => part.text)
        .join('\n')
    : '';

export function mcpTool(
  serverName: string,
  server: McpServerConfig,
  declaration: McpToolDeclaration,
  clients: McpSessionClients,
): AnyTool {
  const override = server.tools[declaration.name];
  const upstreamTitle = declaration.title ?? declaration.annotations?.title;
  return defineTool({
    name: `${serverName}__${declaration.name}`,
    category: serverName,
    // The server's own title, after the server's name: "fs: Read Text File".
    title: `${serverName}: ${upstreamTitle ?? titleOf(declaration.name)}`,
    description: declaration.description ?? `${declaration.name} (MCP server ${serverName})`,
    tags: ['mcp', serverName],
    capabilities: override?.capabilities ?? capabilitiesOf(declaration.annotations),
    input: declaration.inputSchema as unknown as TSchema,
    output: (declaration.outputSchema ?? Type.Unknown()) as unknown as TSchema,
    // Its hints as the server gave them, unless the operator declared the capabilities (then toolgate's
    // own hints, from those, are the truth).
    mcp: {
      ...(override ? {} : { annotations: hintsOnly(declaration.annotations) }),
      ...(declaration._meta ? { meta: declaration._meta } : {}),
    },
    timeoutMs: () => server.callTimeoutMs,
    async execute(input, ctx) {
      const client = await clients.client(serverName, ctx.workspace.runtime);
      const result = await client.callTool(
        { name: declaration.name, arguments: input as Record<string, unknown> },
        undefined,
        { signal: ctx.signal, timeout: server.callTimeoutMs },
      );
      if (result.isError === true) {
        throw toolgateError(
          'TOOL_FAILED',
          `${serverName}__${declaration.name}: ${textOf(result.content) || 'failed'}`,
        );
      }
      return result.structuredContent ?? { content: result.content };
    },
    render: (data) => {
      const text = textOf((data as { content?: unknown }).content);
      return text || JSON.stringify(data);
    },
  });
}
