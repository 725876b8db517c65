// The socket receiver of the ingress (src/preview/fd-receiver.ts), fed by a Python sender as a runtime
// would feed it: a connected loopback TCP socket with a ticket line reaches Node as a working socket;
// everything else a compromised runtime could send (no descriptor, two, a Unix socket, a listening
// socket, a ticket that is not one) is closed and never delivered.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFdReceiver, type FdReceiver } from '../../src/preview/fd-receiver.js';

const python = spawnSync('/usr/bin/python3', ['-c', 'import socket; socket.send_fds'], { stdio: 'ignore' });
const noPython = python.status !== 0;
if (noPython) console.log('skipped: the socket receiver needs python3 (3.9+) at /usr/bin/python3');

/** Sends what `kind` says to the receiver at `socketPath`, from a Python process (as the runtime's passer). */
function send(socketPath: string, kind: string, port: number, ticket: string): void {
  const script = String.raw`
import socket, sys
kind, path, port, ticket = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tcp = socket.create_connection(('127.0.0.1', port))
u = socket.socket(socket.AF_UNIX); u.connect(path)
line = (ticket + '\n').encode()
if kind == 'tcp': socket.send_fds(u, [line], [tcp.fileno()])
elif kind == 'none': u.sendall(line)
elif kind == 'two': socket.send_fds(u, [line], [tcp.fileno(), tcp.fileno()])
elif kind == 'unix':
    a, b = socket.socketpair(); socket.send_fds(u, [line], [a.fileno()])
elif kind == 'listening':
    l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(); socket.send_fds(u, [line], [l.fileno()])
u.settimeout(5)
# Closed by the receiver once it has decided (reset when it left bytes unread).
try: u.recv(1)
except ConnectionResetError: pass
`;
  const done = spawnSync('/usr/bin/python3', ['-c', script, kind, socketPath, String(port), ticket], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  expect(done.stderr).toBe('');
}

describe.skipIf(noPython)('the ingress socket receiver', () => {
  let dir: string;
  let receiver: FdReceiver | undefined;
  let server: net.Server;
  let port: number;
  const delivered: { ticket: string; socket: net.Socket }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'toolgate-fd-receiver-'));
    server = net.createServer((socket) => socket.on('data', (data) => socket.write(`echo:${data}`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
    receiver = await startFdReceiver(
      path.join(dir, 'fd.sock'),
      (ticket, socket) => delivered.push({ ticket, socket }),
      () => undefined,
    );
  });
  afterAll(async () => {
    receiver?.close();
    for (const { socket } of delivered) socket.destroy();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers a connected loopback TCP socket with its ticket, and Node talks over it', async () => {
    expect(receiver).toBeDefined();
    send(path.join(dir, 'fd.sock'), 'tcp', port, 'ticket-number-one-abc');
    await expect.poll(() => delivered.length).toBe(1);
    const { ticket, socket } = delivered[0];
    expect(ticket).toBe('ticket-number-one-abc');
    expect(socket.remotePort).toBe(port);
    socket.write('hi');
    expect(String(await new Promise((resolve) => socket.once('data', resolve)))).toBe('echo:hi');
  });

  it.each(['none', 'two', 'unix', 'listening'])(
    'refuses a connection with %s descriptor(s)',
    async (kind) => {
      const before = delivered.length;
      send(path.join(dir, 'fd.sock'), kind, port, `ticket-for-${kind}-abcdef`);
      // The sender waits until the receiver closes its connection: it has decided by then.
      expect(delivered.length).toBe(before);
      // Still serving after a refusal.
      send(path.join(dir, 'fd.sock'), 'tcp', port, `ticket-after-${kind}-abc`);
      await expect.poll(() => delivered.length).toBe(before + 1);
      expect(delivered.at(-1)!.ticket).toBe(`ticket-after-${kind}-abc`);
    },
  );

  it('refuses a ticket line that is not a ticket', async () => {
    const before = delivered.length;
    send(path.join(dir, 'fd.sock'), 'tcp', port, 'has"quote-and-more-chars');
    send(path.join(dir, 'fd.sock'), 'tcp', port, 'short');
    send(path.join(dir, 'fd.sock'), 'tcp', port, 'x'.repeat(100));
    send(path.join(dir, 'fd.sock'), 'tcp', port, 'ticket-valid-after-bad');
    await expect.poll(() => delivered.length).toBe(before + 1);
    expect(delivered.at(-1)!.ticket).toBe('ticket-valid-after-bad');
  });
});
