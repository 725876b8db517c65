// The runtime's side of previews: the ports its processes listen on (read from /proc/net/tcp and tcp6,
// so of this network namespace only) and connections to them, carried out of the sandbox the way the
// egress relay carries connections in (in reverse): the service asks for one over the protocol with a
// one-time ticket; the runtime connects to the port on its own loopback, then dials the service's
// ingress socket (the only host socket it may reach) and names the ticket. Nothing on the host connects
// into the sandbox: the sandbox always dials out.
import { promises as fs } from 'node:fs';
import net from 'node:net';
import { toolgateError } from '../../lib/errors.js';
import type { ListeningPort, PortOps } from '../ops/ports.js';
import { joinSockets, WIDE } from './egress-relay.js';
import { reply, type Handlers } from './handler.js';
import { portPasser } from './port-passer.js';

/** TCP_LISTEN in /proc/net/tcp's `st` column. */
const LISTEN = '0A';

/** "0100007F" (IPv4, each 32-bit word little-endian) or 32 hex digits (IPv6) → an address. */
function decodeAddress(hex: string): { address: string; family: 4 | 6 } {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)));
  if (bytes.length === 4) return { address: bytes.join('.'), family: 4 };
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  // The URL parser writes an IPv6 address in its shortest form.
  return { address: new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1), family: 6 };
}

async function listening(
  file: string,
): Promise<{ port: number; address: string; family: 4 | 6; inode: string }[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const found = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== LISTEN) continue;
    const [hexAddress, hexPort] = fields[1].split(':');
    found.push({ ...decodeAddress(hexAddress), port: parseInt(hexPort, 16), inode: fields[9] });
  }
  return found;
}

/** Socket inode → the processes holding it, from every /proc/<pid>/fd this runtime may read. */
async function socketOwners(): Promise<Map<string, { pid: number; command: string }[]>> {
  const owners = new Map<string, { pid: number; command: string }[]>();
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  await Promise.all(
    pids.map(async (pid) => {
      const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      const inodes = new Set<string>();
      for (const fd of fds) {
        const target = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match) inodes.add(match[1]);
      }
      if (inodes.size === 0) return;
      const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      const command = cmdline.split('\0').filter(Boolean).join(' ').slice(0, 300);
      for (const inode of inodes) {
        const list = owners.get(inode) ?? [];
        list.push({ pid: Number(pid), command });
        owners.set(inode, list);
      }
    }),
  );
  return owners;
}

const notListening = (port: number) =>
  toolgateError('PORT_NOT_LISTENING', `Nothing in the session listens on port ${port}`, {
    suggestion:
      'Start the server first (run_command with background: true) and check list_ports; it must listen on 127.0.0.1, ::1, 0.0.0.0 or ::.',
    details: { port },
  });

/** Connects to the port on loopback: IPv4 first, then IPv6 (a dev server bound to "localhost" may be ::1 only). */
function connectLocal(port: number): Promise<{ socket: net.Socket; address: string }> {
  const attempt = (host: string) =>
    new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect({ host, port, allowHalfOpen: true, noDelay: true, ...WIDE });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  return attempt('127.0.0.1').then(
    (socket) => ({ socket, address: '127.0.0.1' }),
    () =>
      attempt('::1').then(
        (socket) => ({ socket, address: '::1' }),
        () => {
          throw notListening(port);
        },
      ),
  );
}

function dialIngress(socketPath: string, ticket: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path: socketPath, allowHalfOpen: true, ...WIDE });
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.write(`${ticket}\n`);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** A replica's socket in the ingress directory: `<replica>/ingress.sock`, never a path out of it. */
const SOCKET_IN_DIR = /^[A-Za-z0-9_-]{1,64}\/ingress\.sock$/;
/** Its socket receiver: `<replica>/ingress-fd.sock`. */
const FD_SOCKET_IN_DIR = /^[A-Za-z0-9_-]{1,64}\/ingress-fd\.sock$/;
/** A ticket as the service makes them (base64url); it goes on the passer's command line. */
const TICKET = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * `ingressDir`: where the directory of the service's ingress sockets is seen here (unset: this runtime
 * has no previews). Each replica listens on its own socket in it, and names it with each connection: a
 * runtime that another replica took over dials the new owner's.
 */
export function portHandlers(ingressDir: string | undefined): Handlers<PortOps> {
  return {
    async listPorts() {
      const [v4, v6, owners] = await Promise.all([
        listening('/proc/net/tcp'),
        listening('/proc/net/tcp6'),
        socketOwners(),
      ]);
      const ports: ListeningPort[] = [...v4, ...v6]
        .map(({ inode, ...port }) => ({ ...port, processes: owners.get(inode) ?? [] }))
        .sort((a, b) => a.port - b.port || a.family - b.family);
      return reply({ ports });
    },
    async connectPort({ port, ticket, socket, fdSocket }) {
      if (ingressDir === undefined) {
        throw toolgateError('PREVIEW_NOT_ALLOWED', "This session's runtime was started without previews", {
          suggestion:
            'Its profile must allow previews (profile `preview.expose`); restart the session runtime.',
        });
      }
      if (!SOCKET_IN_DIR.test(socket)) {
        throw toolgateError('BAD_REQUEST', `Not an ingress socket name: ${JSON.stringify(socket)}`);
      }
      if (fdSocket !== undefined && FD_SOCKET_IN_DIR.test(fdSocket) && TICKET.test(ticket)) {
        // Handed over as a socket where this sandbox can (src/preview/fd-receiver.ts); else relayed.
        const passer = await portPasser();
        const result = await passer?.pass(port, ticket, `${ingressDir}/${fdSocket}`);
        if (result?.passed) return reply({ address: result.address, handedOver: true });
        if (result && !result.listening) throw notListening(port);
      }
      const local = await connectLocal(port);
      try {
        const ingress = await dialIngress(`${ingressDir}/${socket}`, ticket);
        joinSockets(ingress, local.socket, false);
      } catch (err) {
        local.socket.destroy();
        throw err;
      }
      return reply({ address: local.address });
    },
  };
}
