// The runtime's side of a preview connection (src/runtime/inside/ports.ts), run in this process against
// a loopback app and an ingress directory of sockets made here: offered the receiver's socket, it hands
// the connected socket over and relays nothing; not offered one, it relays through the ingress socket;
// offered one that does not answer, it falls back to relaying, so a preview never depends on the
// hand-over working.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFdReceiver, type FdReceiver } from '../../src/preview/fd-receiver.js';
import { portHandlers } from '../../src/runtime/inside/ports.js';
import type { OpContext } from '../../src/runtime/inside/handler.js';

const python = spawnSync('/usr/bin/python3', ['-c', 'import socket; socket.send_fds'], { stdio: 'ignore' });
const noPython = python.status !== 0;
if (noPython) console.log('skipped: the hand-over needs python3 (3.9+) at /usr/bin/python3');

describe.skipIf(noPython)("the runtime's preview connections", () => {
  let dir: string;
  let app: net.Server;
  let port: number;
  let relayServer: net.Server;
  let receiver: FdReceiver | undefined;
  const relayed: { line: string; socket: net.Socket }[] = [];
  const handed: { ticket: string; socket: net.Socket }[] = [];
  const handlers = () => portHandlers(dir);
  const ctx = {} as OpContext;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'toolgate-ports-handover-'));
    await mkdir(path.join(dir, 'r1'));
    app = net.createServer((socket) => socket.on('data', (data) => socket.write(`app:${data}`)));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    port = (app.address() as net.AddressInfo).port;
    relayServer = net.createServer((socket) =>
      socket.once('data', (data) => relayed.push({ line: data.toString().split('\n')[0], socket })),
    );
    await new Promise<void>((resolve) => relayServer.listen(path.join(dir, 'r1', 'ingress.sock'), resolve));
    receiver = await startFdReceiver(
      path.join(dir, 'r1', 'ingress-fd.sock'),
      (ticket, socket) => handed.push({ ticket, socket }),
      () => undefined,
    );
  });
  afterAll(async () => {
    receiver?.close();
    for (const { socket } of [...relayed, ...handed]) socket.destroy();
    relayServer.close();
    app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const talk = async (socket: net.Socket, text: string) => {
    const answer = new Promise<string>((resolve) => socket.once('data', (data) => resolve(String(data))));
    socket.write(text);
    return answer;
  };

  it('hands the connected socket over when offered the receiver, and relays nothing', async () => {
    const ticket = 'handover-ticket-00000001';
    const { result } = await handlers().connectPort(
      { port, ticket, socket: 'r1/ingress.sock', fdSocket: 'r1/ingress-fd.sock' },
      Buffer.alloc(0),
      ctx,
    );
    expect(result).toEqual({ address: '127.0.0.1', handedOver: true });
    await expect.poll(() => handed.length).toBe(1);
    expect(handed[0].ticket).toBe(ticket);
    expect(await talk(handed[0].socket, 'hi')).toBe('app:hi');
    expect(relayed).toHaveLength(0);
  });

  it('relays through the ingress socket when not offered the receiver', async () => {
    const ticket = 'relayed-ticket-000000002';
    const { result } = await handlers().connectPort(
      { port, ticket, socket: 'r1/ingress.sock' },
      Buffer.alloc(0),
      ctx,
    );
    expect(result).toEqual({ address: '127.0.0.1' });
    await expect.poll(() => relayed.length).toBe(1);
    expect(relayed[0].line).toBe(ticket);
    expect(await talk(relayed[0].socket, 'there')).toBe('app:there');
  });

  it('falls back to relaying when the receiver does not answer, and says when nothing listens', async () => {
    const ticket = 'fallback-ticket-00000003';
    const { result } = await handlers().connectPort(
      { port, ticket, socket: 'r1/ingress.sock', fdSocket: 'r2/ingress-fd.sock' },
      Buffer.alloc(0),
      ctx,
    );
    expect(result).toEqual({ address: '127.0.0.1' });
    await expect.poll(() => relayed.length).toBe(2);
    expect(relayed[1].line).toBe(ticket);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as net.AddressInfo).port;
    closed.close();
    await expect(
      handlers().connectPort(
        {
          port: freePort,
          ticket: 'nobody-ticket-0000000004',
          socket: 'r1/ingress.sock',
          fdSocket: 'r1/ingress-fd.sock',
        },
        Buffer.alloc(0),
        ctx,
      ),
    ).rejects.toMatchObject({ code: 'PORT_NOT_LISTENING' });
  });
});
