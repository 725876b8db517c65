// The egress path's own cost, without the sandbox and without other processes: an origin server, a
// session's proxy (createProxyServer on a Unix socket) and the runtime's relay (startEgressRelay), all
// in this one process, and a client reading a download through them, plain HTTP and a CONNECT tunnel.
// Everything shares one thread, so the CPU per MB is the whole chain's (origin and client included) and
// the speed is what the code allows when no other process has to be scheduled. No goal: it tells the
// code's cost apart from the machine's (the egress bench measures the real thing). Needs nothing special.
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, percentile } from './lib.js';
import { createProxyServer } from '../src/network/proxy.js';
import { Connections } from '../src/network/connections.js';
import { startEgressRelay } from '../src/runtime/inside/egress-relay.js';

const MB = 1024 * 1024;
const BYTES = Number(process.env.BENCH_EGRESS_CHAIN_BYTES ?? 200 * MB);
const RUNS = 3;

const chunk = Buffer.alloc(MB, 97);
const origin = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-length': BYTES });
  let sent = 0;
  const more = (): void => {
    while (sent < BYTES) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
});
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const port = (origin.address() as net.AddressInfo).port;
const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-chain-'));
const proxy = createProxyServer({
  sessionId: 'bench',
  decide: () => Promise.resolve({ allowed: true, address: '127.0.0.1', family: 4 }),
  connections: new Connections(0, () => undefined),
  connectTimeoutMs: 5000,
});
await new Promise<void>((resolve) => proxy.listen(path.join(dir, 'egress.sock'), resolve));
const relay = await startEgressRelay(path.join(dir, 'egress.sock'));

/** Bytes read through the relay; `tunnel` asks for a CONNECT first, then GETs inside it. */
function download(tunnel: boolean): Promise<number> {
  return new Promise((resolve) => {
    let received = 0;
    let established = !tunnel;
    const socket = net.connect(relay.port, '127.0.0.1', () =>
      socket.write(
        tunnel
          ? `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`
          : `GET http://origin.test:${port}/ HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`,
      ),
    );
    socket.on('data', (data: Buffer) => {
      received += data.length;
      if (established) return;
      established = true;
      received = 0;
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('close', () => resolve(received));
  });
}

try {
  for (const tunnel of [false, true]) {
    const speeds: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const received = await download(tunnel);
      const used = process.cpuUsage(cpu);
      if (received < BYTES) throw new Error(`only ${received} of ${BYTES} bytes came through`);
      speeds.push(received / MB / ((performance.now() - started) / 1000));
      cpus.push((used.user + used.system) / 1000 / (received / MB));
    }
    console.log(
      `${tunnel ? 'CONNECT tunnel' : 'plain HTTP    '}: ${fmt(percentile(speeds, 50), 0)} MB/s, ` +
        `${fmt(percentile(cpus, 50))} ms CPU per MB for the whole chain (p50 of ${RUNS}, ${BYTES / MB} MB each)`,
    );
  }
} finally {
  proxy.closeAllConnections();
  proxy.close();
  origin.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
