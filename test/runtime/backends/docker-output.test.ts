// The docker backend loses no command output: many short commands in a row each get all they printed
// (the output, the exit and the answer to the spawn often arrive in one read of the attach stream), and
// jobs re-attached after a service restart keep every line, both the lines printed while no service was
// attached (one job ends during the gap, one runs on) and those printed right around the adopt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { writeConfigFile } from '../../ops/with-config.js';
import { dockerUnavailable, removeContainersOf, TEST_IMAGES } from '../../helpers/docker.js';

const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `they run once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : await dockerUnavailable();
if (unavailable) console.log(`docker output tests skipped: ${unavailable}`);

const env = () => ({
  TOOLGATE_SANDBOX: 'docker',
  TOOLGATE_CONFIG: writeConfigFile({
    runtimeBackend: { type: 'docker', images: TEST_IMAGES, memoryBytes: 256 * 1024 * 1024 },
  }),
});
const COMMANDS = Number(process.env.TOOLGATE_DOCKER_OUTPUT_COMMANDS ?? 150);
const lines = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

describe.skipIf(unavailable !== null)('docker backend output', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp(env());
  });
  afterAll(async () => {
    if (t) {
      await removeContainersOf(t.dataDir);
      await t.close();
    }
  });

  it(`gives each of ${COMMANDS} short commands in a row all of its stdout and stderr`, async () => {
    const s = await t.createSession({ profile: 'execute' });
    const wrong: string[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      const run = await t.call(s, 'run_command', { command: `echo out-${i}; echo err-${i} >&2` });
      const data = run.body.data as { stdout: string; stderr: string; exitCode: number };
      if (data.stdout !== `out-${i}\n` || data.stderr !== `err-${i}\n` || data.exitCode !== 0)
        wrong.push(`${i}: ${run.status} ${JSON.stringify(run.body).slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe.skipIf(unavailable !== null)('docker backend output across restarts', () => {
  it('re-attached jobs keep every line: printed before, during the gap and around the adopt', async () => {
    let t = await injectApp(env());
    const dataDir = t.dataDir;
    try {
      const s = await t.createSession({ profile: 'execute' });
      // Prints fast and ends while no service is attached.
      const short = await t.call(s, 'run_command', {
        command: 'sleep 0.3; for i in $(seq 1 50); do echo short $i; done',
        background: true,
      });
      // Prints all along, so lines are under way when the job is adopted.
      const long = await t.call(s, 'run_command', {
        command: 'for i in $(seq 1 300); do echo long $i; sleep 0.01; done',
        background: true,
      });
      const jobs = { short: short.body.data.jobId as string, long: long.body.data.jobId as string };
      for (let restart = 0; restart < 3; restart++) {
        await new Promise((r) => setTimeout(r, 150));
        await t.close({ keepData: true });
        await new Promise((r) => setTimeout(r, 400));
        t = await injectApp(env(), { dataDir });
        // Right away: a job tool waits for the start's re-attach pass to adopt both, ended or not.
        const list = await t.call(s, 'job_list', {});
        expect(list.body.data.jobs).toHaveLength(2);
      }
      for (const [name, n] of [
        ['short', 50],
        ['long', 300],
      ] as const) {
        const waited = await t.call(s, 'job_wait', { job_id: jobs[name], timeout_ms: 20_000 });
        expect(waited.body, JSON.stringify(waited.body)).toMatchObject({
          data: { finished: true, job: { status: 'exited', exitCode: 0 } },
        });
        const output = await t.call(s, 'job_output', { job_id: jobs[name] });
        expect(output.body.data.output).toBe(lines(name, n));
      }
    } finally {
      await removeContainersOf(dataDir);
      await t.close();
    }
  });
});
