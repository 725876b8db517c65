// web_fetch's connection in the audit: the bytes it records are the wire's, both ways (the request line
// and headers sent; the answer's status line, headers and body received), what the server read and
// wrote, not only the body. A loopback origin that counts its socket's bytes is the yardstick; the
// egress service is the real one, with loopback opened for the test's name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../src/network/connections.js';
import { Egress } from '../../src/network/egress.js';
import { fetchUrl } from '../../src/network/fetch.js';
import { startRawOrigin, type RawOrigin } from './raw-origin.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-fetch-'));
const hostsFile = path.join(dir, 'hosts');
writeFileSync(hostsFile, '127.0.0.1 origin.test\n');
const records: ConnectionRecord[] = [];
const egress = (quotaBytes: number) =>
  new Egress({
    socketsDir: path.join(dir, 'sockets'),
    openRanges: ['127.0.0.1/32'],
    hostsFile,
    connectTimeoutMs: 5000,
    quotaBytes,
    sink: (record) => records.push(record),
  });

let origin: RawOrigin;
beforeAll(async () => {
  origin = await startRawOrigin(5001);
});
afterAll(() => {
  origin.close();
  rmSync(dir, { recursive: true, force: true });
});

const fetchFor = (service: Egress, sessionId: string) =>
  fetchUrl(service, {
    sessionId,
    policy: { mode: 'open' },
    url: `http://origin.test:${origin.port}/page.txt`,
    maxBytes: 1024 * 1024,
    timeoutMs: 10_000,
    maxRedirects: 2,
    signal: new AbortController().signal,
  });

describe('web_fetch egress bytes', () => {
  it('records the bytes that crossed the wire both ways, not only the body', async () => {
    const service = egress(0);
    const before = origin.seen.length;
    const fetched = await fetchFor(service, 'wire');
    expect(fetched.body.length).toBe(5001);
    await expect.poll(() => records.find((r) => r.sessionId === 'wire')).toBeDefined();
    await expect.poll(() => origin.seen[before]?.closed).toBe(true);
    const server = origin.seen[before]!;
    expect(server.read).toBeGreaterThan(0);
    expect(server.written).toBeGreaterThan(5001);
    expect(records.find((r) => r.sessionId === 'wire')).toMatchObject({
      via: 'web_fetch',
      bytesUp: server.read,
      bytesDown: server.written,
    });
    expect(service.connections.bytesUsed('wire')).toBe(server.read + server.written);
    await service.close();
  });

  it('counts those bytes against the quota: a page larger than what is left is refused', async () => {
    const service = egress(2000);
    await expect(fetchFor(service, 'small-quota')).rejects.toMatchObject({ code: 'EGRESS_DENIED' });
    await expect.poll(() => records.find((r) => r.sessionId === 'small-quota')).toBeDefined();
    expect(records.find((r) => r.sessionId === 'small-quota')!.bytesUp).toBeGreaterThan(0);
    await expect(fetchFor(service, 'small-quota')).rejects.toMatchObject({
      message: expect.stringContaining('egress quota'),
    });
    await service.close();
  });
});
