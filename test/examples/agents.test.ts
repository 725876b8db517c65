// The example agents (Python, standard library; TypeScript, openai SDK) run end to end against a
// scripted chat-completions server and the real toolgate, both on loopback; the workspace shows the work.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { startFakeChat, type ChatRequest, type ScriptedReply } from './fake-chat.js';

const run = promisify(execFile);

const toolMessages = (request: ChatRequest) => request.body.messages.filter((m) => m.role === 'tool');

/** Turn 1: write a file and read an existing one at once; turn 2: rewrite the existing one; then report. */
const script: ((request: ChatRequest) => ScriptedReply)[] = [
  () => ({
    toolCalls: [
      {
        id: 'call_1',
        name: 'write_file',
        arguments: JSON.stringify({ path: 'src/hello.py', content: 'print("hi")\n' }),
      },
      { id: 'call_2', name: 'read_file', arguments: JSON.stringify({ path: 'NOTES.md' }) },
      { id: 'call_3', name: 'read_file', arguments: '{"path": ' },
    ],
  }),
  (request) => {
    const notes = toolMessages(request).find((m) => m.tool_call_id === 'call_2')?.content ?? '';
    return {
      toolCalls: [
        {
          id: 'call_4',
          name: 'write_file',
          arguments: JSON.stringify({
            path: 'NOTES.md',
            content: `${notes.split('\t')[1]}\n- hello.py added\n`,
          }),
        },
      ],
    };
  },
  (request) => ({ content: `Done: ${toolMessages(request).at(-1)?.content}` }),
];

describe.each([
  ...(needs('python3', 'the python example agent')
    ? []
    : [['python', 'python3', ['examples/python/agent.py']]]),
  ['typescript', process.execPath, ['--import', 'tsx', 'examples/typescript/agent.ts']],
] as [string, string, string[]][])('the %s example agent', (_language, command, args) => {
  let t: TestApp;
  let toolgateUrl: string;
  beforeAll(async () => {
    t = await startApp();
    toolgateUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('runs the tool-calling loop through the batch endpoint and leaves the work in the workspace', async () => {
    const session = await t.createSession({ profile: 'read-write', files: { 'NOTES.md': '# Notes\n' } });
    const chat = await startFakeChat(script);
    try {
      const { stdout, stderr } = await run(command, [...args, 'Add a hello script'], {
        cwd: process.cwd(),
        timeout: 30_000,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          OPENAI_BASE_URL: chat.baseUrl,
          OPENAI_API_KEY: 'sk-fake-test-key',
          MODEL: 'scripted-model',
          TOOLGATE_URL: toolgateUrl,
          TOOLGATE_TOKEN: session.token,
          TOOLGATE_SESSION: session.id,
        },
      });
      expect(stdout.trim()).toBe('Done: Wrote NOTES.md (25 bytes)');
      expect(stderr).toContain('[tool] write_file');

      // What the model was sent: our OpenAI declarations, then the batch answers as tool messages.
      expect(chat.requests).toHaveLength(3);
      expect(chat.requests[0].authorization).toBe('Bearer sk-fake-test-key');
      expect(chat.requests[0].body.model).toBe('scripted-model');
      expect(chat.requests[0].body.tools?.map((tool) => tool.function.name)).toContain('write_file');
      expect(toolMessages(chat.requests[1])).toEqual([
        { role: 'tool', tool_call_id: 'call_1', content: 'Created src/hello.py (12 bytes)' },
        { role: 'tool', tool_call_id: 'call_2', content: '1\t# Notes' },
        { role: 'tool', tool_call_id: 'call_3', content: expect.stringMatching(/^Error INVALID_JSON: /) },
      ]);

      const hello = await t.call(session, 'read_file', { path: 'src/hello.py' });
      expect(hello.body.data.content).toBe('print("hi")');
      const notes = await t.call(session, 'read_file', { path: 'NOTES.md' });
      expect(notes.body.data.content).toBe('# Notes\n- hello.py added');
      const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
      expect(audit.body.entries.filter((e: { entryPoint: string }) => e.entryPoint === 'batch')).toHaveLength(
        3,
      );
    } finally {
      await chat.close();
    }
  });
});
