// Which repositories a session may be cloned from: the URL's host must be one the operator listed in
// git.allowedHosts ("host" for any port, "host:port" for one), checked before anything runs; a file://
// URL only under a listed "file:///dir", which the clone's one-shot sandbox then sees read-only.
import path from 'node:path';
import { toolgateError } from '../lib/errors.js';

const SCHEMES = new Set(['https:', 'http:', 'git:', 'file:']);

export interface CheckedGitUrl {
  readonly url: string;
  /** Host directories the clone must see (a local repository's listed root). */
  readonly readOnlyPaths: string[];
}

const notAllowed = (what: string) =>
  toolgateError('SOURCE_NOT_ALLOWED', `${what} is not in the server's git.allowedHosts`, {
    suggestion:
      'Ask the operator to list the host in the config file (git.allowedHosts), or upload an archive.',
  });

export function checkGitUrl(allowedHosts: readonly string[], raw: string): CheckedGitUrl {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !SCHEMES.has(url.protocol)) {
    throw toolgateError(
      'VALIDATION_FAILED',
      `"${raw.slice(0, 200)}" is not a repository URL git may use here`,
      {
        suggestion: 'Use an https://, http://, git:// or (when the operator allows it) file:// URL.',
      },
    );
  }
  if (url.protocol === 'file:') {
    const repo = path.posix.normalize(decodeURIComponent(url.pathname));
    const root = allowedHosts
      .filter((entry) => entry.startsWith('file:///'))
      .map((entry) => path.posix.normalize(decodeURIComponent(new URL(entry).pathname)).replace(/\/+$/, ''))
      .find((dir) => repo === dir || repo.startsWith(`${dir}/`));
    if (url.host !== '' || root === undefined) throw notAllowed(`The local path ${repo}`);
    return { url: `file://${repo}`, readOnlyPaths: [root] };
  }
  const allowed = allowedHosts.some(
    (entry) =>
      !entry.startsWith('file:') &&
      (entry.toLowerCase() === url.host || entry.toLowerCase() === url.hostname),
  );
  if (!allowed) throw notAllowed(`The host ${url.host}`);
  return { url: url.href, readOnlyPaths: [] };
}
