// The spare splice forwarder (src/network/splice-forwarder.ts, keepSpareForwarder): a process that keeps
// one started ahead hands its next connection to it over the IPC channel instead of starting one, every
// byte still arrives in order both ways, and once that forwarder is gone the next spare is started.
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { handOff, keepSpareForwarder, probeSplice } from '../../src/network/splice-forwarder.js';

const spliceable = await probeSplice();
if (!spliceable) console.log('test/network/splice-spare skipped: no /usr/bin/python3 with os.splice');

/** Pids of this process's children that run the splice script as a spare. */
function spares(): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('spare')) found.push(Number(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Two connected TCP socket pairs on loopback: [client's far end, client, upstream, upstream's far end]. */
async function pairs(): Promise<net.Socket[]> {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const a = net.connect(port, '127.0.0.1');
  const b = net.connect(port, '127.0.0.1');
  await Promise.all([a, b].map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  await expect.poll(() => accepted.length).toBe(2);
  server.close();
  return [a, accepted[0], accepted[1], b];
}

const received = (socket: net.Socket, bytes: number) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    let got = 0;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= bytes) resolve(Buffer.concat(chunks));
    });
  });

describe.skipIf(!spliceable)('the spare splice forwarder', () => {
  const open: net.Socket[] = [];
  afterAll(() => {
    for (const socket of open) socket.destroy();
  });

  it('carries the next connection both ways, then is replaced by a new spare', async () => {
    keepSpareForwarder();
    await expect.poll(spares, { timeout: 10_000 }).toHaveLength(1);
    const [spare] = spares();
    const [clientFar, client, upstream, upstreamFar] = await pairs();
    open.push(clientFar, client, upstream, upstreamFar);
    let ended = false;
    const handoff = handOff(client, upstream, 'both', {
      count: () => true,
      take: (_direction, bytes) => bytes,
      allowance: () => undefined,
      ended: () => (ended = true),
    });
    await expect.poll(() => handoff.taken, { timeout: 10_000 }).toBe(true);
    const down = Buffer.alloc(3 * 1024 * 1024 + 17, 'd');
    const up = Buffer.alloc(1024 * 1024 + 5, 'u');
    const atClient = received(clientFar, down.length);
    const atUpstream = received(upstreamFar, up.length);
    upstreamFar.write(down);
    clientFar.write(up);
    expect((await atClient).equals(down)).toBe(true);
    expect((await atUpstream).equals(up)).toBe(true);
    // Carried by the spare that waited: no other forwarder was started for it.
    expect(spares()).toEqual([spare]);
    clientFar.end();
    upstreamFar.end();
    await expect.poll(() => ended, { timeout: 10_000 }).toBe(true);
    await expect.poll(spares, { timeout: 10_000 }).toHaveLength(1);
    expect(spares()[0]).not.toBe(spare);
  });
});
