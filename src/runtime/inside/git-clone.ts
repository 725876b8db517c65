// Cloning a session's source repository, inside a one-shot runtime that has the network (or the local
// repository's directory) for this step only. git runs with a fixed environment: no system or global
// config, no prompts, only the URL's own protocol, no HTTP redirects (so a server cannot send the clone
// to another host), and a time limit. The clone goes to a scratch directory and is moved into the
// workspace root only when complete.
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

function git(
  args: string[],
  cwd: string,
  protocol: string,
  timeoutMs: number,
  signal: AbortSignal,
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

export const gitHandlers: Handlers<Pick<TransferOps, 'gitClone'>> = {
  async gitClone({ url, ref, timeoutMs }, _payload, { paths, usage, signal }) {
    const protocol = PROTOCOLS[new URL(url).protocol];
    if (!protocol) throw toolgateError('VALIDATION_FAILED', 'Unsupported repository URL scheme');
    const scratch = path.join(paths.root, `.tg-xfer-${randomBytes(6).toString('hex')}.tmp`);
    try {
      await git(
        ['clone', '--no-hardlinks', '--quiet', '--', url, scratch],
        paths.root,
        protocol,
        timeoutMs,
        signal,
      );
      if (ref)
        await git(['checkout', '--quiet', '--detach', ref, '--'], scratch, protocol, timeoutMs, signal);
      const head = await git(['rev-parse', 'HEAD'], scratch, protocol, timeoutMs, signal);
      for (const name of await fs.readdir(scratch))
        await fs.rename(path.join(scratch, name), path.join(paths.root, name));
      return reply({ head });
    } finally {
      usage.invalidate();
      await fs.rm(scratch, { recursive: true, force: true });
    }
  },
};
