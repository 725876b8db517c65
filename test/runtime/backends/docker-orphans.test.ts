// Containers that outlive their data dir: a toolgate's containers are found by its instance (a hash of
// the data dir's path), so once that data dir is deleted, no toolgate would ever sweep them. Any
// toolgate's sweep removes them (their workspace bind's directory is gone on the host); a container of
// another toolgate whose data dir still exists is kept.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import {
  containersOf,
  docker,
  dockerEnv,
  dockerSkipReason,
  removeContainersOf,
} from '../../helpers/docker.js';
import { PROBE_LABEL, workspacesDirOf } from '../../../src/runtime/backends/docker/orphans.js';

const unavailable = await dockerSkipReason('docker orphan tests');

const env = () => dockerEnv();

/** An app with one session whose runtime runs, closed with its data kept: its container runs on. */
async function leaveRunning(): Promise<{ dataDir: string; ids: string[] }> {
  const t = await injectApp(env());
  const s = await t.createSession({ profile: 'execute' });
  await t.call(s, 'write_file', { path: 'a.txt', content: 'left' }).expect(200);
  await t.close({ keepData: true });
  const ids = (await containersOf(t.dataDir)).map((c) => c.Id);
  expect(ids).toHaveLength(1);
  return { dataDir: t.dataDir, ids };
}

const exists = (id: string) =>
  docker()
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      (err: { statusCode?: number }) => {
        if (err.statusCode === 404) return false;
        throw err;
      },
    );

describe.skipIf(unavailable !== null)('containers whose data dir is gone', () => {
  it("another toolgate's sweep removes them; a container whose data dir exists is kept", async () => {
    const made: string[] = [];
    const dirs: string[] = [];
    let sweeper: InjectApp | undefined;
    try {
      const deleted = await leaveRunning();
      made.push(...deleted.ids);
      dirs.push(deleted.dataDir);
      const kept = await leaveRunning();
      made.push(...kept.ids);
      dirs.push(kept.dataDir);
      // The first toolgate's data dir is deleted: its running container has no toolgate any more.
      rmSync(deleted.dataDir, { recursive: true, force: true });
      expect((await docker().getContainer(deleted.ids[0]).inspect()).State.Running).toBe(true);

      sweeper = await injectApp(env());
      await sweeper.app.services.sweep();
      expect(await exists(deleted.ids[0])).toBe(false);
      expect(await exists(kept.ids[0])).toBe(true);
      // The engine was asked with probe containers, none of which is left.
      const probes = await docker().listContainers({ all: true, filters: { label: [PROBE_LABEL] } });
      expect(probes).toEqual([]);
      // A second sweep keeps it still.
      await sweeper.app.services.sweep();
      expect(await exists(kept.ids[0])).toBe(true);
    } finally {
      await sweeper?.close();
      for (const dir of dirs) await removeContainersOf(dir);
      for (const id of made)
        await docker()
          .getContainer(id)
          .remove({ force: true })
          .catch(() => undefined);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the data dir a container came from', () => {
  const withWorkspace = (source: string) =>
    ({ Mounts: [{ Type: 'bind', Source: source, Destination: '/workspace' }] }) as unknown as Parameters<
      typeof workspacesDirOf
    >[0];
  it("is the workspace bind's parent, past a pooled container's .pool directory", () => {
    expect(workspacesDirOf(withWorkspace('/d/workspaces/ses_a'))).toBe('/d/workspaces');
    expect(workspacesDirOf(withWorkspace('/d/workspaces/.pool/0a1b2c'))).toBe('/d/workspaces');
    expect(workspacesDirOf(withWorkspace('relative/ses_a'))).toBeUndefined();
    expect(
      workspacesDirOf({ Mounts: [] } as unknown as Parameters<typeof workspacesDirOf>[0]),
    ).toBeUndefined();
  });
});
