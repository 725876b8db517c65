// An HTTP origin on loopback that counts the bytes of every connection as the kernel gave and took them:
// it reads a request head, answers `bytes` bytes of body with a Content-Length, and closes. What it read
// and wrote is what crossed the wire, the yardstick for the egress accounting tests.
import net from 'node:net';

export interface RawOrigin {
  readonly port: number;
  /** One entry per connection: bytes it read (the request) and wrote (the whole answer). */
  readonly seen: Array<{ read: number; written: number; closed: boolean }>;
  close(): void;
}

export async function startRawOrigin(bytes: number): Promise<RawOrigin> {
  const seen: RawOrigin['seen'] = [];
  const server = net.createServer((socket) => {
    const entry = { read: 0, written: 0, closed: false };
    seen.push(entry);
    let head = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      entry.read += chunk.length;
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const answer = Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${bytes}\r\nConnection: close\r\n\r\n`,
        ),
        Buffer.alloc(bytes, 120),
      ]);
      socket.end(answer);
    });
    socket.on('close', () => {
      entry.written = socket.bytesWritten;
      entry.closed = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () => server.close(),
  };
}
