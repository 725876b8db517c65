// What a new session's workspace starts from, besides seed files: an uploaded archive (a blob id), a
// small archive inline (base64), or a server-side template. Each is streamed as an archive into the
// session's runtime and extracted there under the archive rules and caps (runtime/inside/archive-*.ts).
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import { toolgateError } from '../core/errors.js';
import { templateDir, templateTar } from '../sandbox/templates.js';
import type { Services } from '../services.js';
import { Workspace } from '../runtime/workspace.js';
import type { SessionRecord } from '../store/sessions.js';
import { feedAndFinish } from './runtime-streams.js';

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
};
export const SessionSourceSchema = Type.Object(SessionSourceFields);
export type SessionSource = Static<typeof SessionSourceSchema>;

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The source's bytes as a stream, checked before the session exists (so a bad one leaves nothing). */
export async function openSource(
  services: Services,
  source: SessionSource,
): Promise<AsyncIterable<Buffer> | undefined> {
  const given = (['archive', 'archive_base64', 'template'] as const).filter(
    (key) => source[key] !== undefined,
  );
  if (given.length > 1)
    throw toolgateError('VALIDATION_FAILED', `Give one source, not ${given.join(' and ')}`, {
      suggestion: 'A workspace starts from one archive or one template; `files` may be added on top.',
    });
  if (source.archive !== undefined) return services.blobs.open(source.archive);
  if (source.archive_base64 !== undefined) {
    if (!BASE64.test(source.archive_base64))
      throw toolgateError('VALIDATION_FAILED', 'archive_base64 is not base64', {
        suggestion: 'Encode the archive file with standard base64 (or upload it with POST /v1/blobs).',
      });
    return Readable.from([Buffer.from(source.archive_base64, 'base64')]);
  }
  if (source.template !== undefined)
    return templateTar(await templateDir(services.config.templatesDir, source.template));
  return undefined;
}

/** Extracts the source into the new session's workspace root. */
export async function extractSource(
  services: Services,
  session: SessionRecord,
  body: AsyncIterable<Buffer>,
): Promise<void> {
  const workspace = new Workspace(services.runtimes.for(session));
  const { stream } = (await workspace.call('extractOpen', { path: '.', limits: services.config.archive }))
    .result;
  await feedAndFinish(workspace, stream, body, { bytes: 0 });
}
