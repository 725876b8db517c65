// The egress path's bulk bytes through the kernel's splice(2): where python3 can splice, the runtime's
// relay is the splice forwarder in relay mode, and the proxy hands a connection past `spliceAfterBytes`
// to a forwarder of its own. What must still hold once the kernel carries the bytes: every byte arrives in
// order, the connection's audit record counts exactly the bytes moved, the quota cuts the session off
// at its last byte and refuses what follows, and a session that goes takes its forwarders with it.
// In one process like proxy-stream.test.ts: a loopback origin, the proxy on a Unix socket, the relay.
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections, type ConnectionRecord } from '../../src/network/connections.js';
import { createProxyServer } from '../../src/network/proxy.js';
import { probeSplice } from '../../src/network/splice-forwarder.js';
import { startEgressRelay, type EgressRelay } from '../../src/runtime/inside/egress-relay.js';

const spliceable = await probeSplice();
if (!spliceable) console.log('test/network/splice skipped: no /usr/bin/python3 with os.splice');

const BYTES = 8 * 1024 * 1024;
const QUOTA = 3 * 1024 * 1024;
const AFTER = 256 * 1024;

/**
 * This process's forwarders (children running the splice script in `pair` mode): their mode, and
 * whether they have taken over. A forwarder starts early and holds duplicates of the sockets; it takes
 * over by making them blocking, which shows in the shared file status flags (O_NONBLOCK gone).
 */
function forwarders(): string[] {
  return children().filter((mode) => mode.startsWith('pair'));
}

/** This process's splice relays (the forwarder in relay mode). */
function relays(): string[] {
  return children().filter((mode) => mode.startsWith('relay'));
}

/** The splice script's arguments in each child of this process, `pair` ones marked when carrying. */
function children(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // After `-c <script>`: the forwarder's mode.
      const args = argv
        .slice(argv.indexOf('-c') + 2)
        .join(' ')
        .trim();
      // A spare forwarder (keepSpareForwarder, which another file of this process may have turned on)
      // names its mode once it has its sockets.
      const mode = args === 'spare' ? readFileSync(`/proc/${pid}/comm`, 'utf8').trim() : args;
      if (!mode.startsWith('pair')) {
        found.push(mode);
        continue;
      }
      const flags = /flags:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/fdinfo/3`, 'utf8'))?.[1];
      found.push(`${mode}${(parseInt(flags ?? '4000', 8) & 0o4000) === 0 ? ' carrying' : ''}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe.skipIf(!spliceable)('egress bytes carried by splice', () => {
  // Made in beforeAll: a skipped describe's body still runs at collection, its hooks do not.
  let dir = '';
  const records: ConnectionRecord[] = [];
  const origin = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': BYTES, connection: 'close' });
    // Not all one byte: a reordered or repeated chunk would show.
    const body = Buffer.alloc(BYTES);
    for (let i = 0; i < BYTES; i += 4) body.writeUInt32BE(i, i);
    res.end(body);
  });
  const sink = (record: ConnectionRecord) => records.push(record);
  // Only the quota session has a quota to reach.
  const connections = {
    tunnel: new Connections(0, sink),
    quota: new Connections(QUOTA, sink),
    forget: new Connections(0, sink),
  };
  let originPort = 0;
  let relayPort = 0;
  let relay: EgressRelay | undefined;
  const servers: http.Server[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolgate-splice-'));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originPort = (origin.address() as net.AddressInfo).port;
    for (const sessionId of ['tunnel', 'quota', 'forget'] as const) {
      const proxy = createProxyServer({
        sessionId,
        decide: () => Promise.resolve({ allowed: true, address: '127.0.0.1', family: 4 }),
        connections: connections[sessionId],
        connectTimeoutMs: 5000,
        spliceAfterBytes: AFTER,
      });
      await new Promise<void>((resolve) => proxy.listen(path.join(dir, `${sessionId}.sock`), resolve));
      servers.push(proxy);
    }
    relay = await startEgressRelay(path.join(dir, 'tunnel.sock'));
    relayPort = relay.port;
    // The relay is the splice forwarder in relay mode, a child of this process.
    expect(relays()).toHaveLength(1);
  });
  afterAll(() => {
    relay?.close();
    for (const proxy of servers) {
      proxy.closeAllConnections();
      proxy.close();
    }
    origin.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Sends `request` on `socket`; resolves with all it receives until the connection closes. */
  const receive = (socket: net.Socket, request: string, onData?: (total: number) => void) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      socket.write(request);
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        total += chunk.length;
        if (!onData) return;
        onData(total);
        // A reader slow enough that the forwarder starts (a process start) long before the end.
        socket.pause();
        setTimeout(() => socket.resume(), 10);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
    });
  const connectTo = (target: string | number) =>
    new Promise<net.Socket>((resolve) => {
      const socket =
        typeof target === 'number' ? net.connect(target, '127.0.0.1') : net.connect({ path: target });
      socket.once('connect', () => resolve(socket));
    });

  it('carries a tunnel through the spliced relay and a handed-off proxy: every byte, in order, counted', async () => {
    const before = records.length;
    const socket = await connectTo(relayPort);
    const request = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\nConnection: close\r\n\r\n`;
    let carried = false;
    socket.write(`CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`);
    await new Promise((resolve) => socket.once('data', resolve));
    const answer = await receive(socket, request, (total) => {
      // Past the hand-off: a forwarder (a child of this process) carries the proxy's side.
      if (!carried && total > 2 * AFTER) carried = forwarders().includes('pair both carrying');
    });
    expect(carried).toBe(true);
    const head = answer.indexOf('\r\n\r\n') + 4;
    const body = answer.subarray(head);
    expect(body.length).toBe(BYTES);
    for (let i = 0; i < BYTES; i += 64 * 1024) expect(body.readUInt32BE(i)).toBe(i);
    await expect.poll(() => records.length).toBe(before + 1);
    expect(records[before]).toMatchObject({ via: 'connect', decision: 'allowed' });
    expect(records[before]!.bytesDown).toBe(answer.length);
    expect(records[before]!.bytesUp).toBe(request.length);
    expect(records[before]!.reason).toBeUndefined();
    await expect.poll(forwarders).toEqual([]);
  });

  it("stops at the quota's last byte once spliced, records why, and refuses the next connection", async () => {
    const socket = await connectTo(path.join(dir, 'quota.sock'));
    let carried = false;
    const answer = await receive(
      socket,
      `GET http://origin.test:${originPort}/ HTTP/1.1\r\nHost: origin.test:${originPort}\r\n\r\n`,
      (total) => {
        if (!carried && total > 2 * AFTER) carried = forwarders().includes('pair down carrying');
      },
    );
    // The forwarder, not the proxy's copy, stopped at the quota.
    expect(carried).toBe(true);
    expect(answer.length).toBeGreaterThan(AFTER);
    expect(answer.length).toBeLessThanOrEqual(QUOTA);
    expect(answer.length).toBeGreaterThan(QUOTA - 512 * 1024);
    await expect.poll(() => records.some((r) => r.sessionId === 'quota')).toBe(true);
    const record = records.find((r) => r.sessionId === 'quota')!;
    expect(record.reason).toContain('egress quota');
    expect(record.bytesDown).toBe(answer.length);
    // Exact once spliced too: the request's head sent up and the answer's bytes down make the quota.
    expect(record.bytesUp).toBeGreaterThan(0);
    expect(record.bytesUp + answer.length).toBe(QUOTA);
    expect(connections.quota.bytesUsed('quota')).toBe(QUOTA);
    const next = await receive(
      await connectTo(path.join(dir, 'quota.sock')),
      `GET http://origin.test:${originPort}/ HTTP/1.1\r\nHost: origin.test:${originPort}\r\nConnection: close\r\n\r\n`,
    );
    expect(next.toString()).toContain('403');
    expect(next.toString()).toContain('egress quota');
  });

  it('a session that goes takes its spliced connections with it', async () => {
    const socket = await connectTo(path.join(dir, 'forget.sock'));
    socket.write(`CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`);
    await new Promise((resolve) => socket.once('data', resolve));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`);
    // Read past the hand-off, then stop reading: the forwarder waits on this client.
    await new Promise<void>((resolve) => {
      let total = 0;
      const reading = (chunk: Buffer) => {
        total += chunk.length;
        if (total < 2 * 1024 * 1024) return;
        socket.pause();
        socket.off('data', reading);
        resolve();
      };
      socket.on('data', reading);
    });
    // Carrying, or (a spare forwarder is ready within a millisecond or two) about to: the bytes Node
    // read before it let go wait for this paused client, and the forwarder is told to go once they
    // are out. Either way the session's end must take it.
    await expect
      .poll(forwarders, { timeout: 5000 })
      .toEqual([expect.stringMatching(/^pair both( carrying)?$/)]);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    connections.forget.forget('forget');
    socket.resume();
    await closed;
    await expect.poll(forwarders, { timeout: 5000 }).toEqual([]);
  });
});
