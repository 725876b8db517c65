// What a TypeScript user of toolgate writes with a generated client: types from openapi-typescript
// (./openapi.d.ts, generated from openapi/openapi.json) and openapi-fetch. `npm test` type-checks this
// file under `strict` (tsc runs over test/), so a request schema that forces callers to send a default,
// or a response shape that does not match, fails the build; generated-client.test.ts runs it against
// the real app.
import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

export interface WalkthroughResult {
  sessionId: string;
  readContent: string;
  editStrategy: string;
  grepFiles: string[];
  commandStdout: string;
  missingFileCode: string;
  auditedTools: string[];
}

/**
 * A tool call answers 200 with its result or, when the session's policy parks it for an operator, 202
 * with where to poll: the generated types say so, and a caller narrows on `pending`.
 */
function finished<T extends object>(
  data: T | { pending: true } | undefined,
  what: string,
): Exclude<T, { pending: true }> {
  if (!data) throw new Error(`${what} failed`);
  if ('pending' in data) throw new Error(`${what} is waiting for approval`);
  return data as Exclude<T, { pending: true }>;
}

export async function walkthrough(baseUrl: string, adminKey: string): Promise<WalkthroughResult> {
  const client = createClient<paths>({ baseUrl });
  const admin = { authorization: `Bearer ${adminKey}` };

  const created = await client.POST('/v1/sessions', { headers: admin, body: { profile: 'full' } });
  if (!created.data) throw new Error(`create session: ${JSON.stringify(created.error)}`);
  const { id, token } = created.data;
  const auth = { authorization: `Bearer ${token}` };
  const params = { path: { id } };

  const written = await client.POST('/v1/sessions/{id}/tools/write_file', {
    params,
    headers: auth,
    body: { path: 'src/hello.py', content: 'def hello():\n    return "hello"\n' },
  });
  if (!written.data) throw new Error(`write_file: ${JSON.stringify(written.error)}`);

  // Only `path`: offset and limit have defaults.
  const read = await client.POST('/v1/sessions/{id}/tools/read_file', {
    params,
    headers: auth,
    body: { path: 'src/hello.py' },
  });
  if (!read.data) throw new Error(`read_file: ${JSON.stringify(read.error)}`);

  // replace_all and dry_run have defaults.
  const edited = await client.POST('/v1/sessions/{id}/tools/edit_file', {
    params,
    headers: auth,
    body: { path: 'src/hello.py', old_string: '"hello"', new_string: '"hello, world"' },
  });
  if (!edited.data) throw new Error(`edit_file: ${JSON.stringify(edited.error)}`);

  // Only `pattern`.
  const found = await client.POST('/v1/sessions/{id}/tools/grep', {
    params,
    headers: auth,
    body: { pattern: 'hello, world', output_mode: 'files_with_matches' },
  });
  if (!found.data) throw new Error(`grep: ${JSON.stringify(found.error)}`);

  // Only `command`.
  const ran = await client.POST('/v1/sessions/{id}/tools/run_command', {
    params,
    headers: auth,
    body: {
      command: 'python3 -c "import sys; sys.path.insert(0, \'src\'); import hello; print(hello.hello())"',
    },
  });
  if (!ran.data) throw new Error(`run_command: ${JSON.stringify(ran.error)}`);

  // An error: the typed envelope.
  const missing = await client.POST('/v1/sessions/{id}/tools/read_file', {
    params,
    headers: auth,
    body: { path: 'no/such/file.txt' },
  });
  if (!missing.error) throw new Error('reading a missing file succeeded');

  // The audit log, with the session's own token; `limit` has a default.
  const audit = await client.GET('/v1/audit', { headers: auth, params: { query: { sessionId: id } } });
  if (!audit.data) throw new Error(`audit: ${JSON.stringify(audit.error)}`);

  return {
    sessionId: id,
    readContent: finished(read.data, 'read_file').data.content,
    editStrategy: finished(edited.data, 'edit_file').data.strategy,
    grepFiles: finished(found.data, 'grep').data.files ?? [],
    commandStdout: finished(ran.data, 'run_command').data.stdout,
    missingFileCode: missing.error.error.code,
    auditedTools: audit.data.entries.map((entry) => entry.tool),
  };
}
