// Runtime containers whose toolgate is gone with its data dir. A container is found again by its instance
// (a hash of the data dir's path), so one whose data dir was deleted has no toolgate left that would ever
// sweep it, and it would run on forever. Any toolgate's sweep removes such containers, of whatever
// instance: their workspace bind's directory of workspaces (<data dir>/workspaces) no longer exists on
// the engine's host. A container whose workspaces still exist is never touched (another toolgate, live
// or not, owns it).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import { CONTAINER_WORKSPACE } from './container-spec.js';

/** The label of a probe container (never started, removed at once): a leftover one is recognisable. */
export const PROBE_LABEL = 'org.toolgate.probe';

/** True only when `dir` is known not to exist here: any other answer (there, unreadable) keeps it. */
async function missingHere(dir: string): Promise<boolean> {
  try {
    await fs.stat(dir);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/** The directory of workspaces a container's workspace came from (its data dir's `workspaces`). */
export function workspacesDirOf(container: Docker.ContainerInfo): string | undefined {
  const source = container.Mounts?.find(
    (m) => m.Type === 'bind' && m.Destination === CONTAINER_WORKSPACE,
  )?.Source;
  if (!source || !path.isAbsolute(source)) return undefined;
  const parent = path.dirname(source);
  // A pooled container's workspace is workspaces/.pool/<id> (pool.ts); after a session took it, the
  // bind still names that path (the directory was renamed under it).
  return path.basename(parent) === '.pool' ? path.dirname(parent) : parent;
}

/**
 * Whether `dir` is missing on the engine's host, asked of the engine: a container created (never started)
 * with a bind mount of it is refused with "bind source path does not exist" exactly then. This process
 * may see other paths than the host (a toolgate in a container of its own does not see another's data
 * dir), so its own look alone would take a live toolgate's data dir for gone.
 */
async function missingOnHost(docker: Docker, dir: string, image: string): Promise<boolean> {
  try {
    const probe = await docker.createContainer({
      name: `toolgate-probe-${randomBytes(6).toString('hex')}`,
      Image: image,
      Cmd: ['true'],
      Labels: { [PROBE_LABEL]: '1' },
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        Mounts: [{ Type: 'bind', Source: dir, Target: '/probe', ReadOnly: true }],
      },
    });
    await probe.remove({ force: true }).catch(() => undefined);
    return false;
  } catch (err) {
    return /bind source path does not exist/.test((err as Error).message);
  }
}

/**
 * The containers of `containers` whose data dir is gone (by their workspace bind): missing here first
 * (cheap, and enough to keep every container whose data dir this process sees), then on the engine's host.
 */
export async function withDataDirGone(
  docker: Docker,
  containers: readonly Docker.ContainerInfo[],
): Promise<Docker.ContainerInfo[]> {
  const verdicts = new Map<string, Promise<boolean>>();
  const gone = (dir: string, image: string) => {
    let verdict = verdicts.get(dir);
    if (!verdict) {
      verdict = missingHere(dir).then((missing) => missing && missingOnHost(docker, dir, image));
      verdicts.set(dir, verdict);
    }
    return verdict;
  };
  const orphans: Docker.ContainerInfo[] = [];
  for (const container of containers) {
    const dir = workspacesDirOf(container);
    if (dir && (await gone(dir, container.ImageID))) orphans.push(container);
  }
  return orphans;
}
