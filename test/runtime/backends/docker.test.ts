// The docker backend against a real Docker engine: the image a session chooses (unknown → 400), the
// security settings of the container it gets, re-attaching after the service restarts (the container
// and a background command keep running), the sweep of orphans, idle stop and start on the same volume.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { writeConfigFile } from '../../ops/with-config.js';
import {
  containersOf,
  docker,
  dockerUnavailable,
  removeContainersOf,
  TEST_IMAGES,
} from '../../helpers/docker.js';
import { LABELS } from '../../../src/runtime/backends/docker/container-spec.js';
import { instanceId } from '../../../src/runtime/backends/docker/index.js';

// These tests choose the docker backend themselves: they run once, in the default project, not again in
// the other backends' passes (two copies at once would also share one engine under load).
const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `they run once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : await dockerUnavailable();
if (unavailable) console.log(`docker backend tests skipped: ${unavailable}`);

const CONFIG = {
  runtimeBackend: { type: 'docker', images: TEST_IMAGES, memoryBytes: 256 * 1024 * 1024, pidsLimit: 128 },
  profiles: { py: { permissions: ['read', 'write', 'execute'], image: 'python' } },
};
const env = (extra: object = {}) => ({
  TOOLGATE_SANDBOX: 'docker',
  TOOLGATE_CONFIG: writeConfigFile({ ...CONFIG, ...extra }),
});

const containerOf = async (dataDir: string, sessionId: string) => {
  const found = (await containersOf(dataDir)).find((c) => c.Labels[LABELS.session] === sessionId);
  if (!found) throw new Error(`no container for ${sessionId}`);
  return docker().getContainer(found.Id).inspect();
};

describe.skipIf(unavailable !== null)('docker runtime backend', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp(env());
  });
  afterAll(() => t?.close());

  it('runs each session in the image it chose: by key, from its profile, or the default', async () => {
    const chosen = await t.createSession({ profile: 'execute', image: 'python' });
    expect(chosen.image).toBe('python');
    const fromProfile = await t.createSession({ profile: 'py' });
    const plain = await t.createSession({ profile: 'execute' });
    expect(plain.image).toBeNull();
    for (const s of [chosen, fromProfile]) {
      const run = await t.call(s, 'run_command', { command: 'python3 -c "print(6*7)"' });
      expect(run.status).toBe(200);
      expect(run.body.data.stdout).toBe('42\n');
      expect(run.body.data.sandbox).toEqual({ backend: 'docker', isolated: true });
    }
    const none = await t.call(plain, 'run_command', { command: 'command -v python3 || echo missing' });
    expect(none.body.data.stdout).toBe('missing\n');
    expect((await containerOf(t.dataDir, chosen.id)).Config.Image).toBe(TEST_IMAGES.python);
    expect((await containerOf(t.dataDir, plain.id)).Config.Image).toBe(TEST_IMAGES.base);
  });

  it('refuses an image key that is not in the table, naming the allowed ones', async () => {
    const res = await t.admin(t.http.post('/v1/sessions')).send({ image: 'rust' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.errors[0]).toMatchObject({ field: 'image', expected: 'base, python' });
  });

  it('confines the container: no network, read-only root, non-root, no capabilities, limits, init', async () => {
    const s = await t.createSession({ profile: 'full' });
    const inside = await t.call(s, 'run_command', {
      command:
        'id -u; ls /sys/class/net; grep CapEff /proc/self/status; touch /etc/x 2>&1 || true; grep Seccomp: /proc/self/status',
    });
    expect(inside.status).toBe(200);
    const lines = inside.body.data.stdout.trim().split('\n');
    expect(lines[0]).toBe('65534');
    expect(lines[1]).toBe('lo');
    expect(lines[2]).toMatch(/^CapEff:\s+0+$/);
    expect(lines[3]).toMatch(/Read-only file system/);
    expect(lines[4]).toMatch(/^Seccomp:\s+2$/);
    const info = await containerOf(t.dataDir, s.id);
    const host = info.HostConfig;
    expect(host.NetworkMode).toBe('none');
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.Init).toBe(true);
    expect(host.Memory).toBe(256 * 1024 * 1024);
    expect(host.PidsLimit).toBe(128);
    expect(host.NanoCpus).toBe(1e9);
    // runtimeBackend.cpuWeight's default, 10: a tenth of a default container's share (docs/runtime.md).
    expect(host.CpuShares).toBe(102);
    expect(host.SecurityOpt).not.toContain('seccomp=unconfined');
    expect(host.PortBindings ?? {}).toEqual({});
    expect(info.Config.User).toBe('65534:65534');
    expect(info.Config.Labels[LABELS.session]).toBe(s.id);
    expect(host.Binds?.find((b) => b.endsWith(':/toolgate/runtime.cjs:ro'))).toBeDefined();
  });
});

describe.skipIf(unavailable !== null)('docker runtimes outlive the service', () => {
  it('re-attaches after a restart: same container, the background job adopted with its output', async () => {
    let t = await injectApp(env());
    const dataDir = t.dataDir;
    try {
      const s = await t.createSession({ profile: 'execute' });
      await t.call(s, 'write_file', { path: 'keep.txt', content: 'kept' }).expect(200);
      const started = await t.call(s, 'run_command', {
        command: 'for i in $(seq 1 30); do echo tick $i; sleep 0.1; done; echo done',
        background: true,
      });
      expect(started.status).toBe(200);
      const jobId = started.body.data.jobId as string;
      const before = await containerOf(dataDir, s.id);
      await new Promise((r) => setTimeout(r, 400));
      await t.close({ keepData: true });
      // The service is gone for a while; the job goes on printing with nobody attached.
      await new Promise((r) => setTimeout(r, 600));
      t = await injectApp(env(), { dataDir });
      const read = await t.call(s, 'read_file', { path: 'keep.txt' });
      expect(read.status).toBe(200);
      expect(read.body.data.content).toBe('kept');
      const after = await containerOf(dataDir, s.id);
      expect(after.Id).toBe(before.Id);
      expect(after.State.StartedAt).toBe(before.State.StartedAt);
      // The job is this service's now: the same id, it ends normally, and all its output is there,
      // what it printed before the restart, while no service was attached, and after.
      const waited = await t.call(s, 'job_wait', { job_id: jobId, timeout_ms: 20_000 });
      expect(waited.status).toBe(200);
      expect(waited.body.data).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });
      const output = await t.call(s, 'job_output', { job_id: jobId });
      const expected = `${Array.from({ length: 30 }, (_, i) => `tick ${i + 1}\n`).join('')}done\n`;
      expect(output.body.data.output).toBe(expected);
    } finally {
      await t.close();
    }
  });

  it('the sweep removes containers of deleted sessions and orphans; idle stop keeps the volume', async () => {
    const t = await injectApp(env({ runtime: { idleSeconds: 0.5 } }));
    try {
      const s = await t.createSession({ profile: 'execute' });
      await t.call(s, 'write_file', { path: 'a.txt', content: 'still here' }).expect(200);
      const first = await containerOf(t.dataDir, s.id);
      // Idle: the container is stopped, not removed; the next call starts it again.
      await expect
        .poll(async () => (await containerOf(t.dataDir, s.id)).State.Running, { timeout: 10_000 })
        .toBe(false);
      const read = await t.call(s, 'read_file', { path: 'a.txt' });
      expect(read.body.data.content).toBe('still here');
      const again = await containerOf(t.dataDir, s.id);
      expect(again.Id).toBe(first.Id);
      expect(again.State.Running).toBe(true);
      // An orphan: a container of this instance whose session does not exist.
      const orphan = await docker().createContainer({
        Image: TEST_IMAGES.base,
        Cmd: ['true'],
        Labels: { [LABELS.instance]: instanceId(t.dataDir), [LABELS.session]: 'ses_gone' },
        HostConfig: { NetworkMode: 'none' },
      });
      await t.app.services.sweep();
      const left = (await containersOf(t.dataDir)).map((c) => c.Id);
      expect(left).not.toContain(orphan.id);
      expect(left).toContain(first.Id);
      // A deleted session's container goes with it.
      await t.admin(t.http.delete(`/v1/sessions/${s.id}`)).expect(204);
      expect((await containersOf(t.dataDir)).map((c) => c.Id)).not.toContain(first.Id);
    } finally {
      await removeContainersOf(t.dataDir);
      await t.close();
    }
  });
});

describe('images without a container backend', () => {
  it('refuses an image key: bwrap and none have no images to choose from', async () => {
    const t = await injectApp({ TOOLGATE_SANDBOX: 'none' });
    try {
      const res = await t.admin(t.http.post('/v1/sessions')).send({ image: 'python' });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/no images to choose from/);
      expect((await t.createSession({})).image).toBeNull();
    } finally {
      await t.close();
    }
  });
});

// A network session on docker: no interface but loopback in the container, and its one way out is the
// egress proxy's socket bound in, under the session's policy. "The internet" is a server on the host's
// loopback that the operator opened (openRanges) and named in the proxy's hosts file.
describe.skipIf(unavailable !== null)('docker runtime backend with the network', () => {
  let t: InjectApp;
  let server: Server;
  let hostsDir: string;
  let netEnv: () => Record<string, string>;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('hello from outside\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hostsDir = mkdtempSync(path.join(tmpdir(), 'toolgate-docker-hosts-'));
    const hostsFile = path.join(hostsDir, 'hosts');
    writeFileSync(hostsFile, '127.0.0.1 allowed.test denied.test\n');
    netEnv = () =>
      env({
        network: { openRanges: ['127.0.0.1/32'], hostsFile, connectTimeoutMs: 3000 },
        profiles: {
          net: {
            permissions: ['read', 'write', 'execute', 'network'],
            image: 'python',
            network: { mode: 'allowlist', allow: ['allowed.test'] },
          },
        },
      });
    t = await injectApp(netEnv());
  });
  afterAll(async () => {
    if (t) {
      await removeContainersOf(t.dataDir);
      await t.close();
    }
    server?.close();
    if (hostsDir) rmSync(hostsDir, { recursive: true, force: true });
  });

  it('reaches an allowed name through the proxy only; a denied name gets the rule, a direct connection no route', async () => {
    const port = (server.address() as AddressInfo).port;
    const s = await t.createSession({ profile: 'net' });
    const fetch = (host: string) =>
      `python3 -c "import urllib.request as u\ntry: print(u.urlopen('http://${host}:${port}/').read().decode().strip())\nexcept Exception as e: print('refused', getattr(e, 'code', ''), e.read().decode() if hasattr(e, 'read') else e)"`;
    const allowed = await t.call(s, 'run_command', { command: fetch('allowed.test') });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.stdout).toBe('hello from outside\n');
    const denied = await t.call(s, 'run_command', { command: fetch('denied.test') });
    expect(denied.body.data.stdout).toMatch(/refused 403 .*denied\.test denied/);
    const direct = await t.call(s, 'run_command', {
      command: `python3 -c "import socket\ntry: socket.create_connection(('127.0.0.1', ${port}), 2); print('connected')\nexcept OSError as e: print('no route', e.errno)"`,
    });
    expect(direct.body.data.stdout).toMatch(/^no route/);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&limit=50`));
    const network = (audit.body.entries as { entryPoint: string; status: string }[]).filter(
      (row) => row.entryPoint === 'network',
    );
    expect(network.map((row) => row.status).sort()).toEqual(['refused', 'success']);
  });

  it('keeps its way out across a service restart: the same container reaches the allowed name again', async () => {
    const port = (server.address() as AddressInfo).port;
    const s = await t.createSession({ profile: 'net' });
    const fetch = `python3 -c "import urllib.request as u; print(u.urlopen('http://allowed.test:${port}/').read().decode().strip())"`;
    const before = await t.call(s, 'run_command', { command: fetch });
    expect(before.body.data.stdout).toBe('hello from outside\n');
    const container = await containerOf(t.dataDir, s.id);
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = await injectApp(netEnv(), { dataDir });
    const after = await t.call(s, 'run_command', { command: fetch });
    expect(after.status).toBe(200);
    expect(after.body.data.stdout).toBe('hello from outside\n');
    const again = await containerOf(dataDir, s.id);
    expect(again.Id).toBe(container.Id);
    expect(again.State.StartedAt).toBe(container.State.StartedAt);
  });
});
