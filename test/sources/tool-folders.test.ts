// Tool folders (TOOLGATE_TOOLS_DIR): the shipped Python and shell examples through REST, batch and MCP;
// their entries run inside the session's sandbox and see nothing outside the workspace; auto_run false
// parks a call for approval; a bad definition stops the start naming the file and the field.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/tools');

/** A tools dir with the examples plus the given extra folders ({ folder: { file: content } }). */
function toolsDir(extra: Record<string, Record<string, string>> = {}): string {
  const dir = tempDir('toolgate-tools-');
  // An operator's tools dir is readable by the runtime's user (a container's is not the service's).
  chmodSync(dir, 0o755);
  cpSync(EXAMPLES, dir, { recursive: true });
  for (const [folder, files] of Object.entries(extra)) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    for (const [name, content] of Object.entries(files)) {
      writeFileSync(path.join(dir, folder, name), content);
      if (name === 'run') chmodSync(path.join(dir, folder, name), 0o755);
    }
  }
  return dir;
}

const definition = (fields: Record<string, unknown>) =>
  JSON.stringify({
    name: 'peek',
    description: 'Test tool',
    category: 'testing',
    capabilities: { readsFiles: true },
    parameters: { type: 'object', properties: { target: { type: 'string' } } },
    ...fields,
  });

// Reports whether a host path can be read from inside the tool's process.
const PEEK_RUN = `#!/bin/sh
target=$(sed -n 's/.*"target":"\\([^"]*\\)".*/\\1/p')
if cat "$target" >/dev/null 2>&1; then echo '{"readable":true}'; else echo '{"readable":false}'; fi
`;

describe('tool folders', () => {
  let t: InjectApp;
  let address: string;
  let session: { id: string; token: string };
  beforeAll(async () => {
    const dir = toolsDir({
      peek: { 'definition.json': definition({}), run: PEEK_RUN },
      careful: {
        'definition.json': definition({ name: 'careful', auto_run: false }),
        run: '#!/bin/sh\necho \'{"ran":true}\'\n',
      },
    });
    t = await injectApp({ TOOLGATE_TOOLS_DIR: dir });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    session = await t.createSession({
      profile: 'read-write',
      files: { 'README.md': '# demo\nsome words here\n', 'src/a.py': 'x = 1\n', 'src/b.py': '', 'c.txt': '' },
    });
  });
  afterAll(() => t.close());

  it('lists the example tools like built-ins, with their schemas and category', async () => {
    const res = await t.admin(t.http.get('/v1/tools?category=examples'));
    const names = res.body.tools.map((tool: { name: string }) => tool.name).sort();
    expect(names).toEqual(['count_files', 'count_words']);
    expect(res.body.tools.find((tool: { name: string }) => tool.name === 'count_words')).toMatchObject({
      version: '1.0.0',
      tags: ['example', 'python'],
      permissions: ['read'],
      source: 'folder count_words',
    });
    const openai = await t.admin(t.http.get('/v1/tools?format=openai&category=examples'));
    expect(JSON.stringify(openai.body)).toContain('"pattern":"^[A-Za-z0-9]{1,16}$"');
  });

  it('runs the Python and the shell example over REST', async () => {
    const words = await t.call(session, 'count_words', { path: 'README.md' });
    expect(words.status).toBe(200);
    expect(words.body.data).toEqual({ path: 'README.md', lines: 2, words: 5, bytes: 23 });
    const files = await t.call(session, 'count_files', { extension: 'py' });
    expect(files.body.data).toEqual({ extension: 'py', files: 2 });
    expect((await t.call(session, 'count_files', {})).body.data).toEqual({ extension: null, files: 4 });

    // The documented failure shape becomes a 422 with the tool's message and suggestion.
    const missing = await t.call(session, 'count_words', { path: 'nope.txt' });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({
      code: 'TOOL_FAILED',
      message: 'count_words: No such file: nope.txt',
      suggestion: 'Check the path with list_directory or glob.',
      details: { toolCode: 'NOT_FOUND', exitCode: 1 },
    });
    // The input schema is checked before anything runs.
    const bad = await t.call(session, 'count_files', { extension: 'p y' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&tool=count_words`));
    expect(audit.body.entries.map((e: { status: string }) => e.status).sort()).toEqual(['error', 'success']);
  });

  it('runs both examples in a batch (OpenAI format)', async () => {
    const res = await t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .send({
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'count_words', arguments: '{"path":"src/a.py"}' } },
          { id: 'b', type: 'function', function: { name: 'count_files', arguments: '{"extension":"txt"}' } },
        ],
      });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.messages[0].content)).toEqual({
      path: 'src/a.py',
      lines: 1,
      words: 3,
      bytes: 6,
    });
    expect(JSON.parse(res.body.messages[1].content)).toEqual({ extension: 'txt', files: 1 });
  });

  it('runs both examples over MCP', async () => {
    const client = new Client({ name: 'folders', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${address}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['count_words', 'count_files']));
      const words = (await client.callTool({
        name: 'count_words',
        arguments: { path: 'README.md' },
      })) as CallToolResult;
      expect(words.structuredContent).toEqual({ path: 'README.md', lines: 2, words: 5, bytes: 23 });
      const files = (await client.callTool({ name: 'count_files', arguments: {} })) as CallToolResult;
      expect(files.structuredContent).toEqual({ extension: null, files: 4 });
    } finally {
      await client.close();
    }
  });

  it('cannot read outside the workspace (the data dir, another workspace)', async (test) => {
    // Confinement is the bwrap sandbox's: the unisolated runtime (TOOLGATE_SANDBOX=none, the suite's
    // second pass) runs folder tools as plain processes that can see the host by design, so there is
    // nothing to test there.
    if (!t.app.services.runner.status.isolated) {
      console.info('tool-folder confinement test skipped: the unisolated runtime has no sandbox to test');
      // Skipped on purpose in the unisolated pass only: there is no sandbox whose confinement to test.
      test.skip();
    }
    const other = await t.createSession({ files: { 'secret.txt': 'other session\n' } });
    const targets = [
      path.join(t.dataDir, 'toolgate.db'),
      path.join(t.app.services.workspaces.dirFor(other.id), 'secret.txt'),
      '/workspace/../etc/shadow',
    ];
    for (const target of targets) {
      const res = await t.call(session, 'peek', { target });
      expect(res.body.data, target).toEqual({ readable: false });
    }
    // …while the workspace itself is readable.
    expect((await t.call(session, 'peek', { target: 'README.md' })).body.data).toEqual({ readable: true });
  });

  it('parks a call of an auto_run: false tool for approval', async () => {
    const res = await t.call(session, 'careful', {});
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ pending: true, status: 'pending_approval' });
  });
});

describe('a bad tool folder', () => {
  const startWith = (files: Record<string, string>) =>
    injectApp({ TOOLGATE_TOOLS_DIR: toolsDir({ broken: files }) });

  it('stops the start with a message naming the file and the field', async () => {
    await expect(
      startWith({ 'definition.json': definition({ category: 'Not Snake' }), run: PEEK_RUN }),
    ).rejects.toThrow(/broken\/definition\.json: category /);
    await expect(
      startWith({ 'definition.json': definition({ colour: 'red' }), run: PEEK_RUN }),
    ).rejects.toThrow(/broken\/definition\.json: colour is not a known field/);
    await expect(startWith({ 'definition.json': definition({}) })).rejects.toThrow(
      /broken\/definition\.json: command is missing/,
    );
    await expect(startWith({ 'definition.json': '{ "name": ' })).rejects.toThrow(
      /broken\/definition\.json: \(file\) is not valid JSON/,
    );
    await expect(startWith({ run: PEEK_RUN })).rejects.toThrow(
      /broken\/definition\.json: \(file\) is missing/,
    );
    await expect(
      startWith({ 'definition.json': definition({ examples: [{ target: 3 }] }), run: PEEK_RUN }),
    ).rejects.toThrow(/examples\[0\] does not match parameters/);
  });
});
