// The egress service: the one way out of every session's network namespace. A session runtime with the
// network gets a Unix socket of its own (openSessionSocket), which the backend shows inside the sandbox;
// the proxy behind it checks each connection against the session's policy and the blocked ranges,
// connects to the checked address and accounts for it. Tools in the service process (web_fetch) use
// the same decision and accounting through `target` and `connections`. Backend-agnostic: bwrap binds
// the socket into the sandbox, a container backend mounts it; unisolated, it is just a path.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import type { NetworkPolicy } from '../config.js';
import { toolgateError } from '../lib/errors.js';
import { probeSplice } from '../lib/splice-forwarder.js';
import { Connections, type ConnectionSink } from './connections.js';
import { decide, type Decision } from './decide.js';
import { effectivePolicy } from './policy.js';
import { createProxyServer } from './proxy.js';
import { AddressRules } from './ranges.js';
import { Resolver } from './resolver.js';

export interface EgressOptions {
  /** Directory of the per-session sockets (created 0700; the sockets are the sessions' identities). */
  readonly socketsDir: string;
  readonly openRanges: readonly string[];
  readonly hostsFile?: string;
  readonly connectTimeoutMs: number;
  /** Bytes a connection moves through the proxy's copy before splice(2) carries it (0 = never). */
  readonly spliceAfterBytes?: number;
  /** Bytes a session's connections may move in all; 0 = no quota. */
  readonly quotaBytes: number;
  readonly sink: ConnectionSink;
}

/** A session's egress socket while its runtime lives. */
export interface EgressSocket {
  readonly socketPath: string;
  /** Whether the sandbox's relay may use splice(2) too (spliceAfterBytes not 0). */
  readonly splice: boolean;
  close(): Promise<void>;
}

/** Where the socket appears inside a sandbox (the runtime relays 127.0.0.1:<port> to it). */
export const SANDBOX_EGRESS_SOCKET = '/run/toolgate/egress.sock';
/** sockaddr_un holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export class Egress {
  readonly connections: Connections;
  private readonly rules: AddressRules;
  private readonly resolver: Resolver;
  private readonly servers = new Set<Server>();
  /** The sockets directory, emptied once of what a crashed run left (before the first socket is made). */
  private prepared: Promise<unknown> | undefined;

  constructor(private readonly options: EgressOptions) {
    this.rules = new AddressRules(options.openRanges);
    this.resolver = new Resolver(options.hostsFile);
    this.connections = new Connections(options.quotaBytes, options.sink);
    // Whether bulk transfers can be spliced is known before the first one (handoff.ts).
    if (options.spliceAfterBytes !== 0) void probeSplice();
  }

  /** The decision for one destination under `policy` (the quota aside: see connections.refusal). */
  decide(policy: NetworkPolicy, host: string, port: number): Promise<Decision> {
    return decide(this.rules, this.resolver, effectivePolicy(policy), host, port);
  }

  /**
   * A listener for one session's runtime: every connection made through it is that session's. Closed by
   * the caller when the runtime stops (tunnels already open end with the runtime's processes).
   */
  async openSessionSocket(
    sessionId: string,
    policy: NetworkPolicy,
    openRanges: readonly string[] = [],
  ): Promise<EgressSocket> {
    const dir = this.options.socketsDir;
    this.prepared ??= rm(dir, { recursive: true, force: true }).then(() =>
      mkdir(dir, { recursive: true, mode: 0o700 }),
    );
    await this.prepared;
    // A random part: a session's own runtime and a one-shot runtime (a clone) may run at once.
    const socketPath = path.join(
      this.options.socketsDir,
      `${sessionId}-${randomBytes(4).toString('hex')}.sock`,
    );
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
      throw toolgateError(
        'RUNTIME_UNAVAILABLE',
        `The egress socket path ${socketPath} is longer than a Unix socket path may be`,
        { suggestion: 'Use a shorter TOOLGATE_DATA_DIR.' },
      );
    }
    const effective = effectivePolicy(policy);
    // Ranges opened for this socket alone (a clone from an address the operator listed for git).
    const rules =
      openRanges.length > 0 ? new AddressRules([...this.options.openRanges, ...openRanges]) : this.rules;
    const server = createProxyServer({
      sessionId,
      decide: (host, port) => decide(rules, this.resolver, effective, host, port),
      connections: this.connections,
      connectTimeoutMs: this.options.connectTimeoutMs,
      ...(this.options.spliceAfterBytes !== undefined
        ? { spliceAfterBytes: this.options.spliceAfterBytes }
        : {}),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    // The sandbox's user is not the service's: it must be able to connect. The directory (0700) keeps
    // every other host user out; inside, only this session's sandbox has the socket.
    await chmod(socketPath, 0o666);
    this.servers.add(server);
    return {
      socketPath,
      splice: this.options.spliceAfterBytes !== 0,
      close: async () => {
        if (!this.servers.delete(server)) return;
        // Not waited for: a tunnel's socket is no longer the server's to track once upgraded.
        server.close();
        server.closeAllConnections();
        await rm(socketPath, { force: true });
      },
    };
  }

  /** The session is gone: its open connections are closed. */
  forgetSession(sessionId: string): void {
    this.connections.forget(sessionId);
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.close();
      server.closeAllConnections();
    }
    this.servers.clear();
    await rm(this.options.socketsDir, { recursive: true, force: true });
  }
}
