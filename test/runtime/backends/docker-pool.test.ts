// The docker backend's pool of pre-started containers (runtimeBackend.pool): a new session takes a
// running one (its directory becomes the session's workspace, the container is renamed after the
// session), the pool refills, the sweep leaves waiting ones alone, a restart re-attaches to the taken
// one, a stopped one is replaced by a container of the session's own over the same workspace, and
// waiting ones are removed at close. A network session never takes one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectApp, tempDir } from '../../helpers/app.js';
import { loadConfig } from '../../../src/config.js';
import { writeConfigFile } from '../../ops/with-config.js';
import { containersOf, dockerUnavailable, TEST_IMAGES } from '../../helpers/docker.js';
import { containerName, LABELS } from '../../../src/runtime/backends/docker/container-spec.js';
import { instanceId } from '../../../src/runtime/backends/docker/index.js';

const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `they run once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : await dockerUnavailable();
if (unavailable) console.log(`docker pool tests skipped: ${unavailable}`);

const env = () => ({
  TOOLGATE_SANDBOX: 'docker',
  TOOLGATE_CONFIG: writeConfigFile({
    runtimeBackend: {
      type: 'docker',
      images: TEST_IMAGES,
      memoryBytes: 256 * 1024 * 1024,
      pool: { base: 1 },
    },
  }),
});

/** The containers waiting in the pool (running, not yet named after a session). */
const waiting = async (dataDir: string) =>
  (await containersOf(dataDir)).filter(
    (c) => c.Labels[LABELS.pool] !== undefined && c.Names[0].includes('-pool.') && c.State === 'running',
  );

describe.skipIf(unavailable !== null)('docker runtime pool', () => {
  it('gives a new session a pre-started container, refills, survives a restart, and is replaced once stopped', async () => {
    let t = await injectApp(env());
    const dataDir = t.dataDir;
    try {
      await expect.poll(async () => (await waiting(dataDir)).length, { timeout: 20_000 }).toBe(1);
      const [pooled] = await waiting(dataDir);
      const s = await t.createSession({ profile: 'execute' });
      const wrote = await t.call(s, 'write_file', { path: 'a.txt', content: 'in the pool' });
      expect(wrote.status).toBe(200);
      // The pooled container is the session's now, by name, over the session's own workspace directory.
      const mine = (await containersOf(dataDir)).find((c) => c.Id === pooled.Id);
      expect(mine?.Names[0]).toBe(`/${containerName(instanceId(dataDir), s.id)}`);
      expect(readFileSync(path.join(dataDir, 'workspaces', s.id, 'a.txt'), 'utf8')).toBe('in the pool');
      // The pool refills with another container; the sweep leaves it (and the session's) alone.
      await expect
        .poll(async () => (await waiting(dataDir)).map((c) => c.Id), { timeout: 20_000 })
        .toEqual([expect.not.stringMatching(pooled.Id)]);
      await t.app.services.sweep();
      expect((await containersOf(dataDir)).length).toBe(2);

      // A restart: the waiting one is removed at close, the session's is re-attached, its job adopted.
      const job = await t.call(s, 'run_command', { command: 'sleep 1; echo late', background: true });
      await t.close({ keepData: true });
      expect(await waiting(dataDir)).toEqual([]);
      t = await injectApp(env(), { dataDir });
      const read = await t.call(s, 'read_file', { path: 'a.txt' });
      expect(read.body.data.content).toBe('in the pool');
      const waited = await t.call(s, 'job_wait', { job_id: job.body.data.jobId, timeout_ms: 10_000 });
      expect(waited.body.data).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });
      expect((await containersOf(dataDir)).map((c) => c.Id)).toContain(pooled.Id);

      // Stopped (idle), the taken container is not started again: one of the session's own replaces it.
      await t.app.services.runtimes.get(s.id)!.stop();
      const again = await t.call(s, 'read_file', { path: 'a.txt' });
      expect(again.body.data.content).toBe('in the pool');
      const now = (await containersOf(dataDir)).find(
        (c) => c.Names[0] === `/${containerName(instanceId(dataDir), s.id)}`,
      );
      expect(now?.Id).not.toBe(pooled.Id);
      expect(now?.Labels[LABELS.session]).toBe(s.id);
      expect(now?.Labels[LABELS.pool]).toBeUndefined();

      // Deleted, the session's container goes; at close, the waiting one goes too.
      await t.admin(t.http.delete(`/v1/sessions/${s.id}`)).expect(204);
      await expect.poll(async () => (await waiting(dataDir)).length, { timeout: 20_000 }).toBe(1);
      await t.close({ keepData: true });
      expect(await containersOf(dataDir)).toEqual([]);
      expect(existsSync(path.join(dataDir, 'workspaces', '.pool'))).toBe(true);
      t = await injectApp(env(), { dataDir });
    } finally {
      await t.close();
    }
  });
});

describe('the pool setting', () => {
  const load = (runtimeBackend: object) =>
    loadConfig({
      TOOLGATE_DATA_DIR: tempDir(),
      TOOLGATE_SANDBOX: 'docker',
      TOOLGATE_CONFIG: writeConfigFile({ runtimeBackend }),
    });

  it('is empty unless configured, and names only keys of the image table', () => {
    expect(load({ type: 'docker' }).containers).toMatchObject({ pool: {} });
    expect(load({ type: 'docker', pool: { base: 2 } }).containers).toMatchObject({ pool: { base: 2 } });
    expect(() => load({ type: 'docker', pool: { rust: 1 } })).toThrow(
      /runtimeBackend\.pool: "rust" is not a key of runtimeBackend\.images \(base\)/,
    );
    expect(() => load({ type: 'docker', pool: { base: -1 } })).toThrow(/pool/);
  });
});
