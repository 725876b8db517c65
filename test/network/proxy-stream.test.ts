// The egress path as a byte stream: a session's proxy (on its Unix socket) and the runtime's relay in
// front of it, both in this process, between a loopback origin and a client. An origin that sends a
// large answer and closes at once must still have every byte reach a client that reads slowly: what a
// hop still buffers is written before that hop closes (plain HTTP and a CONNECT tunnel alike).
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections, type ConnectionRecord } from '../../src/network/connections.js';
import { createProxyServer } from '../../src/network/proxy.js';
import { startEgressRelay, type EgressRelay } from '../../src/runtime/inside/egress-relay.js';

const BYTES = 8 * 1024 * 1024;
const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-proxy-stream-'));
const records: ConnectionRecord[] = [];
const origin = http.createServer((req, res) => {
  if (req.url === '/unsized') {
    // No length: chunked to an HTTP/1.1 client, delimited by the close to an HTTP/1.0 one.
    res.write('first ');
    return void setTimeout(() => res.end('second'), 10);
  }
  res.writeHead(200, { 'content-length': BYTES, connection: 'close' });
  res.end(Buffer.alloc(BYTES, 120));
});
const proxy = createProxyServer({
  sessionId: 'stream',
  decide: () => Promise.resolve({ allowed: true, address: '127.0.0.1', family: 4 }),
  connections: new Connections(0, (record) => records.push(record)),
  connectTimeoutMs: 5000,
});
let originPort = 0;
let relayPort = 0;
let relay: EgressRelay | undefined;

beforeAll(async () => {
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => proxy.listen(path.join(dir, 'egress.sock'), resolve));
  relay = await startEgressRelay(path.join(dir, 'egress.sock'));
  relayPort = relay.port;
});
afterAll(() => {
  relay?.close();
  proxy.closeAllConnections();
  proxy.close();
  origin.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything the client receives after the request, read only after a pause (the hops fill up). */
function slowClient(request: string, afterTunnel?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let tunnelled = afterTunnel === undefined;
    const socket = net.connect(relayPort, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      if (!tunnelled) {
        tunnelled = true;
        socket.write(afterTunnel!);
        socket.pause();
        setTimeout(() => socket.resume(), 300);
        return;
      }
      chunks.push(chunk);
    });
    if (tunnelled) {
      socket.pause();
      setTimeout(() => socket.resume(), 300);
    }
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

const bodyLength = (answer: string) => answer.length - answer.indexOf('\r\n\r\n') - 4;

describe('the egress path as a stream', () => {
  it('hands a slow client every byte of a plain-HTTP answer the origin sent before closing', async () => {
    const answer = await slowClient(
      `GET http://origin.test:${originPort}/ HTTP/1.1\r\nHost: origin.test:${originPort}\r\n\r\n`,
    );
    expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
    expect(bodyLength(answer)).toBe(BYTES);
  });

  it('answers an HTTP/1.0 client in HTTP/1.0 (no chunked body it cannot read)', async () => {
    const answer = await slowClient(
      `GET http://origin.test:${originPort}/unsized HTTP/1.0\r\nHost: origin.test:${originPort}\r\n\r\n`,
    );
    expect(answer.startsWith('HTTP/1.0 200') || answer.startsWith('HTTP/1.1 200')).toBe(true);
    expect(answer.toLowerCase()).not.toContain('transfer-encoding');
    expect(answer.endsWith('\r\n\r\nfirst second')).toBe(true);
  });

  it('hands a slow client every byte through a CONNECT tunnel, and records the connection once', async () => {
    const before = records.length;
    const answer = await slowClient(
      `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`,
    );
    expect(bodyLength(answer)).toBe(BYTES);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const mine = records.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ via: 'connect', decision: 'allowed' });
    expect(mine[0]!.bytesDown).toBeGreaterThan(BYTES);
  });
});
