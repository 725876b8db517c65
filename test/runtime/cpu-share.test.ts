// The sessions' share of the CPU (src/runtime/runner/cpu-cgroup.ts): each session runtime, and every
// process it starts, runs in a cpu cgroup of its own under the `toolgate` group, whose weight is the
// sessions' together against the service. What it does for the service's event loop under load is
// measured in bench/ (`npm run bench -- neighbours`), not here.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchInCpuGroup, SessionCpuGroups } from '../../src/runtime/runner/cpu-cgroup.js';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { needs, sandboxesFor } from '../helpers/requires.js';

const CGROUP_V1 = existsSync('/sys/fs/cgroup/cpu/cpu.shares');
const noRoot = needs('root', 'the sessions’ cpu cgroup tests (cgroups are writable only by root)');

/** The cpu cgroup path of a process or thread, from /proc/…/cgroup ('' when it has none). */
function cpuGroupOf(procDir: string): string {
  const lines = readFileSync(path.join(procDir, 'cgroup'), 'utf8').split('\n');
  // v1: "4:cpu,cpuacct:/toolgate/s-…"; v2: "0::/toolgate/…" (one tree).
  const v1 = lines.find((line) => /^\d+:[^:]*\bcpu\b[^:]*:/.test(line));
  const line = v1 ?? lines.find((l) => l.startsWith('0::'));
  return line ? line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1) : '';
}

/** Host pids whose command line holds `marker` (a command the session started). */
function pidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until<T>(probe: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(noRoot).each(sandboxesFor('the sessions’ cpu cgroup tests'))(
  'sessions’ cpu share (TOOLGATE_SANDBOX=%s)',
  (sandbox) => {
    let t: InjectApp;
    let groups: SessionCpuGroups;
    beforeAll(async () => {
      t = await injectApp({ TOOLGATE_SANDBOX: sandbox });
      groups = t.app.services.runtimes.cpuGroups!;
    });
    afterAll(() => t.close());

    it('finds a writable cpu cgroup and gives the sessions together the configured weight', () => {
      expect(groups).toBeDefined();
      const v1 = existsSync(path.join(groups.base, 'cpu.shares'));
      const weight = readFileSync(path.join(groups.base, v1 ? 'cpu.shares' : 'cpu.weight'), 'utf8').trim();
      // The default runtime.cpuWeight, 100: cpu.weight 100 (v2), cpu.shares 1024 (v1: 100 × 1024 / 100).
      expect(Number(weight)).toBe(v1 ? 1024 : 100);
    });

    it('runs the runtime and the commands it starts in the session’s group, and removes it after', async () => {
      const s = await t.createSession({ profile: 'full' });
      const marker = `${(Math.random() * 1000 + 1000).toFixed(4)}`;
      const started = await t.call(s, 'run_command', { command: `sleep ${marker}`, background: true });
      expect(started.status).toBe(200);
      const [pid] = await until(() => {
        const found = pidsWith(`sleep\0${marker}`);
        return found.length > 0 ? found : undefined;
      }, 'the background command');
      const group = cpuGroupOf(`/proc/${pid}`);
      // v1: the session's own group. v2: a command's pids cgroup (cgroup.ts) is under the same `toolgate`
      // group, whose weight is the sessions'.
      const relative = `/${path.basename(groups.base)}/`;
      expect(group.startsWith(relative), group).toBe(true);
      const ownGroup = readdirSync(groups.base).find((name) => name.startsWith(`s-${s.id}-`));
      expect(ownGroup).toBeDefined();
      if (CGROUP_V1) expect(group).toBe(`${relative}${ownGroup}`);
      const procs = readFileSync(path.join(groups.base, ownGroup!, 'cgroup.procs'), 'utf8')
        .trim()
        .split('\n');
      expect(procs.length).toBeGreaterThan(0);

      const deleted = await t.admin(t.http.delete(`/v1/sessions/${s.id}`));
      expect(deleted.status).toBe(204);
      await until(
        () => (existsSync(path.join(groups.base, ownGroup!)) ? undefined : true),
        'the group removed',
      );
    });

    // v2 moves whole processes only: there the threads keep just their nice value (src/cpu/cpu-worker.ts).
    it.skipIf(!CGROUP_V1)(
      'puts the CPU pool’s loaded worker threads in the workers group (cgroup v1)',
      async () => {
        await t.app.services.cpu.warm(30_000);
        const threads = readdirSync('/proc/self/task').map((tid) => cpuGroupOf(`/proc/self/task/${tid}`));
        const workers = `/${path.basename(groups.base)}/workers`;
        expect(threads.filter((g) => g === workers).length).toBeGreaterThan(0);
        // The service's own thread stays where it was.
        expect(cpuGroupOf('/proc/self')).not.toContain(path.basename(groups.base));
      },
    );
  },
);

describe('launching in a cpu group', () => {
  it('starts the program all the same when the group is gone', async () => {
    const launch = launchInCpuGroup(
      { file: '/bin/echo', args: ['started'] },
      { procsFile: '/sys/fs/cgroup/no-such-group/cgroup.procs', remove: () => undefined },
    );
    const child = spawn(launch.file, launch.args);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect({ code, out, err }).toEqual({ code: 0, out: 'started\n', err: '' });
  });

  it('leaves a launch as it is without a group', () => {
    expect(launchInCpuGroup({ file: '/bin/echo', args: ['x'] }, undefined)).toEqual({
      file: '/bin/echo',
      args: ['x'],
    });
  });
});
