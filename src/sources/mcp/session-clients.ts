// The MCP server processes of live sessions (and the connections to URL servers, shared by all): one per
// (session, server), started lazily by the first call of one of its tools, reused by later calls, and gone
// with the session's runtime (its process dies with the runtime; a closed connection is forgotten, so the
// next call starts a fresh one). A server process counts as a running command, which keeps its runtime
// alive; so a session's server unused for the runtime's idle time is stopped, and the runtime can idle
// out as it would without it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerConfig } from '../../config.js';
import type { ToolLogger } from '../../lib/logger.js';
import type { SessionRuntime } from '../../runtime/session-runtime.js';
import { connectServer, connectUrlServer } from './server-process.js';

export class McpSessionClients {
  private readonly clients = new Map<string, Promise<Client>>();
  private readonly lastUse = new Map<string, number>();
  /** Servers still starting: never idle (a cold runtime container may take longer than the idle time). */
  private readonly starting = new Set<string>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly servers: Readonly<Record<string, McpServerConfig>>,
    private readonly logger: ToolLogger,
    private readonly idleMs: number,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1000, Math.floor(idleMs / 2)));
    this.sweeper.unref();
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [key, used] of this.lastUse) {
      if (now - used < this.idleMs || this.starting.has(key)) continue;
      this.lastUse.delete(key);
      const client = this.clients.get(key);
      this.clients.delete(key);
      void client?.then((c) => c.close()).catch(() => undefined);
    }
  }

  /** The connected client of `server` in this runtime's session, started if needed. */
  client(server: string, runtime: SessionRuntime): Promise<Client> {
    const config = this.servers[server];
    // A URL server is one remote service: one connection for every session.
    const key = config.url !== undefined ? `\0url\0${server}` : `${runtime.sessionId}\0${server}`;
    if (config.url === undefined) this.lastUse.set(key, Date.now());
    let client = this.clients.get(key);
    if (!client) {
      client =
        config.url !== undefined
          ? connectUrlServer(config)
          : connectServer(server, config, runtime, this.logger);
      this.clients.set(key, client);
      this.starting.add(key);
      client.then(
        (connected) => {
          this.starting.delete(key);
          // Idle counts from when the server is up, not from the call that started it.
          if (config.url === undefined) this.lastUse.set(key, Date.now());
          connected.onclose = () => {
            if (this.clients.get(key) === client) this.clients.delete(key);
          };
        },
        () => {
          this.starting.delete(key);
          this.clients.delete(key);
        },
      );
    }
    return client;
  }

  /** Stops the servers of one session (it is being deleted). */
  async closeSession(sessionId: string): Promise<void> {
    const prefix = `${sessionId}\0`;
    const closing = [...this.clients.entries()].filter(([key]) => key.startsWith(prefix));
    for (const [key] of closing) {
      this.clients.delete(key);
      this.lastUse.delete(key);
    }
    await Promise.all(closing.map(([, client]) => client.then((c) => c.close()).catch(() => undefined)));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.lastUse.clear();
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((client) => client.then((c) => c.close()).catch(() => undefined)));
  }
}
