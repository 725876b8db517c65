// A byte forwarder that moves data between two sockets with the kernel's splice(2) (socket → pipe →
// socket: the bytes never enter a process's memory), for the egress path's bulk transfers. Node has no
// splice, and copying through JavaScript costs about 1.3 ms of CPU per MB and hop on this kind of
// machine (docs/performance.md, egress). The forwarder is a short Python program (os.splice, Python
// 3.10+, which Debian's python3 has), run with `python3 -c`, so it ships inside the runtime's bundle
// like everything else. It decides nothing: the egress proxy decides, connects and accounts; this only
// carries bytes. Two uses:
// - `relay <unix socket>` (inside the sandbox): listens on 127.0.0.1:<port of its choosing>, prints the
//   port, and joins each connection to the egress socket (the runtime's relay, src/runtime/inside).
// - `pair both|down` (the service): carries one already decided connection, client on fd 3, upstream
//   on fd 4. It prints `ready` once started and touches neither socket before a `go <budget>` line on
//   stdin; then it prints `u <n>` / `d <n>` on stdout for every chunk moved, so the proxy still counts
//   every byte against the quota and the audit. A budget of 0 or more (the session's quota left) is
//   the most it moves, both ways together, before it closes both; -1: no quota. `down` carries only the answer (upstream → client) and reads
//   the client only to see it go: a plain-HTTP client's further requests are never forwarded unchecked.
// Where no such Python exists (a container image without it), `available` is false and callers copy
// in JavaScript as before.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

/** Bytes per splice call: larger moves little more, smaller costs syscalls (measured 256 KiB ≈ 1 MiB). */
const CHUNK = 256 * 1024;

export const SPLICE_SCRIPT = `
import _thread, os, socket, sys
CHUNK = ${CHUNK}
_thread.stack_size(256 * 1024)
lock = _thread.allocate_lock()
def say(text):
    with lock:
        os.write(1, text.encode())
def kill(*socks):
    for s in socks:
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
budget = [-1]
def take():
    with lock:
        if budget[0] < 0: return CHUNK
        grant = min(CHUNK, budget[0])
        budget[0] -= grant
        return grant
def give(unused):
    with lock:
        if budget[0] >= 0: budget[0] += unused
def pump(src, dst, tag):
    r, w = os.pipe()
    try:
        import fcntl
        fcntl.fcntl(w, 1031, 1 << 20)
    except OSError: pass
    try:
        while True:
            grant = take()
            if grant == 0:
                kill(src, dst)
                break
            got = os.splice(src.fileno(), w, grant)
            give(grant - got)
            if got == 0: break
            left = got
            while left: left -= os.splice(r, dst.fileno(), left)
            if tag: say('%s %d\\n' % (tag, got))
        try: dst.shutdown(socket.SHUT_WR)
        except OSError: pass
    except OSError:
        kill(src, dst)
    finally:
        os.close(r); os.close(w)
def watch(client, upstream):
    try:
        while client.recv(65536): pass
    except OSError: pass
    kill(client, upstream)
def start(fn):
    try:
        _thread.start_new_thread(fn, ())
        return True
    except RuntimeError:
        return False
# Each direction on a thread of its own, started without waiting for it (a thread's start handshake is
# two more wake-ups per connection, which a loaded machine makes milliseconds); the last to end closes.
def join(a, b, tags, down_only=False, finished=None):
    left = [2]
    def end():
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            a.close(); b.close()
            if finished: finished.release()
    def down():
        pump(b, a, tags[1])
        # An answer carried alone ends the connection when it ends, as the proxy's own copy does.
        if down_only: kill(a, b)
        end()
    def up():
        if down_only: watch(a, b)
        else: pump(a, b, tags[0])
        end()
    # No thread to spare (the sandbox's process limit): this connection is closed, not the relay.
    if not start(down):
        kill(a, b); end(); end()
    elif not start(up):
        kill(a, b); end()
def stdin_gone():
    try:
        while os.read(0, 4096): pass
    finally:
        os._exit(0)
mode = sys.argv[1]
if mode == 'relay':
    start(stdin_gone)
    path = sys.argv[2]
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(('127.0.0.1', 0))
    server.listen(128)
    say('%d\\n' % server.getsockname()[1])
    while True:
        client, _ = server.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try: upstream.connect(path)
        except OSError:
            client.close(); upstream.close(); continue
        join(client, upstream, (None, None))
else:
    # Started early: the sockets are the proxy's until it says go (and has closed its own handles).
    say('ready\\n')
    line = sys.stdin.readline().split()
    if not line or line[0] != 'go': os._exit(0)
    budget[0] = int(line[1])
    client = socket.socket(fileno=3)
    upstream = socket.socket(fileno=4)
    client.setblocking(True); upstream.setblocking(True)
    finished = _thread.allocate_lock()
    finished.acquire()
    join(client, upstream, ('u', 'd'), sys.argv[2] == 'down', finished)
    finished.acquire()
`;

const PYTHON = '/usr/bin/python3';
let found: boolean | undefined;
let probing: Promise<boolean> | undefined;

/** Whether this machine's python3 has os.splice (probed once, in the background: a child start). */
export function probeSplice(): Promise<boolean> {
  probing ??= new Promise((resolve) => {
    const probe = spawn(PYTHON, ['-I', '-S', '-c', 'import os; os.splice'], { stdio: 'ignore' });
    probe.once('error', () => resolve((found = false)));
    probe.once('exit', (code) => resolve((found = code === 0)));
  });
  return probing;
}

/** What the probe found; false until it has answered (the probe is started if it was not). */
export function spliceAvailable(): boolean {
  if (found === undefined) void probeSplice();
  return found ?? false;
}

/** Starts the forwarder in `mode` (see the header) with the given stdio. */
export function spawnSplicer(args: readonly string[], stdio: StdioOptions): ChildProcess {
  return spawn(PYTHON, ['-I', '-S', '-c', SPLICE_SCRIPT, ...args], { stdio });
}
