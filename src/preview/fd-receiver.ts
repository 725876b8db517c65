// The second way a session's connection reaches the service: the runtime hands over the connected
// socket itself (SCM_RIGHTS over a Unix socket in the ingress directory) instead of relaying its bytes.
// The service then talks to the app's socket directly and a large answer is spliced from it straight to
// the browser (src/preview/body-splice.ts): no runtime process, no Unix socket and no second splice in
// the way of every byte. A download through the relay ran at a third of the direct speed on two cores.
//
// Node cannot receive a descriptor on a socket of its own; it can only through a child's IPC channel.
// A runtime's IPC peer would be a risk: Node buffers the channel's JSON without a bound, and a
// compromised runtime could fill the service's memory. So the runtime never talks to Node: this
// receiver, a small Python program that is the service's own child, listens on the socket, reads each
// connection's ticket line and descriptor with a bounded read (80 bytes, one descriptor, 2 s), accepts
// only a connected TCP socket whose peer is a loopback address (the session's own server, as the
// runtime connected it in its namespace) and passes that one descriptor to Node over its IPC channel,
// as a `net.Socket` handle in Node's own handle protocol (what `process.send(message, socket)` writes).
// Anything else is closed. The ticket is checked by the Ingress as for a relayed connection. Nothing on
// the host connects into the sandbox: the sandbox dials out, as before; only the socket changes hands.
// Where python3 is missing, or the receiver stops, the runtime is not offered this socket and relays.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { PYTHON } from '../network/splice-forwarder.js';

/** Connections the receiver reads at once; more wait in the listen backlog. */
const READERS = 64;

export const FD_RECEIVER_SCRIPT = `
import _thread, array, ipaddress, os, re, socket, stat, sys
chan = socket.socket(fileno=int(os.environ['NODE_CHANNEL_FD']))
chan.setblocking(True)
lock = _thread.allocate_lock()
readers = [${READERS}]
TICKET = re.compile(rb'[A-Za-z0-9_-]{16,64}\\n')
def drain():
    # Node's acknowledgements: read and dropped. Node gone: so is this.
    try:
        while chan.recv(65536): pass
    finally:
        os._exit(0)
def stdin_gone():
    try:
        while os.read(0, 4096): pass
    finally:
        os._exit(0)
def acceptable(fd):
    if not stat.S_ISSOCK(os.fstat(fd).st_mode): return False
    s = socket.socket(fileno=fd)
    try:
        if s.type != socket.SOCK_STREAM or s.family not in (socket.AF_INET, socket.AF_INET6): return False
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL) != socket.IPPROTO_TCP: return False
        return ipaddress.ip_address(s.getpeername()[0].split('%')[0]).is_loopback
    finally:
        s.detach()
def read(conn):
    fds = []
    try:
        conn.settimeout(2)
        msg, fds, flags, _ = socket.recv_fds(conn, 80, 1)
        if flags & socket.MSG_CTRUNC or len(fds) != 1 or not TICKET.fullmatch(msg): return
        if not acceptable(fds[0]): return
        os.set_blocking(fds[0], False)
        line = b'{"cmd":"NODE_HANDLE","type":"net.Socket","msg":{"ticket":"%s"}}\\n' % msg[:-1]
        with lock:
            chan.sendmsg([line], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', fds))])
    except (OSError, ValueError):
        pass
    finally:
        for fd in fds: os.close(fd)
        conn.close()
        with lock: readers[0] += 1
def main():
    path = sys.argv[1]
    try: os.unlink(path)
    except FileNotFoundError: pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o666)
    server.listen(128)
    _thread.start_new_thread(drain, ())
    _thread.start_new_thread(stdin_gone, ())
    os.write(1, b'ready\\n')
    while True:
        conn, _ = server.accept()
        with lock:
            full = readers[0] == 0
            if not full: readers[0] -= 1
        if full:
            conn.close(); continue
        try:
            _thread.start_new_thread(read, (conn,))
        except RuntimeError:
            conn.close()
            with lock: readers[0] += 1
main()
`;

export interface FdReceiver {
  /** Stops listening (the socket file is the caller's to remove). */
  close(): void;
}

/**
 * Starts the receiver on `socketPath`; `deliver` gets each accepted socket with its ticket. Undefined when
 * it cannot run here (no python3, or it did not come up): the runtimes relay then.
 */
export function startFdReceiver(
  socketPath: string,
  deliver: (ticket: string, socket: net.Socket) => void,
  stopped: () => void,
): Promise<FdReceiver | undefined> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(PYTHON, ['-I', '-S', '-c', FD_RECEIVER_SCRIPT, socketPath], {
        stdio: ['pipe', 'pipe', 'ignore', 'ipc'],
        serialization: 'json',
      });
    } catch {
      return resolve(undefined);
    }
    let ready = false;
    child.once('error', () => (ready ? stopped() : resolve(undefined)));
    child.once('exit', () => (ready ? stopped() : resolve(undefined)));
    child.on('message', (message: unknown, handle: unknown) => {
      const ticket = (message as { ticket?: unknown } | null)?.ticket;
      if (!(handle instanceof net.Socket)) return;
      if (typeof ticket !== 'string') return void handle.destroy();
      // As the relayed connections are: an app that ends its side may still be written to.
      handle.allowHalfOpen = true;
      deliver(ticket, handle);
    });
    child.stdout!.once('data', (chunk: Buffer) => {
      if (chunk.toString() !== 'ready\n') return void child.kill('SIGKILL');
      ready = true;
      // It must not keep the service alive, and it dies with it (its stdin and channel close).
      child.unref();
      (child.stdin as net.Socket).unref();
      (child.stdout as net.Socket).unref();
      child.channel?.unref();
      resolve({ close: () => child.kill('SIGKILL') });
    });
  });
}
