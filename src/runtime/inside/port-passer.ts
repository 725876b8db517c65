// The runtime's side of handing a preview connection over as a socket (src/preview/fd-receiver.ts says
// why): a Python helper, started at the first such connection and kept for the runtime's lifetime, that
// connects to the port on this namespace's loopback and sends the connected socket, with the ticket
// line, over the service's receiver socket (SCM_RIGHTS); then it closes its own copy. The bytes never
// pass through the runtime. Node cannot send a descriptor on a socket of its own, hence Python, which
// the splice forwarder already needs here. One line per request on its stdin (`<id> <port> <ticket>
// <path>`), one answer per request on its stdout (`<id> ok <address>`, `<id> none`: nothing listens,
// `<id> fail <errno>`: the hand-over failed, the caller relays instead).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { PYTHON } from '../../network/splice-forwarder.js';

export const PORT_PASSER_SCRIPT = `
import _thread, os, socket, sys
lock = _thread.allocate_lock()
def say(text):
    with lock:
        os.write(1, text.encode())
def connect(port):
    for family, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect((host, port))
            return s, host
        except OSError:
            s.close()
    return None, None
def serve(rid, port, ticket, path):
    s, host = connect(port)
    if s is None:
        return say('%s none\\n' % rid)
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            u.settimeout(5)
            u.connect(path)
            socket.send_fds(u, [(ticket + '\\n').encode()], [s.fileno()])
        finally:
            u.close()
        say('%s ok %s\\n' % (rid, host))
    except OSError as e:
        say('%s fail %d\\n' % (rid, e.errno or 0))
    finally:
        s.close()
for line in sys.stdin:
    rid, port, ticket, path = line.rstrip('\\n').split(' ', 3)
    try:
        _thread.start_new_thread(serve, (rid, int(port), ticket, path))
    except RuntimeError:
        say('%s fail 11\\n' % rid)
`;

/** What became of one request: handed over (the address connected), nothing listening, or failed. */
export type PassResult = { passed: true; address: string } | { passed: false; listening: boolean };

export interface PortPasser {
  pass(port: number, ticket: string, socketPath: string): Promise<PassResult>;
}

/** The helper, started on first use; undefined (for good) where it cannot run. */
let started: Promise<PortPasser | undefined> | undefined;

export function portPasser(): Promise<PortPasser | undefined> {
  started ??= startPasser();
  return started;
}

function startPasser(): Promise<PortPasser | undefined> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(PYTHON, ['-I', '-S', '-c', PORT_PASSER_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      return resolve(undefined);
    }
    const waiting = new Map<string, (result: PassResult) => void>();
    let next = 0;
    let alive = true;
    const gone = () => {
      alive = false;
      // A helper that ran and stopped is started again at the next request; one that could not start
      // (no python3 here) is not tried again: every connection is relayed.
      if (child.pid !== undefined) started = undefined;
      for (const settle of waiting.values()) settle({ passed: false, listening: true });
      waiting.clear();
    };
    child.once('error', () => {
      gone();
      resolve(undefined);
    });
    child.once('exit', gone);
    (child.stdin as Writable).on('error', () => undefined);
    let pending = '';
    (child.stdout as Readable).on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [id, outcome, detail] = line.split(' ');
        const settle = waiting.get(id);
        waiting.delete(id);
        if (outcome === 'ok') settle?.({ passed: true, address: detail });
        else settle?.({ passed: false, listening: outcome !== 'none' });
      }
    });
    // Never waited for: it must not keep the runtime alive, and it dies with it (its stdin closes).
    child.unref();
    (child.stdout as unknown as { unref(): void }).unref();
    (child.stdin as unknown as { unref(): void }).unref();
    child.once('spawn', () =>
      resolve({
        pass(port, ticket, socketPath) {
          if (!alive) return Promise.resolve({ passed: false, listening: true });
          const id = String(next++);
          return new Promise((settle) => {
            waiting.set(id, settle);
            (child.stdin as Writable).write(`${id} ${port} ${ticket} ${socketPath}\n`);
          });
        },
      }),
    );
  });
}
