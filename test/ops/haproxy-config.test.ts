// docker/haproxy/haproxy.cfg (the compose profile `replicas`, and the replicas system test) is a config
// HAProxy accepts: `haproxy -c` on it with the addresses its environment names.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HAPROXY_CONFIG } from '../system/replica-cluster.js';

const haproxy = spawnSync('haproxy', ['-v']).status === 0;
if (!haproxy) console.log('skipping the HAProxy config check: haproxy is not installed');

describe.skipIf(!haproxy)('HAProxy config', () => {
  const check = (env: Record<string, string>) =>
    spawnSync('haproxy', ['-c', '-f', HAPROXY_CONFIG], {
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/bin', ...env },
      encoding: 'utf8',
    });

  it('is valid with the three replicas and the bind address set', () => {
    const result = check({
      HAPROXY_BIND: '127.0.0.1:18088',
      TOOLGATE_REPLICA_1: 'toolgate-1:8080',
      TOOLGATE_REPLICA_2: 'toolgate-2:8080',
      TOOLGATE_REPLICA_3: '127.0.0.1:8080',
    });
    expect(result.stdout + result.stderr).toMatch(/Configuration file is valid/);
    expect(result.status).toBe(0);
  });

  it('is refused without the addresses (so the check can fail)', () => {
    expect(check({}).status).not.toBe(0);
  });
});
