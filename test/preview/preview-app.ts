// What the preview tests run in a session: an HTTP app (Python's standard library) that echoes what it
// saw (path, Authorization, Host, Cookie) with a cookie, serves a page at /abs whose script is at a
// root-absolute path (/assets/app.js), echoes POST bodies, answers N bytes of a pattern at /big?bytes=N
// (bigPattern), streams three SSE events at /events
// and is a WebSocket echo at /ws (port: its argument); and a WebSocket client that round-trips messages.
import http from 'node:http';
import WebSocket from 'ws';
import type { TestApp } from '../helpers/app.js';

export const PREVIEW_APP = String.raw`
import http.server, json, sys, time, base64, hashlib, struct
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def reply(self, status, body, ctype='application/json', extra=()):
        self.send_response(status)
        self.send_header('content-type', ctype)
        self.send_header('content-length', str(len(body)))
        for k, v in extra: self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == '/events':
            self.send_response(200)
            self.send_header('content-type', 'text/event-stream')
            self.send_header('cache-control', 'no-cache')
            self.send_header('connection', 'close')
            self.end_headers()
            for i in range(3):
                self.wfile.write(('data: tick %d\n\n' % i).encode()); self.wfile.flush(); time.sleep(0.05)
            self.close_connection = True
            return
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
                if n == 126: n = struct.unpack('>H', r.read(2))[0]
                elif n == 127: n = struct.unpack('>Q', r.read(8))[0]
                mask = r.read(4); data = bytes(b ^ mask[i % 4] for i, b in enumerate(r.read(n)))
                if op == 8:
                    self.close_connection = True
                    return
                out = b'echo:' + data
                head = bytes([0x80 | op]) + (bytes([len(out)]) if len(out) < 126 else bytes([126]) + struct.pack('>H', len(out)))
                self.wfile.write(head + out); self.wfile.flush()
        if self.path.startswith('/big?bytes='):
            left = int(self.path.split('=', 1)[1])
            chunk = bytes(i % 251 for i in range(1 << 20))
            self.send_response(200)
            self.send_header('content-type', 'application/octet-stream')
            self.send_header('content-length', str(left))
            self.end_headers()
            while left > 0:
                self.wfile.write(chunk[:left]); left -= min(left, len(chunk))
            return
        if self.path == '/abs':
            return self.reply(200, b'<!doctype html><title>abs</title><p id="out">waiting</p><script src="/assets/app.js"></script>', 'text/html')
        if self.path == '/assets/app.js':
            return self.reply(200, b'document.getElementById("out").textContent = "loaded from the root";', 'text/javascript')
        body = json.dumps({'path': self.path, 'authorization': self.headers.get('authorization'), 'host': self.headers.get('host'), 'cookie': self.headers.get('cookie')}).encode()
        self.reply(200, body, extra=[('set-cookie', 'app=1; Path=/; Domain=localhost')])
    def do_POST(self):
        n = int(self.headers.get('content-length') or 0)
        data = self.rfile.read(n)
        self.reply(200, data, 'application/octet-stream')
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
`;

/** The body of the app's /big?bytes=N: a 1 MiB pattern (i mod 251, so no chunk is like the next one's
 * start) repeated and cut at N. */
export function bigPattern(bytes: number): Buffer {
  const chunk = Buffer.from(Array.from({ length: 1 << 20 }, (_, i) => i % 251));
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / chunk.length) }, () => chunk)).subarray(
    0,
    bytes,
  );
}

/** Sends each message on a new WebSocket at `url` after the previous echo came back: the echoes. */
export function webSocketRoundTrips(
  url: string,
  messages: string[],
  headers: Record<string, string> = {},
): Promise<string[]> {
  const ws = new WebSocket(url, { headers });
  const replies: string[] = [];
  return new Promise<string[]>((resolve, reject) => {
    ws.on('open', () => ws.send(messages[0]));
    ws.on('message', (data: unknown) => {
      replies.push(String(data));
      if (replies.length < messages.length) return ws.send(messages[replies.length]);
      ws.close();
      resolve(replies);
    });
    ws.on('error', reject);
  });
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request to the service on loopback with the Host header given (no DNS for the preview names). */
export function requestWithHost(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, headers: { ...headers, host } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Starts the preview app on port 8000 in the session as a background job, and waits until it listens. */
export async function startPreviewApp(
  t: Pick<TestApp, 'call'>,
  session: { id: string; token: string },
  file = 'server.py',
): Promise<void> {
  const started = await t.call(session, 'run_command', { command: `python3 ${file} 8000`, background: true });
  if (started.status !== 200)
    throw new Error(`the preview app did not start: ${JSON.stringify(started.body)}`);
  for (let i = 0; i < 100; i++) {
    const ports = await t.call(session, 'list_ports', {});
    if (ports.body.data.listening.some((p: { port: number }) => p.port === 8000)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the preview app never listened on 8000');
}
