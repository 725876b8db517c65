// Several toolgate replicas as child processes on loopback ports, sharing one data dir and one database
// (the data dir's SQLite file, or the PostgreSQL URL given: DATABASE_URL for every replica), optionally
// behind HAProxy running docker/haproxy/haproxy.cfg. Used by the replicas system
// test and bench/replicas.bench.ts; everything it starts is stopped by close().
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CHILD_ADMIN_KEY,
  freePort,
  REPO_ROOT,
  startChildServer,
  type ChildServer,
} from '../ops/child-server.js';

export const HAPROXY_CONFIG = path.join(REPO_ROOT, 'docker/haproxy/haproxy.cfg');

export interface Replica {
  readonly id: string;
  readonly port: number;
  readonly url: string;
  server: ChildServer | undefined;
}

export interface ClusterOptions {
  readonly replicas: number;
  /** With HAProxy in front (its three server lines: unused ones point at a closed port and stay down). */
  readonly balancer?: boolean;
  readonly env?: Record<string, string>;
  /** Environment of one replica on top of `env` (its id: r1, r2, …), e.g. a limit only it has. */
  readonly envOf?: (replicaId: string) => Record<string, string>;
  /** postgres://… for every replica; undefined: the data dir's SQLite file. */
  readonly databaseUrl?: string;
}

export class ReplicaCluster {
  readonly replicas: Replica[] = [];
  balancerUrl: string | undefined;
  private haproxy: ChildProcess | undefined;

  private constructor(
    readonly dataDir: string,
    readonly databaseUrl: string | undefined,
    private readonly env: Record<string, string>,
    private readonly envOf: (replicaId: string) => Record<string, string> = () => ({}),
  ) {}

  static async start(options: ClusterOptions): Promise<ReplicaCluster> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-replicas-'));
    const cluster = new ReplicaCluster(
      dataDir,
      options.databaseUrl,
      {
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      options.envOf,
    );
    try {
      for (let i = 1; i <= options.replicas; i++) {
        const port = await freePort();
        cluster.replicas.push({ id: `r${i}`, port, url: `http://127.0.0.1:${port}`, server: undefined });
      }
      // One after another: the first start creates the schema and the sandbox layout the others reuse.
      for (const replica of cluster.replicas) await cluster.startReplica(replica);
      if (options.balancer) await cluster.startBalancer();
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  async startReplica(replica: Replica): Promise<void> {
    replica.server = await startChildServer({
      dataDir: this.dataDir,
      port: replica.port,
      env: {
        TOOLGATE_REPLICA_ID: replica.id,
        TOOLGATE_REPLICA_URL: replica.url,
        ...this.env,
        ...this.envOf(replica.id),
      },
    });
  }

  /** kill -9: no lease is released, no journal flushed. */
  async kill(replica: Replica): Promise<void> {
    const server = replica.server;
    if (!server) return;
    server.proc.kill('SIGKILL');
    await server.exited;
    replica.server = undefined;
  }

  private async startBalancer(): Promise<void> {
    const port = await freePort();
    const closed = await freePort();
    const servers = [0, 1, 2].map((i) => `127.0.0.1:${this.replicas[i]?.port ?? closed}`);
    const env = {
      PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/bin',
      HAPROXY_BIND: `127.0.0.1:${port}`,
      TOOLGATE_REPLICA_1: servers[0],
      TOOLGATE_REPLICA_2: servers[1],
      TOOLGATE_REPLICA_3: servers[2],
    };
    const logs: string[] = [];
    this.haproxy = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.haproxy.stdout!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    this.haproxy.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    this.balancerUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    // Up once it answers and has seen a replica pass its health check.
    while (
      !(await fetch(`${this.balancerUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (this.haproxy.exitCode !== null || Date.now() > deadline) {
        throw new Error(`haproxy did not start:\n${logs.join('')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Unused server lines start up and need two failed checks (500 ms apart) to be taken out.
    if (this.replicas.length < 3) await new Promise((resolve) => setTimeout(resolve, 1500));
  }

  /** An admin request to `base` (a replica's URL or the balancer's). */
  admin(base: string, pathname: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${base}${pathname}`, {
      ...init,
      headers: {
        authorization: `Bearer ${CHILD_ADMIN_KEY}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  }

  async session(base: string, body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const res = await this.admin(base, '/v1/sessions', { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; token: string };
  }

  /** Stops everything; `beforeRemove` runs once the replicas are down, before the data dir goes. */
  async close(beforeRemove?: (dataDir: string) => Promise<void>): Promise<void> {
    if (this.haproxy && this.haproxy.exitCode === null) {
      const exited = new Promise((resolve) => this.haproxy!.once('exit', resolve));
      this.haproxy.kill('SIGKILL');
      await exited;
    }
    for (const replica of this.replicas) {
      const server = replica.server;
      if (!server || server.proc.exitCode !== null || server.proc.signalCode !== null) continue;
      server.proc.kill('SIGTERM');
      const stopped = await Promise.race([
        server.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      if (!stopped) server.proc.kill('SIGKILL');
    }
    await beforeRemove?.(this.dataDir);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A tool call with the session's token, through `base`. */
export const sessionCall = (
  base: string,
  session: { id: string; token: string },
  tool: string,
  input: unknown,
  headers: Record<string, string> = {},
): Promise<Response> =>
  fetch(`${base}/v1/sessions/${session.id}/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(input),
  });
