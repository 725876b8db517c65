// The egress path's own cost, without the sandbox: an origin server, a session's proxy
// (createProxyServer on a Unix socket) and the runtime's relay (startEgressRelay), and a client reading a
// download through them, plain HTTP and a CONNECT tunnel, two ways: `copy` (the relay and the proxy copy
// every byte through JavaScript, all in this one process) and `splice` (each hands a connection past
// 1 MiB to a splice forwarder: src/network/splice-forwarder.ts). CPU per MB is the whole chain's (origin
// and client included, and for `splice` the forwarders' processes: the relay's, and the proxy's). No goal:
// it tells the code's cost apart from the machine's (the egress bench measures the real thing).
// Needs nothing special (python3 with os.splice for `splice`, else that row is left out).
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, percentile } from './lib.js';
import { createProxyServer } from '../src/network/proxy.js';
import { Connections } from '../src/network/connections.js';
import { startEgressRelay } from '../src/runtime/inside/egress-relay.js';
import { probeSplice } from '../src/network/splice-forwarder.js';
import { childrenCpuMs, relaysCpuMs } from './splice-cpu.js';

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
const chains: Array<{ name: string; proxy: http.Server; relayPort: number }> = [];
for (const name of ['copy', 'splice'] as const) {
  if (name === 'splice' && !(await probeSplice())) {
    console.log('splice: no python3 with os.splice here, left out');
    continue;
  }
  const proxy = createProxyServer({
    sessionId: 'bench',
    decide: () => Promise.resolve({ allowed: true, address: '127.0.0.1', family: 4 }),
    connections: new Connections(0, () => undefined),
    connectTimeoutMs: 5000,
    spliceAfterBytes: name === 'copy' ? 0 : 1024 * 1024,
  });
  const socket = path.join(dir, `${name}.sock`);
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
  const relay = await startEgressRelay(socket, name === 'copy');
  chains.push({ name, proxy, relayPort: relay.port });
}

/** Bytes read through the relay; `tunnel` asks for a CONNECT first, then GETs inside it. */
function download(relayPort: number, tunnel: boolean): Promise<number> {
  return new Promise((resolve) => {
    let received = 0;
    let established = !tunnel;
    const socket = net.connect(relayPort, '127.0.0.1', () =>
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
  for (const chain of chains) {
    for (const tunnel of [false, true]) {
      const speeds: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const cpu = process.cpuUsage();
        const others = childrenCpuMs() + relaysCpuMs();
        const started = performance.now();
        const received = await download(chain.relayPort, tunnel);
        const used = process.cpuUsage(cpu);
        // The forwarder exits just after the client has its last byte: reaped before it is counted.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const forwarders = childrenCpuMs() + relaysCpuMs() - others;
        if (received < BYTES) throw new Error(`only ${received} of ${BYTES} bytes came through`);
        speeds.push(received / MB / ((performance.now() - started - 100) / 1000));
        cpus.push(((used.user + used.system) / 1000 + forwarders) / (received / MB));
      }
      console.log(
        `${chain.name.padEnd(6)} ${tunnel ? 'CONNECT tunnel' : 'plain HTTP    '}: ${fmt(percentile(speeds, 50), 0)} MB/s, ` +
          `${fmt(percentile(cpus, 50))} ms CPU per MB for the whole chain (p50 of ${RUNS}, ${BYTES / MB} MB each)`,
      );
    }
  }
} finally {
  for (const { proxy } of chains) {
    proxy.closeAllConnections();
    proxy.close();
  }
  origin.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
