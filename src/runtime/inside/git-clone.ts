// Cloning a session's source repository, inside a one-shot runtime that has the network (or the local
// repository's directory) for this step only. git runs with a fixed environment: no system or global
// config, no prompts, only the URL's own protocol, no HTTP redirects (so a server cannot send the clone
// to another host), and a time limit. The clone goes to a scratch directory and is moved into the
// workspace root only when complete. Its network is the egress proxy: http(s) through the proxy
// variables, git:// through a CONNECT tunnel that `core.gitProxy` opens.
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../../lib/errors.js';
import type { TransferOps } from '../ops/transfer.js';
import { reply, type Handlers } from './handler.js';

const PROTOCOLS: Record<string, string> = {
  'https:': 'https',
  'http:': 'http',
  'git:': 'git',
  'file:': 'file',
};

const redact = (text: string) => text.replace(/\/\/[^/@\s]+@/g, '//[redacted]@');

/**
 * A `core.gitProxy` program: git runs it with the host and port and speaks the git protocol on its
 * stdin and stdout; it opens a CONNECT tunnel through the sandbox's egress relay.
 */
const gitProxyProgram = (proxyUrl: string) => `#!/bin/sh
exec "${process.execPath}" -e '
const [host, port] = process.argv.slice(1);
const proxy = new URL(${JSON.stringify(proxyUrl)});
const s = require("net").connect(Number(proxy.port), proxy.hostname, () =>
  s.write("CONNECT " + host + ":" + port + " HTTP/1.1\\r\\nHost: " + host + ":" + port + "\\r\\n\\r\\n"));
let head = Buffer.alloc(0);
const onData = (d) => {
  head = Buffer.concat([head, d]);
  const end = head.indexOf("\\r\\n\\r\\n");
  if (end < 0) return;
  s.off("data", onData);
  if (!/^HTTP\\/1\\.[01] 200/.test(head.toString("latin1", 0, end))) {
    process.stderr.write(head.toString("utf8"));
    process.exit(1);
  }
  if (head.length > end + 4) process.stdout.write(head.subarray(end + 4));
  s.pipe(process.stdout);
  process.stdin.pipe(s);
};
s.on("data", onData);
s.on("error", (e) => { process.stderr.write(e.message + "\\n"); process.exit(1); });
' "$@"
`;

function git(
  args: string[],
  cwd: string,
  protocol: string,
  timeoutMs: number,
  signal: AbortSignal,
  network: { env: Readonly<Record<string, string>>; gitProxy?: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [
        '-c',
        'protocol.allow=never',
        '-c',
        `protocol.${protocol}.allow=always`,
        '-c',
        'http.followRedirects=false',
        '-c',
        'safe.directory=*',
        ...(network.gitProxy ? ['-c', `core.gitProxy=${network.gitProxy}`] : []),
        ...args,
      ],
      {
        cwd,
        timeout: timeoutMs,
        signal,
        maxBuffer: 1024 * 1024,
        env: {
          PATH: '/usr/local/bin:/usr/bin:/bin',
          HOME: '/tmp',
          LANG: 'C.UTF-8',
          GIT_TERMINAL_PROMPT: '0',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_ALLOW_PROTOCOL: protocol,
          ...network.env,
        },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout.trim());
        const why = (err as { killed?: boolean }).killed
          ? `timed out after ${timeoutMs} ms`
          : redact(stderr.trim().split('\n').slice(-3).join(' | ')).slice(0, 500);
        reject(
          toolgateError('SOURCE_FAILED', `git ${args[0]} failed: ${why || (err as Error).message}`, {
            suggestion: 'Check the URL and ref, and that the server answers from here.',
          }),
        );
      },
    );
  });
}

/** `proxyEnv`: the egress relay's proxy variables, filled in once it listens (empty: no network). */
export const gitHandlers = (
  proxyEnv: Readonly<Record<string, string>>,
): Handlers<Pick<TransferOps, 'gitClone'>> => ({
  async gitClone({ url, ref, timeoutMs }, _payload, { paths, usage, signal }) {
    const protocol = PROTOCOLS[new URL(url).protocol];
    if (!protocol) throw toolgateError('VALIDATION_FAILED', 'Unsupported repository URL scheme');
    const scratch = path.join(paths.root, `.tg-xfer-${randomBytes(6).toString('hex')}.tmp`);
    const network: { env: Readonly<Record<string, string>>; gitProxy?: string } = { env: proxyEnv };
    if (protocol === 'git' && proxyEnv.http_proxy) {
      network.gitProxy = path.join(tmpdir(), `tg-git-proxy-${randomBytes(6).toString('hex')}`);
      await fs.writeFile(network.gitProxy, gitProxyProgram(proxyEnv.http_proxy), { mode: 0o700 });
    }
    try {
      await git(
        ['clone', '--no-hardlinks', '--quiet', '--', url, scratch],
        paths.root,
        protocol,
        timeoutMs,
        signal,
        network,
      );
      if (ref)
        await git(
          ['checkout', '--quiet', '--detach', ref, '--'],
          scratch,
          protocol,
          timeoutMs,
          signal,
          network,
        );
      const head = await git(['rev-parse', 'HEAD'], scratch, protocol, timeoutMs, signal, network);
      for (const name of await fs.readdir(scratch))
        await fs.rename(path.join(scratch, name), path.join(paths.root, name));
      return reply({ head });
    } finally {
      usage.invalidate();
      await fs.rm(scratch, { recursive: true, force: true });
      if (network.gitProxy) await fs.rm(network.gitProxy, { force: true });
    }
  },
});
