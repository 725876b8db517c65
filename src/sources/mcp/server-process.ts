// Starts a configured MCP server inside a session's runtime (so it sees only that workspace, under the
// session's sandbox and limits) and connects the SDK's Client to it over the process's stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig } from '../../config.js';
import type { ToolLogger } from '../../lib/logger.js';
import type { SessionRuntime } from '../../runtime/session-runtime.js';
import { BASE_ENV } from '../../runtime/runner/runner.js';
import { effectiveLimits } from '../../runtime/runner/limits.js';
import { ProcessTransport } from './process-transport.js';

/** A server lives as long as its session's runtime: its CPU limit is the ceiling, not one call's. */
const SERVER_LIFETIME_MS = 600_000;
const WORKSPACE = '${WORKSPACE}';

/** One shell word; `${WORKSPACE}` becomes "$PWD" (the command starts in the workspace). */
const shellWord = (value: string) =>
  value
    .split(WORKSPACE)
    .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
    .join('"$PWD"');

export function serverCommandLine(server: McpServerConfig & { command: string }, nodePath: string): string {
  const env = Object.entries(server.env).map(([name, value]) => `export ${name}=${shellWord(value)}; `);
  const command = server.command === 'node' ? nodePath : server.command;
  return `${env.join('')}exec ${[command, ...server.args].map(shellWord).join(' ')}`;
}

/** A Streamable HTTP server (`url`), reached from the service on an allowed host. */
export async function connectUrlServer(server: McpServerConfig): Promise<Client> {
  const client = new Client({ name: 'toolgate', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
  return client;
}

export async function connectServer(
  name: string,
  server: McpServerConfig,
  runtime: SessionRuntime,
  logger: ToolLogger,
): Promise<Client> {
  if (server.command === undefined) throw new Error(`MCP server ${name} has no command`);
  const child = await runtime.spawn({
    command: serverCommandLine({ ...server, command: server.command }, runtime.nodePath),
    cwd: '.',
    env: BASE_ENV,
    limits: effectiveLimits(SERVER_LIFETIME_MS),
  });
  const transport = new ProcessTransport(child, (text) =>
    logger.debug(
      { mcpServer: name, sessionId: runtime.sessionId, stderr: text.slice(0, 2000) },
      'mcp server',
    ),
  );
  const client = new Client({ name: 'toolgate', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    child.kill();
    throw err;
  }
  return client;
}
