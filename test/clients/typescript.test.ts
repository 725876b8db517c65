// The TypeScript client (clients/typescript) against the real service on a socket: typed tool methods,
// errors as ToolgateError, streams, files, archives, checkpoints, safe retries, the agent loop through
// `handle` with recorded vendor outputs, the AI SDK adapter driven by the SDK's own mock model, the
// OpenAI Agents SDK adapter, and every example of its README (run with tsx).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { RunContext } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Toolgate, ToolgateError, type Session } from '../../clients/typescript/src/index.js';
import { toolgateTools } from '../../clients/typescript/src/ai.js';
import { toolgateAgentTools } from '../../clients/typescript/src/openai-agents.js';
import { ADMIN_KEY, startApp, tempDir, type TestApp } from '../helpers/app.js';
import { startFakeChat, type FakeChat } from '../examples/fake-chat.js';

const run = promisify(execFile);
const CLIENT_SRC = path.resolve('clients/typescript/src');

let t: TestApp;
let url: string;
let tg: Toolgate;
beforeAll(async () => {
  t = await startApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  tg = new Toolgate({ url, apiKey: ADMIN_KEY });
});
afterAll(() => t.close());

describe('the TypeScript client', () => {
  it('calls the typed tool methods and deletes the session afterwards', async () => {
    let gone: Session | undefined;
    await tg.withSession({ profile: 'execute', files: { 'src/app.py': "print('a')\n" } }, async (s) => {
      gone = s;
      const edited = await s.edit_file({ path: 'src/app.py', old_string: "'a'", new_string: "'b'" });
      expect(edited.replacements).toBe(1);
      const read = await s.read_file({ path: 'src/app.py' });
      expect([read.content, read.totalLines]).toEqual(["print('b')", 1]);
      expect((await s.glob({ pattern: '**/*.py' })).files).toEqual(['src/app.py']);
      const ran = await s.run_command({ command: 'echo out; echo err >&2; exit 3' });
      expect([ran.exitCode, ran.stdout, ran.stderr]).toEqual([3, 'out\n', 'err\n']);
      const envelope = await s.call('list_directory', {});
      expect(envelope.callId).toMatch(/\S/);
      expect(envelope.metadata.tool).toBe('list_directory');
    });
    const status = await tg
      .attach(gone!.id, gone!.token)
      .list_directory({})
      .catch((err: ToolgateError) => err.status);
    expect(status).toBe(401);
  });

  it('throws error envelopes as ToolgateError with their codes', async () => {
    await tg.withSession({ profile: 'read-only', files: { 'a.txt': 'one\n' } }, async (s) => {
      const codeOf = (p: Promise<unknown>) =>
        p.then(
          () => 'resolved',
          (err: ToolgateError) => `${err.status} ${err.code} ${err.type}`,
        );
      expect(await codeOf(s.read_file({ path: 'missing.txt' }))).toBe('404 FILE_NOT_FOUND user_error');
      expect(await codeOf(s.read_file({ path: '../../etc/passwd' }))).toBe(
        '403 PATH_OUTSIDE_WORKSPACE security_error',
      );
      expect(await codeOf(s.call('read_file', { path: 7 }))).toBe('400 VALIDATION_FAILED validation_error');
      expect(await codeOf(s.write_file({ path: 'b.txt', content: 'x' }))).toMatch(
        /^403 \w+ permission_error$/,
      );
      const err = await s.edit_file({ path: 'a.txt', old_string: 'x', new_string: 'y' }).catch((e) => e);
      expect(err).toBeInstanceOf(ToolgateError);
      expect(err.callId).toMatch(/\S/);
    });
  });

  it('streams output, moves files and archives, restores checkpoints', async () => {
    await tg.withSession({ profile: 'execute' }, async (s) => {
      const events = [];
      for await (const event of s.stream('run_command', { command: 'echo one; echo two >&2' }))
        events.push(event);
      expect(events[0].event).toBe('start');
      expect(events.at(-1)!.event).toBe('end');
      const chunks = events.filter((e) => e.event === 'output').map((e) => e.data);
      expect(chunks).toEqual(
        expect.arrayContaining([
          { stream: 'stdout', chunk: 'one\n' },
          { stream: 'stderr', chunk: 'two\n' },
        ]),
      );
      const failing = async () => {
        for await (const _ of s.stream('read_file', { path: 'missing' }));
      };
      await expect(failing()).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });

      const bytes = new Uint8Array(256).map((_, i) => i);
      expect(await s.upload('bin/data.bin', bytes)).toMatchObject({ size: 256, created: true });
      expect(await s.download('bin/data.bin')).toEqual(bytes);
      await expect(s.upload('bin/data.bin', 'x', { expectedSha256: '' })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      const archive = await s.downloadArchive();
      await tg.withSession({ profile: 'read-write' }, async (other) => {
        expect(await other.uploadArchive(archive, { path: 'copy' })).toMatchObject({ files: 1 });
        expect(await other.download('copy/bin/data.bin')).toEqual(bytes);
      });

      await s.write_file({ path: 'keep.txt', content: 'v1\n' });
      const checkpoint = await s.createCheckpoint('first');
      await s.write_file({ path: 'keep.txt', content: 'v2\n' });
      expect((await s.listCheckpoints()).checkpoints.map((c) => c.id)).toEqual([checkpoint.id]);
      await s.restoreCheckpoint(checkpoint.id);
      expect((await s.read_file({ path: 'keep.txt' })).content).toBe('v1');
      await s.deleteCheckpoint(checkpoint.id);
      expect((await s.listCheckpoints()).checkpoints).toEqual([]);
    });
  });

  it('retries a call whose answer was lost without running it twice', async () => {
    let lost = 0;
    // A network that delivers the first tool call but loses its answer.
    const lossy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).includes('/tools/') && lost === 0) {
        lost++;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return response;
    };
    const flaky = new Toolgate({ url, apiKey: ADMIN_KEY, fetch: lossy, retry: { baseDelayMs: 5 } });
    await flaky.withSession({ profile: 'execute' }, async (s) => {
      const ran = await s.run_command({ command: 'echo run >> runs.txt; wc -l < runs.txt' });
      expect(lost).toBe(1);
      expect(ran.stdout.trim()).toBe('1');
    });
    lost = 0;
    const once = new Toolgate({ url, apiKey: ADMIN_KEY, fetch: lossy, retry: { maxRetries: 0 } });
    await once.withSession({ profile: 'execute' }, async (s) => {
      await expect(s.run_command({ command: 'true' })).rejects.toThrow('fetch failed');
    });
  });

  it('drives the agent loop through handle in every vendor format', async () => {
    await tg.withSession({ profile: 'execute' }, async (s) => {
      // OpenAI Chat Completions: the completion as the SDK returns it.
      const chat = await s.handle({
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'c1',
                  type: 'function',
                  function: { name: 'write_file', arguments: '{"path":"g.py","content":"x = 1\\n"}' },
                },
              ],
            },
          },
        ],
      });
      expect(chat).toEqual([
        { role: 'tool', tool_call_id: 'c1', content: expect.stringMatching(/^Created/) },
      ]);
      // Responses: a V4A apply_patch_call and a shell_call.
      const responses = await s.handle({
        output: [
          { type: 'reasoning', id: 'rs', summary: [] },
          {
            type: 'apply_patch_call',
            call_id: 'p1',
            status: 'completed',
            operation: { type: 'update_file', path: 'g.py', diff: '@@\n-x = 1\n+x = 2\n' },
          },
          { type: 'shell_call', call_id: 's1', status: 'completed', action: { commands: ['cat g.py'] } },
        ],
      });
      expect(responses).toMatchObject([
        { type: 'apply_patch_call_output', call_id: 'p1', status: 'completed' },
        { type: 'shell_call_output', call_id: 's1', output: [{ stdout: 'x = 2\n' }] },
      ]);
      // Anthropic: the text editor and bash.
      const anthropic = await s.handle({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Viewing.' },
          {
            type: 'tool_use',
            id: 't1',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: 'g.py' },
          },
          { type: 'tool_use', id: 't2', name: 'bash', input: { command: 'wc -c < g.py' } },
        ],
      });
      expect(anthropic).toEqual([
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: '     1\tx = 2', is_error: false },
            { type: 'tool_result', tool_use_id: 't2', content: '6', is_error: false },
          ],
        },
      ]);
      // The Anthropic request's tools list goes along: its text editor's max_characters cuts the view.
      const cut = await s.handle(
        [
          {
            type: 'tool_use',
            id: 't3',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: 'g.py' },
          },
        ],
        { tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 5 }] },
      );
      expect((cut[0].content as { content: string }[])[0].content).toContain(
        '<response clipped: 5 of 12 characters shown>',
      );
      // Gemini: the response's candidate content.
      const gemini = await s.handle({
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { name: 'read_file', args: { path: 'g.py' } } }],
            },
          },
        ],
      });
      expect(gemini).toEqual([
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'read_file', response: { output: '1\tx = 2' } } }],
        },
      ]);
      // No tool call: nothing to append, the loop is done.
      expect(await s.handle({ role: 'assistant', content: [{ type: 'text', text: 'done' }] })).toEqual([]);
      expect(await s.handle({ choices: [{ message: { role: 'assistant', content: 'done' } }] })).toEqual([]);
    });
  });

  it("AI SDK: generateText with the SDK's mock model calls our tools", async () => {
    await tg.withSession({ profile: 'read-write', files: { 'a.txt': 'alpha\n' } }, async (s) => {
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      };
      const prompts: unknown[] = [];
      const model = new MockLanguageModelV3({
        doGenerate: async (options) => {
          prompts.push(options.prompt);
          return prompts.length === 1
            ? {
                content: [
                  {
                    type: 'tool-call',
                    toolCallId: 'tc1',
                    toolName: 'write_file',
                    input: JSON.stringify({ path: 'b.txt', content: 'beta\n' }),
                  },
                  { type: 'tool-call', toolCallId: 'tc2', toolName: 'read_file', input: '{"path":"a.txt"}' },
                ],
                finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                usage,
                warnings: [],
              }
            : {
                content: [{ type: 'text', text: 'done' }],
                finishReason: { unified: 'stop', raw: 'stop' },
                usage,
                warnings: [],
              };
        },
      });
      const tools = await toolgateTools(s);
      const result = await generateText({ model, tools, prompt: 'copy', stopWhen: stepCountIs(3) });
      expect(result.text).toBe('done');
      expect(result.steps[0].toolResults.map((r) => [r.toolName, r.output])).toEqual([
        ['write_file', expect.stringMatching(/^Created/)],
        ['read_file', '1\talpha'],
      ]);
      expect((await s.read_file({ path: 'b.txt' })).content).toBe('beta');
    });
  });

  it('OpenAI Agents SDK: our tools invoked as FunctionTools', async () => {
    await tg.withSession({ profile: 'read-only', files: { 'a.txt': 'alpha\n' } }, async (s) => {
      const tools = await toolgateAgentTools(s);
      const read = tools.find((tool) => tool.name === 'read_file')!;
      expect(tools.some((tool) => tool.name === 'write_file')).toBe(false);
      expect(read.parameters).toMatchObject({ type: 'object', required: ['path'] });
      expect(await read.invoke(new RunContext(), '{"path":"a.txt"}')).toBe('1\talpha');
      expect(await read.invoke(new RunContext(), '{"path":"nope"}')).toMatch(/^Error FILE_NOT_FOUND/);
    });
  });
});

describe('the TypeScript client README', () => {
  let model: FakeChat;
  let dir: string;
  beforeAll(async () => {
    model = await startFakeChat([
      () => ({
        toolCalls: [
          { id: 'call_1', name: 'write_file', arguments: '{"path":"fizzbuzz.py","content":"print(1)\\n"}' },
        ],
      }),
      () => ({ content: 'Done.' }),
    ]);
    // The examples import 'openai' and 'ai' as a user would: resolved from the repository's node_modules.
    dir = tempDir('toolgate-readme-ts-');
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    mkdirSync(path.join(dir, 'examples'));
  });
  afterAll(() => model.close());

  const readme = readFileSync('clients/typescript/README.md', 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

  it('has examples', () => expect(blocks.length).toBeGreaterThanOrEqual(4));

  it.each(blocks.map((code, index) => ({ index, code })))('example $index runs', async ({ index, code }) => {
    const file = path.join(dir, 'examples', `example-${index}.ts`);
    const source = code.replace(/'@toolgate\/client(\/[a-z-]+)?'/g, (_, sub: string | undefined) =>
      JSON.stringify(path.join(CLIENT_SRC, `${sub ? sub.slice(1) : 'index'}.ts`)),
    );
    writeFileSync(file, source);
    const { stdout } = await run(path.resolve('node_modules/.bin/tsx'), [file], {
      cwd: dir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOOLGATE_URL: url,
        TOOLGATE_API_KEY: ADMIN_KEY,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'sk-scripted',
      },
    });
    expect(stdout.length).toBeGreaterThan(0);
    // The loop example ran both turns against the scripted model, the tool's answer sent back.
    if (code.includes("from 'openai'")) {
      expect(stdout.trim()).toBe('Done.');
      expect(model.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
        role: 'tool',
        tool_call_id: 'call_1',
      });
    }
  });
});
