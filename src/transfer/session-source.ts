// What a new session's workspace starts from, besides seed files: an uploaded archive (a blob id), a
// small archive inline (base64), a server-side template, or a git repository. Archives and templates are
// streamed into the session's runtime and extracted there under the archive rules and caps
// (runtime/inside/archive-*.ts); a repository is cloned by a one-shot runtime (git-source.ts).
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { templateDir, templateTar } from '../sandbox/templates.js';
import type { Config } from '../config.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { BlobStore } from '../store/blobs.js';
import { Workspace } from '../runtime/workspace.js';
import type { SessionRecord } from '../store/sessions.js';
import { parseAllowEntry } from '../lib/net-patterns.js';
import { checkGitUrl } from './git-source.js';
import { feedAndFinish } from './runtime-streams.js';

/** The services a session's source is opened and applied with. */
export interface SourceServices {
  readonly blobs: BlobStore;
  readonly config: Config;
  readonly runtimes: RuntimeManager;
}

/** Inline archives are for small ones: JSON bodies are held in memory (limits.bodyLimitBytes applies). */
export const SessionSourceFields = {
  archive: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'A blob id from POST /v1/blobs: a tar, tar.gz or zip to extract',
    }),
  ),
  archive_base64: Type.Optional(
    Type.String({ minLength: 1, description: 'A small tar, tar.gz or zip, base64-encoded, to extract' }),
  ),
  template: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'A template directory under TOOLGATE_TEMPLATES_DIR, copied in',
    }),
  ),
  git: Type.Optional(
    Type.Object(
      {
        url: Type.String({
          minLength: 1,
          maxLength: 2000,
          description: 'Repository URL; its host must be in git.allowedHosts',
        }),
        ref: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 250,
            pattern: '^[^-\\s][^\\s]*$',
            description: 'Branch, tag or commit to check out',
          }),
        ),
      },
      { additionalProperties: false, description: 'Clone a repository (network for this step only)' },
    ),
  ),
};
export const SessionSourceSchema = Type.Object(SessionSourceFields);
export type SessionSource = Static<typeof SessionSourceSchema>;

export type OpenedSource =
  | { readonly kind: 'archive'; readonly body: AsyncIterable<Buffer> }
  | { readonly kind: 'git'; readonly url: string; readonly ref?: string; readonly readOnlyPaths: string[] };

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The source, checked before the session exists (so a bad one leaves nothing). */
export async function openSource(
  services: SourceServices,
  source: SessionSource,
): Promise<OpenedSource | undefined> {
  const given = (['archive', 'archive_base64', 'template', 'git'] as const).filter(
    (key) => source[key] !== undefined,
  );
  if (given.length > 1)
    throw toolgateError('VALIDATION_FAILED', `Give one source, not ${given.join(' and ')}`, {
      suggestion: 'A workspace starts from one archive, template or repository; `files` may be added on top.',
    });
  if (source.archive !== undefined)
    return { kind: 'archive', body: await services.blobs.open(source.archive) };
  if (source.archive_base64 !== undefined) {
    if (!BASE64.test(source.archive_base64))
      throw toolgateError('VALIDATION_FAILED', 'archive_base64 is not base64', {
        suggestion: 'Encode the archive file with standard base64 (or upload it with POST /v1/blobs).',
      });
    return { kind: 'archive', body: Readable.from([Buffer.from(source.archive_base64, 'base64')]) };
  }
  if (source.template !== undefined) {
    const dir = await templateDir(services.config.templatesDir, source.template);
    return { kind: 'archive', body: templateTar(dir) };
  }
  if (source.git !== undefined) {
    const checked = checkGitUrl(services.config.git.allowedHosts, source.git.url);
    return { kind: 'git', ...checked, ...(source.git.ref ? { ref: source.git.ref } : {}) };
  }
  return undefined;
}

/** Puts the source into the new session's (empty) workspace root. */
export async function applySource(
  services: SourceServices,
  session: SessionRecord,
  source: OpenedSource,
): Promise<void> {
  if (source.kind === 'git') {
    // The session's own runtime has no network (unless its profile gives it); the clone gets a runtime
    // of its own, with the local repository or a network that reaches the repository's host only
    // (through the egress proxy, like any session's), stopped as soon as the clone is done. An address
    // the operator listed in git.allowedHosts is opened for the clone even in a blocked range (a git
    // server on the host's loopback); a name still must not resolve into one.
    const url = new URL(source.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const entry = parseAllowEntry(host);
    const network =
      url.protocol === 'file:'
        ? {}
        : {
            network: { mode: 'allowlist' as const, allow: [host] },
            openRanges: typeof entry !== 'string' && entry.kind === 'range' ? [entry.cidr] : [],
          };
    await services.runtimes.oneShot(session, { ...network, readOnlyPaths: source.readOnlyPaths }, (runtime) =>
      runtime.call('gitClone', {
        url: source.url,
        ...(source.ref ? { ref: source.ref } : {}),
        timeoutMs: services.config.git.timeoutSeconds * 1000,
      }),
    );
    return;
  }
  const workspace = new Workspace(services.runtimes.for(session));
  const { stream } = (await workspace.call('extractOpen', { path: '.', limits: services.config.archive }))
    .result;
  await feedAndFinish(workspace, stream, source.body, { bytes: 0 });
}
