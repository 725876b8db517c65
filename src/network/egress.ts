// The egress service: the one way out of every session's network namespace. A session runtime with the
// network gets a Unix socket of its own (openSessionSocket), which the backend shows inside the sandbox;
// the proxy behind it checks each connection against the session's policy and the blocked ranges,
// connects to the checked address and accounts for it. Tools in the service process (web_fetch) use
// the same decision and accounting through `target` and `connections`. Backend-agnostic: bwrap binds
// the socket into the sandbox, a container backend mounts it; unisolated, it is just a path.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import type { NetworkPolicy } from '../config.js';
import { toolgateError } from '../lib/errors.js';
import { probeSplice } from './splice-forwarder.js';
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
/** The socket's name in its directory, as inside a sandbox. */
const SOCKET_FILE = path.basename(SANDBOX_EGRESS_SOCKET);
/** sockaddr_un holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export class Egress {
  readonly connections: Connections;
  private readonly rules: AddressRules;
  private readonly resolver: Resolver;
  private readonly servers = new Set<Server>();
  /** The sockets directory, emptied once of what a crashed run left (before the first socket is made). */
  private prepared: Promise<unknown> | undefined;
  /** Stable socket paths and the server listening there now (see openSessionSocket's `stable`). */
  private readonly stableOwners = new Map<string, Server>();

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
    { stable = false }: { stable?: boolean } = {},
  ): Promise<EgressSocket> {
    this.prepared ??= this.prepare();
    await this.prepared;
    // Each socket in a directory of its own, which a container backend mounts (not the socket file):
    // a socket made again at the same path is then seen by a container that outlived the service.
    // Stable (a session's own runtime on a backend whose runtimes outlive the service): the same path
    // every time. Else a random part: a session's own runtime and a one-shot runtime (a clone) may run
    // at once. Session ids have no dots, so the random ones never meet a session's directory.
    const socketDir = path.join(
      this.options.socketsDir,
      stable ? sessionId : `${sessionId}.${randomBytes(4).toString('hex')}`,
    );
    const socketPath = path.join(socketDir, SOCKET_FILE);
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
    // The sandbox's user is not the service's: it must be able to reach and connect to the socket. The
    // sockets directory (0700) keeps every other host user out; inside, only this session's sandbox has
    // its own directory.
    await mkdir(socketDir, { recursive: true, mode: 0o711 });
    await chmod(socketDir, 0o711);
    // A stable path may still be held by the server of the runtime's previous start (its close runs
    // after the runtime's end) or be a leftover of a service that died: this one takes it over.
    if (stable) {
      const previous = this.stableOwners.get(socketPath);
      if (previous) this.stopServer(previous);
      await rm(socketPath, { force: true });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    await chmod(socketPath, 0o666);
    this.servers.add(server);
    if (stable) this.stableOwners.set(socketPath, server);
    return {
      socketPath,
      splice: this.options.spliceAfterBytes !== 0,
      close: async () => {
        if (!this.stopServer(server)) return;
        if (!stable) await rm(socketDir, { recursive: true, force: true });
        else if (this.stableOwners.get(socketPath) === server) {
          this.stableOwners.delete(socketPath);
          await rm(socketPath, { force: true });
        }
      },
    };
  }

  /** Stops listening; false when it was stopped already. */
  private stopServer(server: Server): boolean {
    if (!this.servers.delete(server)) return false;
    // Not waited for: a tunnel's socket is no longer the server's to track once upgraded.
    server.close();
    server.closeAllConnections();
    return true;
  }

  /**
   * Empties the sockets directory of what an earlier run left, except the stable directories: a
   * container that outlived that run has its session's one mounted, and the socket is made again in it.
   */
  private async prepare(): Promise<void> {
    const dir = this.options.socketsDir;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.includes('.')) continue;
      await rm(path.join(dir, entry.name), { recursive: true, force: true });
    }
  }

  /** The session is gone: its open connections are closed, its socket directory removed. */
  forgetSession(sessionId: string): void {
    this.connections.forget(sessionId);
    const stableDir = path.join(this.options.socketsDir, sessionId);
    const socketPath = path.join(stableDir, SOCKET_FILE);
    const owner = this.stableOwners.get(socketPath);
    if (owner) this.stopServer(owner);
    this.stableOwners.delete(socketPath);
    void rm(stableDir, { recursive: true, force: true }).catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const server of [...this.servers]) this.stopServer(server);
    this.stableOwners.clear();
    // The stable directories stay (see prepare); the rest goes. Nothing to do where no socket was made.
    if (this.prepared === undefined) return;
    this.prepared = undefined;
    await this.prepare().catch(() => undefined);
  }
}
