// Runs toolgate as a real child process (`node --import tsx src/server.ts`), the way the shutdown and
// crash tests need it: signals, kill -9 and restarts act on a separate process, not on the test runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHILD_ADMIN_KEY = 'tga_child_admin_key_0123456789';

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  /** Every log line the child printed so far. */
  logs: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  admin(pathname: string, init?: RequestInit): Promise<Response>;
}

export interface ChildOptions {
  dataDir: string;
  env?: Record<string, string>;
  /** Command and arguments; default runs the TypeScript source with tsx. */
  command?: string[];
  cwd?: string;
  /** The port to listen on (replicas need theirs before they start: it is in their own URL). */
  port?: number;
}

/** A port that was free a moment ago (the kernel picks it; the child binds it right after). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts the server on a free loopback port and resolves once it is listening. */
export async function startChildServer(options: ChildOptions): Promise<ChildServer> {
  const [command, ...args] = options.command ?? [process.execPath, '--import', 'tsx', 'src/server.ts'];
  const port = options.port ?? (await freePort());
  const proc = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      TOOLGATE_DATA_DIR: options.dataDir,
      TOOLGATE_API_KEY: CHILD_ADMIN_KEY,
      TOOLGATE_SANDBOX: 'none',
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const collect = (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  proc.stdout!.on('data', collect);
  proc.stderr!.on('data', collect);
  // Poll /healthz rather than parse the log: it works at any LOG_LEVEL.
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(
        `server exited (${proc.exitCode ?? proc.signalCode}) before listening:\n${logs.join('\n')}`,
      );
    }
    const up = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not start:\n${logs.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    proc,
    url,
    logs,
    exited,
    admin: (pathname, init = {}) =>
      fetch(`${url}${pathname}`, {
        ...init,
        headers: {
          authorization: `Bearer ${CHILD_ADMIN_KEY}`,
          'content-type': 'application/json',
          ...init.headers,
        },
      }),
  };
}

/** Creates a session through the HTTP API and returns a caller for its tools. */
export async function childSession(server: ChildServer, body: Record<string, unknown>) {
  const res = await server.admin('/v1/sessions', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
  const session = (await res.json()) as { id: string; token: string };
  return { ...session, call: (tool: string, input: unknown) => callTool(server.url, session, tool, input) };
}

/** One tool call with a session token (also against a restarted server on another port). */
export const callTool = (
  url: string,
  session: { id: string; token: string },
  tool: string,
  input: unknown,
): Promise<Response> =>
  fetch(`${url}/v1/sessions/${session.id}/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });

/** Resolves when `check` returns true, polling every 20 ms; rejects after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
