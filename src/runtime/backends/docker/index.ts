// The docker backend: one container per session runtime (Docker Engine API over its Unix socket, with
// dockerode), made from the image the session chose, the protocol over the container's attached stdio.
// Containers outlive the service: a start finds the session's container and re-attaches to it (starting
// it again after an idle stop); deleted sessions' and orphaned containers are removed by the sweep, and
// so are any toolgate's containers whose data dir was deleted (orphans.ts).
// Imported only when TOOLGATE_SANDBOX=docker (see runner.ts), so `npm start` never loads dockerode.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs, realpathSync } from 'node:fs';
import { PassThrough, type Duplex } from 'node:stream';
import Docker from 'dockerode';
import type { DockerBackendConfig } from '../../../config.js';
import { attachedBackend, type AttachStream, type AttachTarget } from '../attached/attached-process.js';
import type { RuntimeBackend, RuntimeStart } from '../types.js';
import {
  CONTAINER_NODE,
  containerName,
  containerSpec,
  LABELS,
  poolKey,
  sessionOfName,
  type ContainerHost,
} from './container-spec.js';
import { RuntimeImages } from './images.js';
import { withDataDirGone } from './orphans.js';
import { ContainerPool } from './pool.js';

/** Status codes of the Engine API that mean "already so": not modified, not found, conflict. */
const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number }).statusCode;
const ignoring =
  (...codes: number[]) =>
  (err: unknown) => {
    if (!codes.includes(statusOf(err) ?? 0)) throw err;
  };

/** A short id of this toolgate (its data dir): containers of other instances on the engine are not ours. */
export const instanceId = (dataDir: string): string =>
  createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 10);

export interface DockerBackendOptions {
  readonly dataDir: string;
  readonly bundle: string;
}

/** Connects to the engine and checks it answers; throws with the reason. */
export async function createDockerBackend(
  config: DockerBackendConfig,
  options: DockerBackendOptions,
): Promise<RuntimeBackend> {
  const docker = new Docker({ socketPath: config.socketPath });
  try {
    await docker.ping();
  } catch (err) {
    throw new Error(`the Docker engine at ${config.socketPath} does not answer (${(err as Error).message})`);
  }
  // Missing images do not stop the start (one may be built while the service runs): the start warns of
  // each (services.ts), /readyz names them, and a create for one is refused (IMAGE_NOT_FOUND).
  const images = new RuntimeImages(docker, config);
  const host: ContainerHost = {
    instance: instanceId(options.dataDir),
    bundle: options.bundle,
    nodeBinary: realpathSync(config.nodeBinary ?? process.execPath),
  };
  const [uid, gid] = config.user.split(':').map(Number);
  const owner = Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  const pool = new ContainerPool(docker, config, host, owner);
  const detail = `docker: a container per session runtime (images: ${Object.keys(config.images).join(', ')}; network none, read-only root, non-root, all capabilities dropped, default seccomp)`;

  /** Containers being stopped, by name: a start waits for the stop (kill returns before the exit). */
  const stopping = new Map<string, Promise<void>>();
  const target = (request: RuntimeStart): AttachTarget => {
    const name = request.transient
      ? `${containerName(host.instance, request.sessionId)}-once-${randomBytes(4).toString('hex')}`
      : containerName(host.instance, request.sessionId);
    return {
      async open() {
        if (request.overlay) throw new Error('the docker backend cannot mount an overlay workspace');
        // An idle stop of the same container may still be under way: start it only once it has stopped.
        await stopping.get(name);
        // The runtime runs as config.user: the workspace root (made by the service) becomes its own.
        if (owner) await fs.chown(request.workspaceRoot, owner.uid, owner.gid);
        const spec = containerSpec(config, host, request, name);
        const container =
          (await pool.take(request, name)) ??
          (await ensureContainer(docker, spec, poolKey(config, host, request)).catch((err: unknown) => {
            // No such image (removed since the session was made): a call says so, not "retry".
            throw statusOf(err) === 404 ? images.gone(request.image) : err;
          }));
        const info = await container.inspect();
        const attached = await attach(container);
        if (!info.State.Running) {
          // Taken from the pool and stopped meanwhile: a start would bind the pool's directory again.
          if (info.Config.Labels?.[LABELS.pool] !== undefined) {
            attached.close();
            throw new Error('the runtime container stopped while it was being attached');
          }
          await container.start().catch(ignoring(304));
        }
        return attached;
      },
      async stop() {
        const container = docker.getContainer(name);
        const stopped = container
          .kill({ signal: 'SIGKILL' })
          .then(() => container.wait({ condition: 'not-running' }))
          .catch(ignoring(304, 404, 409))
          .finally(() => stopping.delete(name));
        stopping.set(
          name,
          stopped.then(() => undefined),
        );
        await stopped;
      },
    };
  };

  return attachedBackend({
    name: 'docker',
    detail,
    nodePath: CONTAINER_NODE,
    images: Object.keys(config.images),
    target,
    checkImage: (key) => images.require(key),
    missingImages: () => images.missing(),
    async discard(sessionId) {
      await docker
        .getContainer(containerName(host.instance, sessionId))
        .remove({ force: true })
        .catch(ignoring(404, 409));
    },
    async runningSessions() {
      const running = await docker.listContainers({
        filters: { label: [`${LABELS.instance}=${host.instance}`], status: ['running'] },
      });
      return running
        .filter((container) => container.Labels[LABELS.transient] !== '1')
        .map((container) => sessionOf(host.instance, container))
        .filter((id): id is string => id !== undefined);
    },
    warm: (template) => pool.start(template),
    close: () => pool.close(),
    async sweep(isLive) {
      // Every toolgate's containers: another instance's whose data dir is gone has no one else to go to.
      const all = await docker.listContainers({ all: true, filters: { label: [LABELS.instance] } });
      const others = all.filter((container) => container.Labels[LABELS.instance] !== host.instance);
      const containers = all.filter((container) => container.Labels[LABELS.instance] === host.instance);
      let removed = 0;
      for (const orphan of await withDataDirGone(docker, others)) {
        await docker.getContainer(orphan.Id).remove({ force: true }).catch(ignoring(404, 409));
        removed++;
      }
      for (const container of containers) {
        // Waiting in the pool, or being taken from it (a listing made before its rename).
        if (pool.owns(container.Names[0])) continue;
        const sessionId = sessionOf(host.instance, container);
        // A one-shot runtime lives only while its step runs; one left by a crash has no owner.
        const transient = container.Labels[LABELS.transient] === '1' && container.State !== 'running';
        if (sessionId && (await isLive(sessionId)) && !transient) continue;
        await docker.getContainer(container.Id).remove({ force: true }).catch(ignoring(404, 409));
        removed++;
      }
      return removed;
    },
  });
}

/** Whose a container is: its session label, or for one taken from the pool, its name (pool.ts). */
function sessionOf(instance: string, container: Docker.ContainerInfo): string | undefined {
  if (container.Labels[LABELS.pool] !== undefined) return sessionOfName(instance, container.Names[0]);
  return container.Labels[LABELS.session];
}

/**
 * The container named `spec.name` made from `spec`: the existing one if it was made so, else a new one.
 * One taken from the pool (made with `key`) serves while it runs: started again, it would bind the pool's
 * directory, not the session's workspace, so a stopped one is replaced.
 */
async function ensureContainer(
  docker: Docker,
  spec: ReturnType<typeof containerSpec>,
  key: string,
): Promise<Docker.Container> {
  const name = spec.name;
  const existing = docker.getContainer(name);
  const info = await existing.inspect().catch(ignoring(404));
  if (info) {
    const labels = info.Config.Labels ?? {};
    const pooled = labels[LABELS.pool] !== undefined;
    if (
      pooled
        ? labels[LABELS.pool] === key && info.State.Running
        : labels[LABELS.spec] === spec.Labels[LABELS.spec]
    )
      return existing;
    // Made from another image, bundle or limits: its runtime would not be this service's.
    await existing.remove({ force: true }).catch(ignoring(404, 409));
  }
  try {
    return await docker.createContainer(spec);
  } catch (err) {
    // Another start made it meanwhile.
    if (statusOf(err) === 409) return docker.getContainer(name);
    throw err;
  }
}

/** Attaches to the container's stdio (multiplexed: no TTY), demultiplexed into stdout and stderr. */
async function attach(container: Docker.Container): Promise<AttachStream> {
  // With hijack the answer is the raw connection: a duplex, stdin one way, the multiplexed output back.
  const socket = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
  })) as unknown as Duplex;
  const output = new PassThrough();
  const errors = new PassThrough();
  container.modem.demuxStream(socket, output, errors);
  const ended = new Promise<void>((resolve) => {
    const done = () => {
      output.end();
      errors.end();
      resolve();
    };
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
  });
  return {
    input: socket,
    output,
    errors,
    ended,
    close: () => socket.destroy(),
  };
}
