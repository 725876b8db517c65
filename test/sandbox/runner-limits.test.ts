// Resource limits hold inside the bwrap sandbox, and the server stays responsive while a command abuses
// them; a command that outlives its timeout is killed with everything it started.
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { eventually, isAlive, pidsOfCommand, pidsWithArgv } from '../tools/execution/processes.js';
import { needs } from '../helpers/requires.js';

describe.skipIf(needs('bwrap', 'the bwrap limit tests'))('run_command with bwrap: limits', () => {
  let t: InjectApp;
  let s: { id: string; token: string };

  beforeAll(async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'bwrap' });
    s = await t.createSession({ profile: 'execute' });
  });
  afterAll(() => t.close());

  /** Runs the command while probing /healthz; returns the result and the slowest health answer. */
  async function runWhileProbing(input: Record<string, unknown>) {
    const call = t.call(s, 'run_command', input).then((res) => res);
    let slowestMs = 0;
    let probes = 0;
    let finished = false;
    void call.finally(() => (finished = true));
    await new Promise((r) => setTimeout(r, 150));
    do {
      const started = performance.now();
      const health = await t.http.get('/healthz');
      expect(health.status).toBe(200);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes++;
      await new Promise((r) => setTimeout(r, 50));
    } while (!finished);
    const res = await call;
    expect(res.status).toBe(200);
    return { data: res.body.data, slowestMs, probes };
  }

  it('contains a fork bomb within the process limit and the timeout', async () => {
    const command = 'bomb() { bomb | bomb & }; bomb; sleep 5';
    // Count the bomb's processes from the host while it runs: they all carry the command's argv.
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, pidsOfCommand(command).length);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const { data, slowestMs, probes } = await runWhileProbing({
      command,
      timeout_ms: 2500,
      limits: { max_processes: 64 },
    });
    sampling = false;
    await sampler;
    expect(most).toBeGreaterThan(10);
    expect(most).toBeLessThanOrEqual(64);
    expect(probes).toBeGreaterThan(0);
    expect(slowestMs).toBeLessThan(1000);
    expect(data.timedOut).toBe(true);
    expect(data.status).toBe('killed');
    expect(data.stderr).toMatch(/fork|Resource temporarily unavailable/);
    expect(await eventually(() => pidsOfCommand(command).length === 0, 3000)).toBe(true);
  });

  it('stops `yes` at the output log cap and returns only head and tail', async () => {
    const { data, slowestMs } = await runWhileProbing({ command: 'yes', timeout_ms: 30_000 });
    expect(slowestMs).toBeLessThan(1000);
    expect(data.job.killReason).toBe('output_limit');
    expect(data.job.outputLimitReached).toBe(true);
    expect(data.truncated).toBe(true);
    expect(data.stdout.length).toBeLessThan(300 * 1024);
    expect(data.stdout.startsWith('y\ny\n')).toBe(true);
    expect(data.stdout).toContain('bytes omitted');
  });

  it.skipIf(needs('python3', 'the memory-hog limit test'))(
    'refuses a memory hog beyond the address-space limit',
    async () => {
      const { data, slowestMs } = await runWhileProbing({
        command:
          'python3 -c "b = bytearray(3 * 1024**3)"; python3 -c "x = []\nwhile True: x.append(bytearray(32 * 1024**2))"',
        timeout_ms: 20_000,
        limits: { memory_mb: 256 },
      });
      expect(slowestMs).toBeLessThan(1000);
      expect(data.timedOut).toBe(false);
      expect(data.stderr.match(/MemoryError/g)).toHaveLength(2);
      expect(data.exitCode).toBe(1);
    },
  );

  it('refuses to grow a file past the file-size limit', async () => {
    const { data } = await runWhileProbing({
      command: 'head -c 20000000 /dev/zero > big.bin; echo "exit $?"',
      timeout_ms: 20_000,
      limits: { file_size_mb: 2 },
    });
    // 153 = 128 + SIGXFSZ: the kernel stopped the writer at the limit.
    expect(data.stdout).toBe('exit 153\n');
    const size = statSync(path.join(t.dataDir, 'workspaces', s.id, 'big.bin')).size;
    expect(size).toBe(2 * 1024 * 1024);
  });

  it('bounds the private /tmp and /dev/shm (tmpfs is RAM)', async () => {
    const { data, slowestMs } = await runWhileProbing({
      command:
        'head -c 300000000 /dev/zero > /tmp/fill; echo "tmp $?"; du -m /tmp/fill | cut -f1; ' +
        'head -c 100000000 /dev/zero > /dev/shm/fill; echo "shm $?"',
      timeout_ms: 20_000,
    });
    expect(slowestMs).toBeLessThan(1000);
    const [tmp, tmpMb, shm] = data.stdout.trim().split('\n');
    expect(tmp).toBe('tmp 1');
    expect(Number(tmpMb)).toBeLessThanOrEqual(256);
    expect(shm).toBe('shm 1');
    expect(data.stderr).toMatch(/No space left on device/);
  });

  it('applies the CPU-seconds limit', async () => {
    const { data } = await runWhileProbing({
      command: 'while :; do :; done',
      timeout_ms: 20_000,
      limits: { cpu_seconds: 1 },
    });
    expect(data.timedOut).toBe(false);
    expect(data.durationMs).toBeLessThan(10_000);
    // bash reports its own death by SIGXCPU/SIGKILL through the runner as a signal.
    expect(data.signal ?? String(data.exitCode)).toMatch(/SIGXCPU|SIGKILL|152|137/);
  });

  it('kills a command that outlives its timeout together with its children and daemons', async () => {
    const call = t.call(s, 'run_command', {
      command: 'sleep 301.5 & (setsid sleep 302.5 &); sleep 303.5',
      timeout_ms: 1500,
    });
    const pending = call.then((res) => res);
    let pids: number[] = [];
    expect(
      await eventually(() => {
        pids = ['301.5', '302.5', '303.5'].flatMap((n) => pidsWithArgv(['sleep', n]));
        return pids.length === 3;
      }),
    ).toBe(true);
    const res = await pending;
    expect(res.body.data).toMatchObject({ timedOut: true, status: 'killed', exitCode: null });
    expect(res.body.data.durationMs).toBeGreaterThanOrEqual(1400);
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)), 2000)).toBe(true);
  });
});
