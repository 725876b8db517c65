// A byte forwarder that moves data between two sockets with the kernel's splice(2) (socket → pipe →
// socket: the bytes never enter a process's memory), for the egress path's bulk transfers. Node has no
// splice, and copying through JavaScript costs about 1.3 ms of CPU per MB and hop on this kind of
// machine (docs/performance.md, egress). The forwarder is a short Python program (os.splice, Python
// 3.10+, which Debian's python3 has), run with `python3 -c`, so it ships inside the runtime's bundle
// like everything else. It decides nothing: the egress proxy decides, connects and accounts; this only
// carries bytes. Two modes:
// - `relay <unix socket>` (the runtime's relay in the sandbox, src/runtime/inside/egress-relay.ts):
//   listens on 127.0.0.1:<a port of its choosing>, prints the port, and joins each connection to the
//   egress socket, for as long as its stdin (a pipe from the runtime) is open.
// - `pair both|down`: carries one connection, client on fd 3, upstream on fd 4. It is started while
//   the caller still copies, prints `ready`, and touches neither socket before a `go <budget>` line on
//   stdin; then it prints `u <n>` / `d <n>` on stdout for every chunk moved (the proxy counts each
//   against the quota and the audit). A budget of 0 or more (the session's quota left) is the most it
//   moves, both ways together, before it closes both; -1: no quota. `down` carries only the answer
//   (upstream → client) and reads the client only to see it go: a plain-HTTP client's further requests
//   are never forwarded unchecked.
// - `spare`: `pair`, started ahead of need, with the two sockets sent over its IPC channel instead of
//   on fds 3 and 4 (keepSpareForwarder, below, says why); once it has them it is a `pair` forwarder.
// Where no such Python exists (a container image without it), spliceAvailable() is false and callers
// copy in JavaScript as before.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type net from 'node:net';

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
            # No flags: SPLICE_F_MORE held data back and cut throughput to ~190 MB/s here.
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
    # No thread to spare (the sandbox's process limit): the connection is closed.
    if not start(down):
        kill(a, b); end(); end()
    elif not start(up):
        kill(a, b); end()
def stdin_gone():
    try:
        while os.read(0, 4096): pass
    finally:
        os._exit(0)
if sys.argv[1] == 'relay':
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
def pair(mode, client_fd, upstream_fd):
    # Started early: the sockets are the caller's until it says go (and has closed its own handles).
    say('ready\\n')
    line = sys.stdin.readline().split()
    if not line or line[0] != 'go': os._exit(0)
    budget[0] = int(line[1])
    client = socket.socket(fileno=client_fd)
    upstream = socket.socket(fileno=upstream_fd)
    client.setblocking(True); upstream.setblocking(True)
    finished = _thread.allocate_lock()
    finished.acquire()
    join(client, upstream, ('u', 'd'), mode == 'down', finished)
    finished.acquire()
if sys.argv[1] == 'pair':
    pair(sys.argv[2], 3, 4)
# Started ahead of need; its two sockets come over Node's IPC channel, one handle message each (Node
# sends the second only once the first is acknowledged), named client and upstream, with the mode.
if sys.argv[1] == 'spare':
    chan = socket.socket(fileno=int(os.environ['NODE_CHANNEL_FD']))
    chan.setblocking(True)
    got, mode, pending = {}, 'both', b''
    while len(got) < 2:
        data, fds, _, _ = socket.recv_fds(chan, 4096, 2)
        if not data: os._exit(0)
        pending += data
        lines = pending.split(b'\\n')
        pending = lines.pop()
        for line in lines:
            if b'"NODE_HANDLE"' not in line: continue
            if not fds: os._exit(1)
            role = b'client' if b'"role":"client"' in line else b'upstream'
            got[role] = fds.pop(0)
            if b'"mode":"down"' in line: mode = 'down'
            chan.sendall(b'{"cmd":"NODE_HANDLE_ACK"}\\n')
    def channel_gone():
        try:
            while chan.recv(4096): pass
        except OSError: pass
    start(channel_gone)
    # Shown as a started forwarder is: its sockets on 3 and 4, its mode as its name.
    import fcntl
    high = [fcntl.fcntl(got[r], fcntl.F_DUPFD, 10) for r in (b'client', b'upstream')]
    for fd in got.values(): os.close(fd)
    os.dup2(high[0], 3); os.dup2(high[1], 4)
    for fd in high: os.close(fd)
    try:
        with open('/proc/self/comm', 'w') as comm: comm.write('pair ' + mode)
    except OSError: pass
    pair(mode, 3, 4)
`;

/** The python3 every helper of ours runs under (the sandbox's and the host's: Debian's path). */
export const PYTHON = '/usr/bin/python3';
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

// A forwarder started ahead of need: a process start (a fork of this large process, then Python's own
// start) is tens of milliseconds of CPU on the critical path of each large body otherwise, and the body
// is copied in JavaScript meanwhile; a preview's 50 MB download spent a third of its time there. The
// spare waits with its IPC channel (this process's own child: nothing else speaks on it) for the two
// sockets, sent as Node's raw handles ('net.Native': no server bookkeeping, and Node keeps its own
// handles, closed as before once the forwarder is ready). Only processes that ask keep one (the service).
let sparing = false;
let spare: ChildProcess | undefined;

/** From now on this process keeps one forwarder started ahead for the next hand-off. */
export function keepSpareForwarder(): void {
  sparing = true;
  void probeSplice().then((available) => available && startSpare());
}

function startSpare(): void {
  if (spare || !found) return;
  let child: ChildProcess;
  try {
    child = spawn(PYTHON, ['-I', '-S', '-c', SPLICE_SCRIPT, 'spare'], {
      stdio: ['pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ipc'],
    });
  } catch {
    return;
  }
  spare = child;
  const lost = () => spare === child && (spare = undefined);
  child.once('error', lost);
  child.once('exit', lost);
  child.stdin!.on('error', () => undefined);
  // Waiting, it must not keep this process alive (taken, it is referenced again: see handTo).
  child.unref();
  child.channel?.unref();
  (child.stdin as net.Socket).unref();
  (child.stdout as net.Socket).unref();
}

function takeSpare(): ChildProcess | undefined {
  const child = spare;
  spare = undefined;
  return child && child.connected && child.exitCode === null ? child : undefined;
}

/** Node's handle of a socket (a TCP or Pipe wrap), as child_process sends it. */
const handleOf = (socket: net.Socket) =>
  (socket as unknown as { _handle?: object | null })._handle ?? undefined;

/** Sends the two sockets to a spare forwarder; undefined when there is none (or a socket has no handle). */
function handTo(
  child: ChildProcess | undefined,
  client: net.Socket,
  upstream: net.Socket,
  mode: 'both' | 'down',
): ChildProcess | undefined {
  const clientHandle = handleOf(client);
  const upstreamHandle = handleOf(upstream);
  if (!child || !clientHandle || !upstreamHandle) {
    child?.kill('SIGKILL');
    return undefined;
  }
  child.ref();
  (child.stdout as net.Socket).ref();
  child.on('error', () => undefined);
  const send = child.send.bind(child) as (
    message: object,
    handle: object,
    options: object,
    done: (err: Error | null) => void,
  ) => boolean;
  const failed = (err: Error | null) => err && child.kill('SIGKILL');
  send({ role: 'client', mode }, clientHandle, { keepOpen: true }, failed);
  send({ role: 'upstream', mode }, upstreamHandle, { keepOpen: true }, failed);
  return child;
}

/** Node's internals a socket is stopped with: pause() alone keeps reading until its buffer is full. */
interface Internals {
  _handle?: { readStop?: () => number } | null;
  _read: (size: number) => void;
}

/** Stops a socket's reads at once and for good (it is handed off; Node must not read it again). */
function stopReading(socket: net.Socket): void {
  socket.pause();
  const internal = socket as unknown as Internals;
  internal._read = () => undefined;
  internal._handle?.readStop?.();
}

/** Resolves once everything written to `socket` so far is out ('drain' comes only after a full buffer). */
const flushed = (socket: net.Socket) =>
  new Promise((resolve) => (socket.writableLength === 0 ? resolve(undefined) : socket.write('', resolve)));

export interface Handoff {
  /** True once the forwarder carries the bytes: the caller's own copy must then ignore both sockets. */
  readonly taken: boolean;
  /** Kills the forwarder (the quota, the session's end): once taken, the connection closes with it. */
  kill(): void;
}

/**
 * Hands `client` and `upstream` to a forwarder. `both`: a tunnel, both ways; `down`: only the answer
 * (a plain-HTTP request already forwarded). The forwarder is started at once with duplicates of both
 * sockets but touches them only when told to: until it says it is ready (a process start, tens of ms on
 * a busy machine) the caller's copy goes on, so the start costs no stall. Then Node stops reading, what
 * it has read is forwarded and written first, its handles are closed and the forwarder goes, with the
 * session's quota left (`hooks.allowance`). Every chunk it moves is shown to `hooks.count`;
 * `hooks.ended` is called once when a forwarder that took over is gone. A connection that ends before the forwarder is ready just kills it.
 */
export interface HandoffHooks {
  /** Bytes the forwarder moved one way; false when the connection is past its quota (it is then being closed). */
  count(direction: 'up' | 'down', bytes: number): boolean;
  /** Bytes about to be written one way by the caller: how many of them the quota lets through. */
  take(direction: 'up' | 'down', bytes: number): number;
  /** The quota left when the forwarder goes; undefined: none. */
  allowance(): number | undefined;
  /** The forwarder that took over is gone (with why, if it failed). */
  ended(failure?: string): void;
}

export function handOff(
  client: net.Socket,
  upstream: net.Socket,
  mode: 'both' | 'down',
  hooks: HandoffHooks,
): Handoff {
  const connection = hooks;
  let taken = false;
  let killed = false;
  let done = false;
  const end = (failure?: string) => {
    if (done) return;
    done = true;
    hooks.ended(failure);
  };
  let child: ChildProcess;
  try {
    child =
      handTo(takeSpare(), client, upstream, mode) ??
      spawnSplicer(['pair', mode], ['pipe', 'pipe', 'ignore', client, upstream]);
  } catch {
    // No forwarder: the copy simply goes on.
    return { taken: false, kill: () => undefined };
  }
  // The next spare is started once this forwarder is gone: a start is a fork of this process, which
  // blocks its loop (tens of ms for a large one), and here it would delay this hand-off's own sockets.
  if (sparing) child.once('close', startSpare);
  const kill = () => {
    killed = true;
    child.kill('SIGKILL');
  };
  child.stdin!.on('error', () => undefined);
  child.once('error', () => (taken ? end('splice forwarder failed') : undefined));
  child.once('close', () => (taken ? end() : undefined));
  // Until it takes over, the copy owns the connection: its end is the forwarder's end too.
  const closed = () => !taken && kill();
  client.once('close', closed);
  upstream.once('close', closed);
  let pending = '';
  child.stdout!.on('data', (data: Buffer) => {
    pending += data.toString('latin1');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') take();
      else if (!connection.count(line[0] === 'u' ? 'up' : 'down', Number(line.slice(2)))) return;
    }
  });
  const take = () => {
    const open = (socket: net.Socket) => !socket.destroyed && !socket.readableEnded && socket.writable;
    if (killed || !open(client) || !open(upstream)) return kill();
    taken = true;
    const readers = mode === 'both' ? [client, upstream] : [upstream];
    for (const socket of readers) stopReading(socket);
    // Bytes Node read before it stopped: forwarded now, in order, ahead of the forwarder's.
    for (const [from, to, direction] of [
      [upstream, client, 'down'],
      [client, upstream, 'up'],
    ] as const) {
      if (!readers.includes(from)) continue;
      for (let chunk: Buffer | null; (chunk = from.read() as Buffer | null) !== null;) {
        const granted = connection.take(direction, chunk.length);
        if (granted > 0) to.write(granted === chunk.length ? chunk : chunk.subarray(0, granted));
      }
    }
    const noop = () => undefined;
    client.on('error', noop);
    upstream.on('error', noop);
    void Promise.all([flushed(client), flushed(upstream)]).then(() => {
      const broken = client.destroyed || upstream.destroyed;
      // The forwarder holds its own duplicates: closing ours does not close the connection.
      client.destroy();
      upstream.destroy();
      if (killed || broken) {
        kill();
        return end(killed ? undefined : 'closed while being handed off');
      }
      // The quota left now: a lone connection stops at the quota's last byte, as the copy does. Several
      // at once each stop within a chunk of it: the proxy kills them all as it counts.
      child.stdin!.end(`go ${hooks.allowance() ?? -1}\n`);
    });
  };
  return {
    get taken() {
      return taken;
    },
    kill,
  };
}
