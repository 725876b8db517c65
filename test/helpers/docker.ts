// The Docker engine for the docker backend's tests: whether one answers here with the runtime images
// (scripts/build-runtime-images.sh builds them; .ci/run starts dockerd), and removal of every container
// a test app made, found by its instance label, since runtime containers outlive the app by design.
import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import { instanceId } from '../../src/runtime/backends/docker/index.js';
import { LABELS } from '../../src/runtime/backends/docker/container-spec.js';
import { writeConfigFile } from '../ops/with-config.js';

export const DOCKER_SOCKET = '/var/run/docker.sock';
export const TEST_IMAGES = { base: 'toolgate/runtime-base:1', python: 'toolgate/runtime-python:1' };

export const docker = (): Docker => new Docker({ socketPath: DOCKER_SOCKET });

/** Null when the docker backend can run here; else the one reason it cannot. */
export async function dockerUnavailable(): Promise<string | null> {
  if (!existsSync(DOCKER_SOCKET))
    return `no Docker engine (${DOCKER_SOCKET} missing; .ci/run starts dockerd)`;
  try {
    await docker().ping();
    for (const image of Object.values(TEST_IMAGES)) await docker().getImage(image).inspect();
    return null;
  } catch (err) {
    return `Docker engine or runtime images not ready (${(err as Error).message.slice(0, 120)}; run scripts/build-runtime-images.sh)`;
  }
}

/** The runtime containers of the app on `dataDir`. */
export async function containersOf(dataDir: string): Promise<Docker.ContainerInfo[]> {
  return docker().listContainers({
    all: true,
    filters: { label: [`${LABELS.instance}=${instanceId(dataDir)}`] },
  });
}

/** Removes the runtime containers of the app on `dataDir` (call before removing the data dir). */
export async function removeContainersOf(dataDir: string): Promise<void> {
  if (!existsSync(dataDir)) return;
  for (const container of await containersOf(dataDir)) {
    await docker()
      .getContainer(container.Id)
      .remove({ force: true })
      .catch(() => undefined);
  }
}

/**
 * Why a test file that chooses the docker backend itself skips here (printed), or null when it runs: it
 * runs once, in the default project, not again in the other backends' passes (two copies at once would
 * also share one engine under load).
 */
export async function dockerSkipReason(what: string): Promise<string | null> {
  const pass = process.env.TOOLGATE_TEST_SANDBOX;
  const reason =
    pass !== undefined
      ? `they run once, in the default project (this pass is ${pass})`
      : await dockerUnavailable();
  if (reason) console.log(`${what} skipped: ${reason}`);
  return reason;
}

/**
 * The environment of a test app on the docker backend: the test images (or `images`), 256 MiB a
 * runtime, and whatever else of the config file `extra` sets.
 */
export const dockerEnv = (
  images: Record<string, string> = TEST_IMAGES,
  extra: object = {},
): Record<string, string> => ({
  TOOLGATE_SANDBOX: 'docker',
  TOOLGATE_CONFIG: writeConfigFile({
    runtimeBackend: { type: 'docker', images, memoryBytes: 256 * 1024 * 1024 },
    ...extra,
  }),
});
