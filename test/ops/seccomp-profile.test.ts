// docker/seccomp/bwrap.json, the seccomp profile docker-compose.yml and the Kubernetes manifests give the
// toolgate container: Docker's default profile plus the namespace and mount calls bubblewrap needs. Under
// it, bwrap builds the same sandbox toolgate asks of it (every namespace, a fresh /proc, /dev and tmpfs,
// a hostname) as a non-root user with no capabilities, as in compose; calls the default profile forbids
// (keyctl, bpf) still fail with EPERM. Docker's default profile alone refuses bwrap, and with no profile
// at all keyctl works: both are checked, so the test can fail. The bwrap binary is this host's, mounted
// read-only into the base runtime image (both Debian bookworm: the bubblewrap the toolgate image installs).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { dockerUnavailable, TEST_IMAGES } from '../helpers/docker.js';
import { REPO_ROOT } from './child-server.js';

const PROFILE = path.join(REPO_ROOT, 'docker/seccomp/bwrap.json');
const BWRAP = '/usr/bin/bwrap';

const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `they run once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : !existsSync(BWRAP)
    ? `no ${BWRAP} on this host to mount into the container (apt-get install bubblewrap)`
    : await dockerUnavailable();
if (unavailable) console.log(`seccomp profile tests skipped: ${unavailable}`);

/** `docker run` of the base image with compose's security options and the given seccomp setting. */
const run = (seccomp: string | undefined, command: string[]) =>
  spawnSync(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      '--user',
      '65534:65534',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges:true',
      '--security-opt',
      'apparmor=unconfined',
      '--security-opt',
      'systempaths=unconfined',
      ...(seccomp ? ['--security-opt', `seccomp=${seccomp}`] : []),
      '-v',
      `${BWRAP}:/usr/local/bin/bwrap:ro`,
      TEST_IMAGES.base,
      ...command,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );

// The options src/runtime/runner/bwrap-args.ts gives bwrap, on a minimal root.
const SANDBOXED = [
  'bwrap',
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--hostname',
  'toolgate',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--remount-ro',
  '/dev',
  '--size',
  '1048576',
  '--tmpfs',
  '/tmp',
  '--',
  '/bin/sh',
  '-c',
  'echo "inside $(hostname) as $(id -u), pid $$"; touch /tmp/ok && echo tmpfs ok',
];
// keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) and bpf(BPF_MAP_CREATE, NULL, 0) by number
// (x86_64), through perl's syscall(): the result and errno.
const FORBIDDEN =
  '$r = syscall(250, 0, -3, 0); print "keyctl $r ", $! + 0, "\\n"; $! = 0; ' +
  '$r = syscall(321, 0, 0, 0); print "bpf $r ", $! + 0, "\\n"';
const EPERM = 1;

describe.skipIf(unavailable !== null || process.arch !== 'x64')('the seccomp profile for bwrap', () => {
  it('lets bwrap build its sandbox as a non-root user without capabilities', () => {
    const result = run(PROFILE, SANDBOXED);
    expect(result.stderr).toBe('');
    // A pid namespace of its own: bwrap's init is pid 1, the shell pid 2.
    expect(result.stdout).toMatch(/^inside toolgate as 65534, pid 2$/m);
    expect(result.stdout).toContain('tmpfs ok');
    expect(result.status).toBe(0);
  });

  it("is needed: Docker's default profile refuses bwrap's namespaces", () => {
    const result = run(undefined, SANDBOXED);
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toContain('inside toolgate');
  });

  it('still refuses keyctl and bpf with EPERM', () => {
    const result = run(PROFILE, ['perl', '-e', FORBIDDEN]);
    expect(result.stdout).toContain(`keyctl -1 ${EPERM}\n`);
    expect(result.stdout).toContain(`bpf -1 ${EPERM}\n`);
  });

  it('unconfined, the same keyctl call works (so the check above can fail)', () => {
    const result = run('unconfined', ['perl', '-e', FORBIDDEN]);
    expect(result.stdout).toMatch(/^keyctl \d+ 0$/m);
  });
});

describe('docker-compose.yml', () => {
  it('gives every toolgate service the profile, and none runs unconfined', () => {
    const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, { image?: string; security_opt?: string[] }> };
    const toolgate = Object.entries(compose.services).filter(([, service]) =>
      service.image?.startsWith('toolgate:'),
    );
    expect(toolgate.map(([name]) => name)).toEqual(['toolgate', 'toolgate-1', 'toolgate-2', 'toolgate-3']);
    for (const [name, service] of toolgate) {
      const seccomp = (service.security_opt ?? []).filter((opt) => opt.startsWith('seccomp'));
      expect(seccomp, name).toEqual(['seccomp=./docker/seccomp/bwrap.json']);
    }
    expect(existsSync(PROFILE)).toBe(true);
  });
});
