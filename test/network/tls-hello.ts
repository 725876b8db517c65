// A real ClientHello, as Node's TLS client sends it for a given server name: the first bytes a capture
// server on loopback receives. Shared by the SNI tests (the reader, and the proxy that holds a split one).
import { createServer } from 'node:net';
import { connect } from 'node:tls';

export function clientHello(servername: string): Promise<Buffer> {
  return new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    const server = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const bytes = Buffer.concat(chunks);
        // The record's length says when the hello is all here (Node writes it as one record).
        if (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt16BE(3)) {
          resolve(bytes);
          socket.destroy();
          server.close();
        }
      });
    }).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      connect({ host: '127.0.0.1', port, servername }).on('error', () => undefined);
    });
  });
}
