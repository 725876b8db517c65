// Previews across replicas: two replicas on one database, the session's runtime (and the server in it)
// on r1. A preview link, the token form and a WebSocket used at r2 reach the app through r1: r2 has no
// runtime with that server, and a preview never starts one, so anything r2 served itself would be a
// 502 PORT_NOT_LISTENING.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startApp, tempDir, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { freePort } from '../ops/child-server.js';

const APP = String.raw`
import base64, hashlib, http.server, json, struct
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path == '/ws':
            key = self.headers['sec-websocket-key']
            accept = base64.b64encode(hashlib.sha1((key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').encode()).digest()).decode()
            self.send_response(101)
            self.send_header('upgrade', 'websocket'); self.send_header('connection', 'Upgrade')
            self.send_header('sec-websocket-accept', accept)
            self.end_headers(); self.wfile.flush()
            r = self.rfile
            while True:
                h = r.read(2)
                if len(h) < 2: return
                op = h[0] & 15; n = h[1] & 127
                mask = r.read(4); data = bytes(b ^ mask[i % 4] for i, b in enumerate(r.read(n)))
                if op == 8:
                    self.close_connection = True
                    return
                out = b'echo:' + data
                self.wfile.write(bytes([0x80 | op, len(out)]) + out); self.wfile.flush()
        body = json.dumps({'path': self.path, 'authorization': self.headers.get('authorization')}).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.ThreadingHTTPServer(('127.0.0.1', 8000), H).serve_forever()
`;

describe.skipIf(needs('bwrap', 'the preview tests across replicas'))('previews across replicas', () => {
  let r1: TestApp;
  let r2: TestApp;
  let at2: string;
  let s: { id: string; token: string };

  beforeAll(async () => {
    const dataDir = tempDir();
    const [port1, port2] = [await freePort(), await freePort()];
    const replica = (id: string, port: number) => ({
      TOOLGATE_SANDBOX: 'bwrap',
      TOOLGATE_REPLICA_ID: id,
      TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port}`,
    });
    r1 = await startApp(replica('r1', port1), { dataDir });
    r2 = await startApp(replica('r2', port2), { dataDir });
    await r1.app.listen({ host: '127.0.0.1', port: port1 });
    await r2.app.listen({ host: '127.0.0.1', port: port2 });
    at2 = `http://127.0.0.1:${port2}`;
    s = await r1.createSession({ profile: 'execute', files: { 'app.py': APP } });
    // r1 serves the session first: it owns its runtime, where the server runs.
    expect((await r1.call(s, 'run_command', { command: 'python3 app.py', background: true })).status).toBe(
      200,
    );
    for (let i = 0; i < 100; i++) {
      const ports = await r1.call(s, 'list_ports', {});
      if (ports.body.data.listening.some((p: { port: number }) => p.port === 8000)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);
  afterAll(async () => {
    await r2?.close({ keepData: true });
    await r1?.close();
  });

  it('a link and the token form used at a non-owner reach the app through the owner', async () => {
    const exposed = await r1.call(s, 'expose_port', { port: 8000 });
    expect(exposed.status).toBe(200);
    const page = await fetch(`${at2}${exposed.body.data.path}from-r2?q=1`);
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ path: '/from-r2?q=1', authorization: null });
    const byToken = await fetch(`${at2}/v1/sessions/${s.id}/ports/8000/token`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(byToken.status).toBe(200);
    expect(await byToken.json()).toEqual({ path: '/token', authorization: null });
    // r2 never started a runtime for the session: the owner served both.
    expect(r2.app.services.runtimes.get(s.id)?.state ?? 'stopped').not.toBe('running');
  });

  it('a WebSocket opened at a non-owner round-trips through the owner', async () => {
    const link = await fetch(`${at2}/v1/sessions/${s.id}/ports/8000/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(link.status).toBe(201);
    const { path } = await link.json();
    const ws = new WebSocket(`${at2.replace('http', 'ws')}${path}ws`);
    const replies: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => ws.send('one'));
      ws.on('message', (data: unknown) => {
        replies.push(String(data));
        if (replies.length === 1) ws.send('two');
        else {
          ws.close();
          resolve();
        }
      });
      ws.on('error', reject);
    });
    expect(replies).toEqual(['echo:one', 'echo:two']);
  });
});
