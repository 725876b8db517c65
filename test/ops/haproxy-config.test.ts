// docker/haproxy/haproxy.cfg (the compose profile `replicas`, and the replicas system test) is a config
// HAProxy accepts: `haproxy -c` on it with the addresses its environment names.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/lib/errors.js';
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

describe("HAProxy's own answers", () => {
  // `http-error status N content-type T [hdr H V] string '<json>'` lines of the config.
  const answers = [
    ...readFileSync(HAPROXY_CONFIG, 'utf8').matchAll(
      /^\s*http-error status (\d+) content-type (\S+)((?: hdr \S+ \S+)*) string '([^']*)'$/gm,
    ),
  ].map(([, status, contentType, headers, body]) => ({ status: Number(status), contentType, headers, body }));

  it('are the error envelope, as JSON, for 502, 503 and 504, with codes of the error catalog', () => {
    expect(answers.map((a) => a.status).sort()).toEqual([502, 503, 504]);
    for (const answer of answers) {
      expect(answer.contentType).toBe('application/json');
      const body = JSON.parse(answer.body) as {
        success: boolean;
        error: { code: string; type: string; message: string };
      };
      expect(body.success).toBe(false);
      expect(body.error.code in ERROR_CODES, body.error.code).toBe(true);
      expect(ERROR_CODES[body.error.code as ErrorCode].status).toBe(answer.status);
      expect(ERROR_CODES[body.error.code as ErrorCode].type).toBe(body.error.type);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });

  it('tell a client when to retry a 503', () => {
    expect(answers.find((a) => a.status === 503)?.headers).toMatch(/ hdr Retry-After \d+/);
  });
});
