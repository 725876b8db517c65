// The session's egress proxy, in this process between a loopback origin and a client on its Unix socket:
// what it lets through a CONNECT tunnel (a TLS client's ClientHello is read whole however it is split,
// and a server name other than the tunnel's host is cut off before a byte reaches the server), and the
// bytes it counts (exactly what crossed each way: a plain-HTTP request's head included, and a quota cut
// at its last byte, the connection's record saying so).
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections, type ConnectionRecord } from '../../src/network/connections.js';
import { createProxyServer } from '../../src/network/proxy.js';
import { startRawOrigin, type RawOrigin } from './raw-origin.js';
import { clientHello } from './tls-hello.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-proxy-'));
const records: ConnectionRecord[] = [];
const servers: net.Server[] = [];

/** A server that keeps what each connection sent it, and answers nothing. */
const received: Buffer[][] = [];
const recorder = net.createServer((socket) => {
  const chunks: Buffer[] = [];
  received.push(chunks);
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
});

/** A proxy for session `sessionId` with a quota (0: none), every destination allowed at 127.0.0.1. */
async function proxyFor(
  sessionId: string,
  quotaBytes: number,
): Promise<{ socket: string; connections: Connections }> {
  const connections = new Connections(quotaBytes, (record) => records.push(record));
  const proxy = createProxyServer({
    sessionId,
    decide: () => Promise.resolve({ allowed: true, address: '127.0.0.1', family: 4 }),
    connections,
    connectTimeoutMs: 5000,
    spliceAfterBytes: 0,
  });
  const socket = path.join(dir, `${sessionId}.sock`);
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
  servers.push(proxy);
  return { socket, connections };
}

const listen = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as net.AddressInfo).port;
};

let recorderPort = 0;
let tunnel = '';
beforeAll(async () => {
  recorderPort = await listen(recorder);
  tunnel = (await proxyFor('tunnel', 0)).socket;
});
afterAll(() => {
  for (const server of servers) {
    if (server instanceof http.Server) server.closeAllConnections();
    server.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const until = (socket: net.Socket, event: 'close' | 'data') =>
  new Promise<unknown>((resolve) => socket.once(event, resolve));

/** A tunnel to the recorder asked for as `host`; resolves once the proxy has answered 200. */
async function openTunnel(host: string): Promise<net.Socket> {
  const socket = net.connect({ path: tunnel });
  socket.on('error', () => undefined);
  socket.write(`CONNECT ${host}:${recorderPort} HTTP/1.1\r\nHost: ${host}:${recorderPort}\r\n\r\n`);
  const answer = String(await until(socket, 'data'));
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
  return socket;
}

/** Writes `bytes` in pieces of `size`, a pause between them (each a read of its own at the proxy). */
async function dribble(socket: net.Socket, bytes: Buffer, size: number): Promise<void> {
  for (let at = 0; at < bytes.length; at += size) {
    socket.write(bytes.subarray(at, at + size));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the TLS server name through a CONNECT tunnel', () => {
  it('cuts off a ClientHello naming another server, however it is split, before the server sees a byte', async () => {
    const fronted = await clientHello('fronted.example');
    for (const size of [fronted.length, 40, 7]) {
      const before = received.length;
      const socket = await openTunnel('allowed.example');
      const closed = until(socket, 'close');
      await dribble(socket, fronted, size);
      await closed;
      // The recorder may not even have seen a connection: nothing was forwarded if it did.
      expect(Buffer.concat(received.slice(before).flat()).length, `pieces of ${size}`).toBe(0);
    }
    await expect
      .poll(() => records.filter((r) => r.reason?.includes('TLS server name fronted.example')).length)
      .toBe(3);
  });

  it('forwards a split ClientHello naming the tunnel host, whole and in order', async () => {
    const hello = await clientHello('allowed.example');
    const before = received.length;
    const socket = await openTunnel('allowed.example');
    await dribble(socket, hello, 9);
    await expect.poll(() => Buffer.concat(received[before] ?? []).length).toBe(hello.length);
    expect(Buffer.concat(received[before]!).equals(hello)).toBe(true);
    socket.destroy();
  });

  it('refuses a hello larger than the bound, and lets a protocol that is no TLS through at once', async () => {
    const huge = await openTunnel('allowed.example');
    const closed = until(huge, 'close');
    huge.write(Buffer.from([22, 3, 1, 0, 4, 1, 0x01, 0x90, 0x00]));
    await closed;
    await expect.poll(() => records.some((r) => r.reason?.includes('ClientHello larger'))).toBe(true);
    const before = received.length;
    const ssh = await openTunnel('allowed.example');
    ssh.write('SSH-2.0-OpenSSH_9.2\r\n');
    await expect.poll(() => Buffer.concat(received[before] ?? []).toString()).toBe('SSH-2.0-OpenSSH_9.2\r\n');
    ssh.destroy();
  });
});

/** Sends `request` on a new connection to `socket` and resolves with all it receives until it closes. */
function exchange(socket: string, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const client = net.connect({ path: socket }, () => client.write(request));
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.on('error', reject);
    client.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

describe('the bytes a connection moves, exactly', () => {
  let origin: RawOrigin;
  beforeAll(async () => {
    origin = await startRawOrigin(1024 * 1024);
  });
  afterAll(() => origin.close());
  const recordOf = (sessionId: string) => records.find((r) => r.sessionId === sessionId);

  it("counts a plain-HTTP request's head as sent: the record says what the server read and the client got", async () => {
    const { socket } = await proxyFor('plain', 0);
    const before = origin.seen.length;
    const got = await exchange(
      socket,
      `GET http://origin.test:${origin.port}/path?data=${'x'.repeat(500)} HTTP/1.1\r\nHost: origin.test:${origin.port}\r\nX-Data: ${'y'.repeat(300)}\r\n\r\n`,
    );
    await expect.poll(() => recordOf('plain')).toBeDefined();
    await expect.poll(() => origin.seen[before]?.closed).toBe(true);
    const server = origin.seen[before]!;
    expect(server.read).toBeGreaterThan(800);
    expect(recordOf('plain')).toMatchObject({ bytesUp: server.read, bytesDown: got.length });
    expect(got.length).toBe(server.written);
  });

  it("delivers exactly up to the quota's last byte and records exactly that, plain HTTP and CONNECT alike", async () => {
    const quota = 102_400;
    for (const via of ['http', 'connect'] as const) {
      const sessionId = `quota-${via}`;
      const { socket, connections } = await proxyFor(sessionId, quota);
      const before = origin.seen.length;
      const request =
        via === 'http'
          ? `GET http://origin.test:${origin.port}/ HTTP/1.1\r\nHost: origin.test:${origin.port}\r\n\r\n`
          : `CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`;
      const tunnelled = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`;
      const got =
        via === 'http'
          ? await exchange(socket, request)
          : await new Promise<Buffer>((resolve, reject) => {
              const chunks: Buffer[] = [];
              const client = net.connect({ path: socket }, () => client.write(request));
              let established = false;
              client.on('data', (chunk: Buffer) => {
                if (!established) {
                  established = true;
                  client.write(tunnelled);
                  return;
                }
                chunks.push(chunk);
              });
              client.on('error', reject);
              client.on('close', () => resolve(Buffer.concat(chunks)));
            });
      await expect.poll(() => recordOf(sessionId)).toBeDefined();
      const record = recordOf(sessionId)!;
      const server = origin.seen[before]!;
      // What the server read plus what the client got is the quota, to the byte.
      expect(record.bytesUp, via).toBe(server.read);
      expect(record.bytesDown, via).toBe(got.length);
      expect(record.bytesUp + record.bytesDown, via).toBe(quota);
      expect(connections.bytesUsed(sessionId)).toBe(quota);
      expect(record.reason, via).toContain('egress quota');
    }
  });
});
