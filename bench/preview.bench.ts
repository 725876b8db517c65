// What a preview costs, each against a baseline in the same run: the same app (bench/servers/
// preview-app.py, Python's standard library) run twice, once in a session and reached through a preview
// link (toolgate → the runtime's ingress connection → the app on the sandbox's loopback), once on the
// host's loopback and reached directly. Measured, interleaved (in blocks) so a busy moment of the
// machine hits both sides alike: HTTP request latency over a kept-alive connection (p50 difference,
// goal ≤ 2 ms), a 50 MB download (ratio of speeds, goal ≥ 0.5), and a WebSocket echo's round trip (p50
// difference, goal ≤ 1 ms). The HTTP latency is measured twice: with the app as Python's http.server
// leaves it (Nagle's algorithm on; it writes the headers and the body apart) and with TCP_NODELAY on
// its connections. Runs on bwrap where it works, else on the unisolated runtime (said in the output). The
// service runs in its own process, the client here.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startToolgateProcess } from './child.js';
import { ADMIN_KEY, callTool, fmt, percentile } from './lib.js';

const MB = 1024 * 1024;
const REQUESTS = Number(process.env.BENCH_PREVIEW_REQUESTS ?? 400);
const DOWNLOAD_BYTES = Number(process.env.BENCH_PREVIEW_BYTES ?? 50 * MB);
const DOWNLOADS = Number(process.env.BENCH_PREVIEW_DOWNLOADS ?? 3);
const MESSAGES = Number(process.env.BENCH_PREVIEW_MESSAGES ?? 400);
const APP = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers/preview-app.py');

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/** One GET over `agent`, resolved once the whole body is read: its time in ms and its size. */
const get = (agent: http.Agent, url: string) =>
  new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
    const began = performance.now();
    http
      .get(url, { agent }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
          else resolve({ ms: performance.now() - began, bytes });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });

const openSocket = (url: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

const roundTrip = (ws: WebSocket, text: string) =>
  new Promise<number>((resolve) => {
    const began = performance.now();
    ws.once('message', () => resolve(performance.now() - began));
    ws.send(text);
  });

// BENCH_PREVIEW_SANDBOX picks another backend (none; docker with TOOLGATE_RUNTIME_IMAGE set). The service
// runs in a process of its own (src/server.ts, as `npm start` runs it): the client reading the bytes here
// must not share an event loop with the service that copies them, which the direct side never pays for.
const server = await startToolgateProcess({
  TOOLGATE_SANDBOX: process.env.BENCH_PREVIEW_SANDBOX ?? 'auto',
  TOOLGATE_RUNTIME_IDLE_SECONDS: '3600',
  ...(process.env.BENCH_PREVIEW_CONFIG ? { TOOLGATE_CONFIG: process.env.BENCH_PREVIEW_CONFIG } : {}),
});
const hostApps: ChildProcess[] = [];
try {
  const session = await server.session({
    profile: 'execute',
    files: { 'app.py': readFileSync(APP, 'utf8') },
  });

  /** The app in the session (through a preview link) and on the host (direct): the two bases of its URLs. */
  const startPair = async (nodelay: boolean) => {
    const extra = nodelay ? ['nodelay'] : [];
    const hostPort = await freePort();
    hostApps.push(spawn('python3', [APP, String(hostPort), ...extra], { stdio: 'ignore' }));
    // On the unisolated runtime the session's loopback is the host's: a port of its own there too.
    const sessionPort = await freePort();
    await callTool(server.url, session, 'run_command', {
      command: `exec python3 app.py ${sessionPort} ${extra.join(' ')}`,
      background: true,
    });
    for (let i = 0; i < 100; i++) {
      const { data } = await callTool(server.url, session, 'list_ports', {});
      if ((data.listening as { port: number }[]).some((entry) => entry.port === sessionPort)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const exposed = await callTool(server.url, session, 'expose_port', { port: sessionPort });
    const directBase = `http://127.0.0.1:${hostPort}`;
    for (let i = 0; i < 50; i++) {
      const up = await get(new http.Agent(), `${directBase}/small`).then(
        () => true,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { previewBase: `${server.url}${String(exposed.data.path).replace(/\/$/, '')}`, directBase };
  };

  /**
   * Sequential GETs of /small on one kept-alive connection each way, in alternating blocks of 25: the
   * times in ms. Not one request each way in turn: with the app's Nagle on, whether a connection's ACK is
   * delayed depends on how soon it sends its next request, and a strict alternation let one side (either,
   * by timing) skip the ~40 ms stall that a client making requests one after another meets on both.
   */
  const latency = async ({ previewBase, directBase }: { previewBase: string; directBase: string }) => {
    const previewAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const directAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 30; i++) {
      await get(previewAgent, `${previewBase}/small`);
      await get(directAgent, `${directBase}/small`);
    }
    const preview: number[] = [];
    const direct: number[] = [];
    for (let block = 0; block < REQUESTS / 25; block++) {
      for (let i = 0; i < 25; i++) preview.push((await get(previewAgent, `${previewBase}/small`)).ms);
      for (let i = 0; i < 25; i++) direct.push((await get(directAgent, `${directBase}/small`)).ms);
    }
    previewAgent.destroy();
    directAgent.destroy();
    return { preview, direct };
  };

  const plain = await startPair(false);
  const noDelay = await startPair(true);
  const described = await fetch(`${server.url}/v1/sessions/${session.id}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  const backend = ((await described.json()) as { runtime?: { backend?: string } }).runtime?.backend ?? '?';
  const httpPlain = await latency(plain);
  const httpNoDelay = await latency(noDelay);

  // A large download, each way in turn, from the app as Python leaves it.
  const previewAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const directAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const previewSpeed: number[] = [];
  const directSpeed: number[] = [];
  for (let i = 0; i < DOWNLOADS; i++) {
    const a = await get(previewAgent, `${plain.previewBase}/big?bytes=${DOWNLOAD_BYTES}`);
    const b = await get(directAgent, `${plain.directBase}/big?bytes=${DOWNLOAD_BYTES}`);
    if (a.bytes !== DOWNLOAD_BYTES || b.bytes !== DOWNLOAD_BYTES) throw new Error('short download');
    previewSpeed.push(a.bytes / MB / (a.ms / 1000));
    directSpeed.push(b.bytes / MB / (b.ms / 1000));
  }
  previewAgent.destroy();
  directAgent.destroy();

  // WebSocket round trips on one open connection each.
  const previewWs = await openSocket(`${plain.previewBase.replace(/^http/, 'ws')}/ws`);
  const directWs = await openSocket(`${plain.directBase.replace(/^http/, 'ws')}/ws`);
  for (let i = 0; i < 30; i++) {
    await roundTrip(previewWs, 'warm');
    await roundTrip(directWs, 'warm');
  }
  const wsPreview: number[] = [];
  const wsDirect: number[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    wsPreview.push(await roundTrip(previewWs, `message ${i}`));
    wsDirect.push(await roundTrip(directWs, `message ${i}`));
  }
  previewWs.close();
  directWs.close();

  const median = (values: number[]) => percentile(values, 50);
  const httpLine = (label: string, { preview, direct }: { preview: number[]; direct: number[] }) => {
    const overhead = median(preview) - median(direct);
    console.log(
      `  HTTP GET (${label}), ${REQUESTS} on a kept-alive connection: preview p50 ${fmt(median(preview))} ms ` +
        `p95 ${fmt(percentile(preview, 95))} ms, direct p50 ${fmt(median(direct))} ms ` +
        `p95 ${fmt(percentile(direct, 95))} ms → p50 overhead ${fmt(overhead)} ms (goal ≤ 2 ms) ` +
        `${overhead <= 2 ? 'ok' : 'MISSED'}`,
    );
  };
  const speedRatio = median(previewSpeed) / median(directSpeed);
  const wsOverhead = median(wsPreview) - median(wsDirect);
  console.log(
    `preview bench (runtime backend: ${backend}; the same Python app in the session and on the host)`,
  );
  httpLine("Python's default, Nagle on", httpPlain);
  httpLine('the app with TCP_NODELAY', httpNoDelay);
  console.log(
    `  ${DOWNLOAD_BYTES / MB} MB download ×${DOWNLOADS}: preview ${fmt(median(previewSpeed), 0)} MB/s, ` +
      `direct ${fmt(median(directSpeed), 0)} MB/s → ${fmt(speedRatio)}× direct (goal ≥ 0.5) ` +
      `${speedRatio >= 0.5 ? 'ok' : 'MISSED'}`,
  );
  const each = (speeds: number[]) => speeds.map((v) => fmt(v, 0)).join(' ');
  console.log(`    each, in order (MB/s): preview ${each(previewSpeed)}; direct ${each(directSpeed)}`);
  console.log(
    `  WebSocket echo, ${MESSAGES} round trips: preview p50 ${fmt(median(wsPreview))} ms ` +
      `p95 ${fmt(percentile(wsPreview, 95))} ms, direct p50 ${fmt(median(wsDirect))} ms → p50 overhead ` +
      `${fmt(wsOverhead)} ms (goal ≤ 1 ms) ${wsOverhead <= 1 ? 'ok' : 'MISSED'}`,
  );
} finally {
  for (const app of hostApps) app.kill();
  await server.close();
}
