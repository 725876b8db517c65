// Restart survival for real on the docker backend: the service is a process of its own, killed with
// SIGKILL while a background job prints a line at a time, and started again on the same data dir; the
// job is adopted under its id, ends normally, and has every line once. A short job here (about 5 s);
// `npm run bench -- runtimes` runs the 60 s one (docs/performance.md).
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { dockerUnavailable, removeContainersOf } from '../../helpers/docker.js';
import { callTool, childSession, startChildServer, type ChildServer } from '../../ops/child-server.js';

// Two service starts make it take about 15 s: it runs where .ci/run sets TOOLGATE_TEST_DOCKER.
const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `it runs once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : process.env.TOOLGATE_TEST_DOCKER !== '1'
    ? 'TOOLGATE_TEST_DOCKER is not 1 (.ci/run sets it once the engine and images are there)'
    : await dockerUnavailable();
if (unavailable) console.log(`docker kill -9 test skipped: ${unavailable}`);

const LINES = 10;

describe.skipIf(unavailable !== null)('docker runtimes outlive a kill -9 of the service', () => {
  // Made when the test runs, not when the file is collected: a skipped file runs no afterAll hook, so a
  // dir made here would outlive it.
  let dataDir = '';
  let server: ChildServer | undefined;
  afterAll(async () => {
    if (server && server.proc.exitCode === null && server.proc.signalCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
    if (dataDir) await removeContainersOf(dataDir);
  });

  it('adopts the background job after the restart: it ends with exit 0 and every line once', async () => {
    dataDir = tempDir('toolgate-docker-kill-');
    const env = { TOOLGATE_SANDBOX: 'docker', LOG_LEVEL: 'warn' };
    server = await startChildServer({ dataDir, env });
    const session = await childSession(server, { profile: 'execute' });
    const started = await session.call('run_command', {
      command: `for i in $(seq 1 ${LINES}); do echo line $i; sleep 0.5; done`,
      background: true,
    });
    expect(started.status).toBe(200);
    const { jobId } = ((await started.json()) as { data: { jobId: string } }).data;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.proc.kill('SIGKILL');
    await server.exited;

    server = await startChildServer({ dataDir, env });
    const call = async (tool: string, input: object) => {
      const res = await callTool(server!.url, session, tool, input);
      const body = (await res.json()) as { data: Record<string, unknown> };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body.data;
    };
    // Right away: a job tool waits for the start's re-attach pass to adopt the session's jobs.
    const waited = await call('job_wait', { job_id: jobId, timeout_ms: 20_000 });
    expect(waited).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });
    const output = (await call('job_output', { job_id: jobId })).output;
    expect(output).toBe(Array.from({ length: LINES }, (_, i) => `line ${i + 1}\n`).join(''));
    // Two service starts from source (tsx) and a container: over 30 s on a busy 2-core machine.
  }, 120_000);
});
