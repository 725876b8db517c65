// The native-tool example agents (examples/python/native_openai.py with the `openai` package,
// native_anthropic.py with `anthropic`) run end to end against a scripted model and the real toolgate,
// both on loopback: the SDKs parse the model's turns into their types, the agents post them to the
// batch endpoint as they are, check the answers against the SDKs' parameter types, and send them back.
// Needs a Python with both packages (TOOLGATE_PYTHON, else python3; .ci/run installs them): without
// them the tests are skipped with the reason printed.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { startFakeNative, type Json, type Step } from './fake-native.js';

const run = promisify(execFile);
const PYTHON = process.env.TOOLGATE_PYTHON ?? 'python3';

function pythonProblem(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import openai, anthropic, pydantic'], { stdio: 'pipe', timeout: 20_000 });
    return undefined;
  } catch (err) {
    return `${PYTHON} cannot import openai and anthropic (${String((err as Error).message).split('\n')[0]}); pip install openai anthropic, or set TOOLGATE_PYTHON`;
  }
}
const problem = pythonProblem();
if (problem) console.log(`skipping the native example agents: ${problem}`);

/** The items of the next request's input of one type, from the agent's conversation. */
const inputItems = (body: Json, type: string) => (body.input as Json[]).filter((item) => item.type === type);
/** The tool_result blocks of the last message of the agent's conversation. */
const toolResults = (body: Json) => (body.messages as Json[]).at(-1)!.content as Json[];

const openaiScript: Step[] = [
  (body) => {
    const types = (body.tools as Json[]).map((tool) => tool.type);
    if (!types.includes('apply_patch') || !types.includes('shell')) throw new Error(`tools: ${types.join()}`);
    return [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'apply_patch_call',
        id: 'apc_1',
        call_id: 'call_patch',
        status: 'completed',
        operation: { type: 'create_file', path: 'hello.py', diff: '+def greet():\n+    return "hi"\n' },
      },
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'call_shell',
        status: 'completed',
        action: { commands: ['cat hello.py', 'ls'], timeout_ms: 10_000, max_output_length: null },
      },
    ];
  },
  (body) => [
    {
      type: 'apply_patch_call',
      id: 'apc_2',
      call_id: 'call_update',
      status: 'completed',
      operation: {
        type: 'update_file',
        path: 'hello.py',
        diff: '@@ def greet():\n-    return "hi"\n+    return "hello"\n',
      },
    },
    {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_read',
      name: 'read_file',
      arguments: '{"path": "hello.py"}',
    },
    ...(inputItems(body, 'shell_call_output').length === 1 ? [] : [{ type: 'bogus' }]),
  ],
  () => [
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Greeting updated.', annotations: [] }],
    },
  ],
];

const anthropicScript: Step[] = [
  (body) => {
    const names = (body.tools as Json[]).map((tool) => tool.name);
    if (!names.includes('str_replace_based_edit_tool') || !names.includes('bash'))
      throw new Error(`tools: ${names.join()}`);
    return [
      { type: 'text', text: 'Creating the notes.' },
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'NOTES.md', file_text: '# Notes\nfirst\n' },
      },
      { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'wc -l NOTES.md' } },
    ];
  },
  () => [
    {
      type: 'tool_use',
      id: 'toolu_3',
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'NOTES.md', old_str: 'first', new_str: 'second' },
    },
    {
      type: 'tool_use',
      id: 'toolu_4',
      name: 'str_replace_based_edit_tool',
      input: { command: 'view', path: 'NOTES.md' },
    },
  ],
  () => [{ type: 'text', text: 'Notes written.' }],
];

describe.skipIf(problem !== undefined)('the native-tool example agents (Python SDKs)', () => {
  let t: TestApp;
  let toolgateUrl: string;
  beforeAll(async () => {
    t = await startApp();
    toolgateUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const agent = async (script: string, session: { id: string; token: string }, env: Record<string, string>) =>
    run(PYTHON, [`examples/python/${script}`, 'Write a greeting'], {
      cwd: process.cwd(),
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOOLGATE_URL: toolgateUrl,
        TOOLGATE_TOKEN: session.token,
        TOOLGATE_SESSION: session.id,
        MODEL: 'scripted-model',
        ...env,
      },
    });

  it('OpenAI Responses: apply_patch, shell and function calls through toolgate, answers appended as input', async () => {
    const session = await t.createSession({ profile: 'execute' });
    const model = await startFakeNative(openaiScript);
    try {
      const { stdout } = await agent('native_openai.py', session, {
        OPENAI_BASE_URL: model.openaiBaseUrl,
        OPENAI_API_KEY: 'sk-fake',
      });
      expect(stdout.trim()).toBe('Greeting updated.');
      expect(model.requests).toHaveLength(3);
      const [, second, third] = model.requests;
      expect(inputItems(second, 'apply_patch_call_output')).toMatchObject([
        { call_id: 'call_patch', status: 'completed' },
      ]);
      expect(inputItems(second, 'shell_call_output')).toMatchObject([
        {
          call_id: 'call_shell',
          output: [
            { stdout: 'def greet():\n    return "hi"\n', outcome: { type: 'exit', exit_code: 0 } },
            { stdout: 'hello.py\n', outcome: { type: 'exit', exit_code: 0 } },
          ],
        },
      ]);
      expect(inputItems(third, 'function_call_output')).toEqual([
        {
          type: 'function_call_output',
          call_id: 'call_read',
          output: '1\tdef greet():\n2\t    return "hello"',
        },
      ]);
      const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
      expect(audit.body.entries.map((e: { wireTool: string | null }) => e.wireTool)).toContain(
        'openai-responses:shell_call',
      );
    } finally {
      await model.close();
    }
  });

  it('Anthropic: the text editor and bash through toolgate, tool_result blocks appended as the next message', async () => {
    const session = await t.createSession({ profile: 'execute' });
    const model = await startFakeNative(anthropicScript);
    try {
      const { stdout } = await agent('native_anthropic.py', session, {
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-fake',
      });
      expect(stdout.trim()).toBe('Notes written.');
      expect(model.requests).toHaveLength(3);
      expect(toolResults(model.requests[1])).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: 'File created successfully at: NOTES.md',
          is_error: false,
        },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: '2 NOTES.md', is_error: false },
      ]);
      expect(toolResults(model.requests[2])).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 'toolu_3',
          content: 'Successfully replaced text at exactly one location.',
          is_error: false,
        },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_4',
          content: '     1\t# Notes\n     2\tsecond',
          is_error: false,
        },
      ]);
    } finally {
      await model.close();
    }
  });
});
