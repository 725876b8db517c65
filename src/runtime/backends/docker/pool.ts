// Pre-started runtime containers per image key (config `pool`, e.g. `{ base: 2 }`; none by default), so a
// new session's first call skips container create and start. A pooled container runs the runtime on a
// fresh directory under the workspaces dir (`.pool/<id>`, a name no session id can have). A session that
// takes it gets that directory renamed to its workspace path (a bind mount follows the inode: the running
// container keeps it) and the container renamed to the session's container name, which from then on says
// whose it is (labels cannot change after creation). Such a container is used only while it runs: once
// stopped, a start would bind the old `.pool` path again, so the backend replaces it with a container of
// the session's own (index.ts). The pool refills in the background, one container at a time; what is left
// in it is removed at close, and pooled containers of an earlier run are removed at start.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import type { DockerBackendConfig } from '../../../config.js';
import type { RuntimeStart, RuntimeTemplate } from '../types.js';
import { LABELS, poolKey, pooledSpec, sessionOfName, type ContainerHost } from './container-spec.js';

interface Pooled {
  readonly name: string;
  readonly dir: string;
  readonly key: string;
}

/** After a failed fill, the next try waits this long (an engine that is down is not asked in a loop). */
const RETRY_MS = 5_000;

export class ContainerPool {
  private readonly ready = new Map<string, Pooled[]>();
  /** Names of every container this pool made in this run: the sweep leaves them alone. */
  private readonly mine = new Set<string>();
  private template: RuntimeTemplate | undefined;
  private filling: Promise<void> | undefined;
  private failedAt = 0;
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly config: DockerBackendConfig,
    private readonly host: ContainerHost,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  private get size(): number {
    return Object.values(this.config.pool).reduce((sum, n) => sum + n, 0);
  }

  /** Starts filling, after removing what an earlier run left (its containers and directories). */
  async start(template: RuntimeTemplate): Promise<void> {
    if (this.size === 0 || this.closed) return;
    this.template = template;
    const leftovers = await this.docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.instance}=${this.host.instance}`, LABELS.pool] },
    });
    for (const container of leftovers) {
      // Taken by a session (named after it): the sweep decides about it, not the pool.
      if (sessionOfName(this.host.instance, container.Names[0]) !== undefined) continue;
      await this.docker
        .getContainer(container.Id)
        .remove({ force: true })
        .catch(() => undefined);
    }
    await fs.rm(this.poolDir(), { recursive: true, force: true });
    this.refill();
  }

  private poolDir(): string {
    return path.join(this.template!.workspacesDir, '.pool');
  }

  /** True for a container this pool made in this run (waiting in it, or being taken). */
  owns(name: string | undefined): boolean {
    return name !== undefined && this.mine.has(name.replace(/^\//, ''));
  }

  /** How many containers wait in the pool now, by image key. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.ready].map(([key, list]) => [key, list.length]));
  }

  /**
   * Gives a running pooled container to the session of `request`, as `name`, over its workspace; undefined
   * when none fits (no pool, none ready, a network session, a workspace already filled by a source).
   */
  async take(request: RuntimeStart, name: string): Promise<Docker.Container | undefined> {
    if (this.closed || request.transient || request.overlay || request.egressSocket) return undefined;
    const imageKey = request.image ?? this.config.defaultImage;
    const list = this.ready.get(imageKey);
    if (!list?.length || !this.template) return undefined;
    const key = poolKey(this.config, this.host, request);
    const index = list.findIndex((pooled) => pooled.key === key);
    if (index < 0) return undefined;
    const [pooled] = list.splice(index, 1);
    this.refill();
    const container = this.docker.getContainer(pooled.name);
    try {
      const info = await container.inspect();
      if (!info.State.Running) throw new Error('the pooled container stopped');
      // Onto the session's (empty) directory; a workspace that has files already is not replaced.
      await fs.rename(pooled.dir, request.workspaceRoot);
    } catch {
      await this.remove(pooled);
      return undefined;
    }
    try {
      await container.rename({ name });
    } catch {
      // The workspace is the session's now (empty, as before): only the container goes.
      await this.remove({ ...pooled, dir: '' });
      return undefined;
    }
    return this.docker.getContainer(name);
  }

  /** Fills the pool up to its size in the background, one container at a time. */
  private refill(): void {
    if (this.filling || this.closed || !this.template) return;
    if (Date.now() - this.failedAt < RETRY_MS) return;
    this.filling = this.fill()
      .catch(() => {
        this.failedAt = Date.now();
      })
      .finally(() => {
        this.filling = undefined;
      });
  }

  private async fill(): Promise<void> {
    for (const [imageKey, size] of Object.entries(this.config.pool)) {
      while (!this.closed && (this.ready.get(imageKey)?.length ?? 0) < size) await this.add(imageKey);
    }
  }

  private async add(imageKey: string): Promise<void> {
    const template = this.template!;
    const id = randomBytes(6).toString('hex');
    const dir = path.join(this.poolDir(), id);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    if (this.owner) await fs.chown(dir, this.owner.uid, this.owner.gid);
    // A dot: never a session id, so the sweep and re-attach never take it for a session's container.
    const name = `toolgate-${this.host.instance}-pool.${id}`;
    this.mine.add(name);
    const request: RuntimeStart = { sessionId: 'pool', workspaceRoot: dir, image: imageKey, ...template };
    const spec = pooledSpec(this.config, this.host, request, name);
    try {
      const container = await this.docker.createContainer(spec);
      await container.start();
    } catch (err) {
      await this.remove({ name, dir, key: '' });
      throw err;
    }
    const pooled = { name, dir, key: spec.Labels[LABELS.pool] };
    if (this.closed) return this.remove(pooled);
    this.ready.set(imageKey, [...(this.ready.get(imageKey) ?? []), pooled]);
  }

  private async remove(pooled: Pooled): Promise<void> {
    await this.docker
      .getContainer(pooled.name)
      .remove({ force: true })
      .catch(() => undefined);
    if (pooled.dir) await fs.rm(pooled.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Removes what waits in the pool; containers sessions took stay theirs. */
  async close(): Promise<void> {
    this.closed = true;
    await this.filling;
    const waiting = [...this.ready.values()].flat();
    this.ready.clear();
    await Promise.all(waiting.map((pooled) => this.remove(pooled)));
  }
}
