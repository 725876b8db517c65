# The app the preview bench reaches two ways (bench/preview.bench.ts): through a preview in a session,
# and the same script run on the host's loopback as the baseline. GET /small answers a few bytes,
# GET /big?bytes=N streams N bytes in 1 MiB writes, GET /ws is a WebSocket echo (RFC 6455, text and
# binary frames, unfragmented), enough for a round-trip time. Standard library only. A second argument
# `nodelay` turns Nagle's algorithm off on its connections (Python's default leaves it on).
import base64, hashlib, http.server, struct, sys

CHUNK = b'x' * (1024 * 1024)


class App(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    disable_nagle_algorithm = sys.argv[2:] == ['nodelay']

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == '/small':
            body = b'ok'
            self.send_response(200)
            self.send_header('content-type', 'text/plain')
            self.send_header('content-length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path.startswith('/big?bytes='):
            left = int(self.path.split('=', 1)[1])
            self.send_response(200)
            self.send_header('content-type', 'application/octet-stream')
            self.send_header('content-length', str(left))
            self.end_headers()
            while left > 0:
                piece = CHUNK[: min(left, len(CHUNK))]
                self.wfile.write(piece)
                left -= len(piece)
            return
        if self.path == '/ws':
            self.websocket()
            return
        self.send_error(404)

    def websocket(self):
        key = self.headers['sec-websocket-key']
        magic = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
        accept = base64.b64encode(hashlib.sha1((key + magic).encode()).digest()).decode()
        self.send_response(101)
        self.send_header('upgrade', 'websocket')
        self.send_header('connection', 'Upgrade')
        self.send_header('sec-websocket-accept', accept)
        self.end_headers()
        self.wfile.flush()
        read = self.rfile.read
        while True:
            head = read(2)
            if len(head) < 2:
                return
            opcode, length = head[0] & 15, head[1] & 127
            if length == 126:
                length = struct.unpack('>H', read(2))[0]
            elif length == 127:
                length = struct.unpack('>Q', read(8))[0]
            mask = read(4)
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(read(length)))
            if opcode == 8:
                self.close_connection = True
                return
            size = bytes([len(data)]) if len(data) < 126 else bytes([126]) + struct.pack('>H', len(data))
            self.wfile.write(bytes([0x80 | opcode]) + size + data)
            self.wfile.flush()


http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), App).serve_forever()
