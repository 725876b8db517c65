// A docker session moving between replicas: its owner is killed with SIGKILL while a background job
// prints a line at a time; another replica takes the session over, re-attaches to the same container
// (it outlived the owner) and adopts the job, which ends normally with every line once. The bwrap
// version (the runtime starts again on the same workspace) is in replicas.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerUnavailable, removeContainersOf } from '../helpers/docker.js';
import { ReplicaCluster, sessionCall } from './replica-cluster.js';

const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `it runs once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : process.env.TOOLGATE_TEST_REPLICAS !== '1'
    ? 'TOOLGATE_TEST_REPLICAS is not 1 (.ci/run sets it)'
    : process.env.TOOLGATE_TEST_DOCKER !== '1'
      ? 'TOOLGATE_TEST_DOCKER is not 1 (.ci/run sets it once the engine and images are there)'
      : await dockerUnavailable();
if (unavailable) console.log(`replicas on docker skipped: ${unavailable}`);

const LINES = 10;

describe.skipIf(unavailable !== null)('replicas on the docker backend', () => {
  let cluster: ReplicaCluster | undefined;
  beforeAll(async () => {
    cluster = await ReplicaCluster.start({ replicas: 2, env: { TOOLGATE_SANDBOX: 'docker' } });
  }, 120_000);
  // The containers outlive the replicas (that is the point): they go before the data dir that names them.
  afterAll(() => cluster?.close(removeContainersOf));

  it("takes a killed owner's session over: the same container, its job adopted and finished", async () => {
    const [r1, r2] = cluster!.replicas;
    const session = await cluster!.session(r1.url, { profile: 'execute' });
    const started = await sessionCall(r1.url, session, 'run_command', {
      command: `for i in $(seq 1 ${LINES}); do echo line $i; sleep 0.5; done`,
      background: true,
    });
    expect(started.status).toBe(200);
    const { jobId } = ((await started.json()) as { data: { jobId: string } }).data;
    expect(started.headers.get('x-toolgate-replica')).toBe('r1');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await cluster!.kill(r1);

    // The first call finds the owner gone, takes the lease and asks for a retry (503, Retry-After).
    const call = async (tool: string, input: object) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const res = await sessionCall(r2.url, session, tool, input);
        if (res.status !== 503 || Date.now() > deadline) {
          const body = (await res.json()) as { data: Record<string, unknown> };
          expect(res.status, JSON.stringify(body)).toBe(200);
          expect(res.headers.get('x-toolgate-replica')).toBe('r2');
          return body.data;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const waited = await call('job_wait', { job_id: jobId, timeout_ms: 20_000 });
    expect(waited).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });
    const output = (await call('job_output', { job_id: jobId })).output;
    expect(output).toBe(Array.from({ length: LINES }, (_, i) => `line ${i + 1}\n`).join(''));
  });
});
