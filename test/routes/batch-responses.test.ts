// OpenAI Responses through the service: the declarations (plain and strict) typed as the openai SDK's
// tool params, a response's output items (typed as the SDK's output items) posted to the batch endpoint,
// and the answer typed as the SDK's input items — one per call item, to append to the next input.
// No request leaves the machine: the "model" is the test, writing the items a model would.
import type {
  ApplyPatchTool,
  CustomTool,
  FunctionShellTool,
  FunctionTool,
  ResponseInputItem,
  ResponseOutputItem,
  Tool,
} from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmToolList } from '../../src/protocols/llm.js';
import { STRICT_DROPPED_KEYWORDS } from '../../src/protocols/openai-strict.js';
import type {
  ResponsesAnswer,
  ResponsesBuiltin,
  ResponsesTool,
} from '../../src/protocols/openai-responses.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

// Compile-time proof: what we serve is what the SDK's request takes, and our answer is its next input.
export const declarationFits = (tool: ResponsesTool): FunctionTool => tool;
export const builtinFits = (builtin: ResponsesBuiltin): ApplyPatchTool | FunctionShellTool | CustomTool =>
  builtin.tool;
export const toolListFits = (list: Extract<LlmToolList, { tools: ResponsesTool[] }>): Tool[] => [
  ...list.tools,
  ...list.builtins.map((b) => b.tool),
];
export const answerFits = (answer: ResponsesAnswer): ResponseInputItem[] => answer.input;

type Session = { id: string; token: string };

/** Every object closed with every property required; no keyword strict mode refuses; every node typed. */
function strictProblems(schema: unknown, at = '$'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of [...STRICT_DROPPED_KEYWORDS, 'patternProperties', 'oneOf', 'allOf']) {
    if (key in node) problems.push(`${at}: ${key}`);
  }
  if (!('type' in node) && !('anyOf' in node) && !('enum' in node) && !('const' in node))
    problems.push(`${at}: no type`);
  if (node.type === 'object') {
    const keys = Object.keys((node.properties ?? {}) as object).sort();
    if (node.additionalProperties !== false) problems.push(`${at}: not closed`);
    if (JSON.stringify([...((node.required ?? []) as string[])].sort()) !== JSON.stringify(keys))
      problems.push(`${at}: not all required`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties') {
      for (const [name, sub] of Object.entries(value as object))
        problems.push(...strictProblems(sub, `${at}.${name}`));
    } else if (key === 'items') problems.push(...strictProblems(value, `${at}[]`));
    else if (key === 'anyOf')
      (value as unknown[]).forEach((sub, i) => problems.push(...strictProblems(sub, `${at}|${i}`)));
  }
  return problems;
}

describe('OpenAI Responses', () => {
  let t: InjectApp;
  let session: Session;
  beforeAll(async () => {
    t = await injectApp();
    session = await t.createSession({
      profile: 'execute',
      files: { 'src/app.py': 'def main():\n    print("hi")\n', 'old.txt': 'bye\n' },
    });
  });
  afterAll(() => t.close());

  const tools = (query: string, as: Session = session) =>
    t.http.get(`/v1/tools?${query}`).set('authorization', `Bearer ${as.token}`);
  const batch = (body: unknown) =>
    t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .send(body as object);

  it('declares every tool as a Responses function tool, and lists the built-ins it runs', async () => {
    const res = await tools('format=openai-responses').expect(200);
    const names = res.body.tools.map((tool: ResponsesTool) => tool.name);
    expect(names).toContain('apply_patch');
    expect(res.body.tools[0]).toMatchObject({
      type: 'function',
      strict: false,
      parameters: { type: 'object' },
    });
    expect(res.body.builtins.map((b: ResponsesBuiltin) => [b.tool.type, b.mapsTo])).toEqual([
      ['apply_patch', ['apply_patch']],
      ['custom', ['apply_patch']],
      ['shell', ['run_command']],
    ]);
    const readOnly = await t.createSession({ profile: 'read-only' });
    expect((await tools('format=openai-responses', readOnly).expect(200)).body.builtins).toEqual([]);
  });

  it('strict=true: every tool satisfies strict mode, for the Responses and chat formats alike', async () => {
    const all = await t.admin(t.http.get('/v1/tools?format=openai-responses&strict=true')).expect(200);
    expect(all.body.tools.length).toBeGreaterThan(30);
    for (const tool of all.body.tools as ResponsesTool[]) {
      expect(tool.strict).toBe(true);
      expect(strictProblems(tool.parameters), tool.name).toEqual([]);
    }
    const chat = await t.admin(t.http.get('/v1/tools?format=openai&strict=true')).expect(200);
    expect(chat.body.tools[0].function.strict).toBe(true);
    expect(strictProblems(chat.body.tools[0].function.parameters)).toEqual([]);
  });

  it('runs function_call items written in strict mode (nulls for optional arguments, maps as pairs)', async () => {
    const output: ResponseOutputItem[] = [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'function_call',
        call_id: 'fc_1',
        name: 'run_command',
        arguments: JSON.stringify({
          command: 'echo "$GREETING" && cat src/app.py | head -1',
          env: [{ key: 'GREETING', value: 'hello' }],
          cwd: null,
          timeout_ms: null,
          stdin: null,
        }),
      },
      { type: 'function_call', call_id: 'fc_2', name: 'read_file', arguments: '{"path": "nope.txt"}' },
    ];
    const res = await batch({ output }).expect(200);
    const input: ResponseInputItem[] = (res.body as ResponsesAnswer).input;
    expect(input).toEqual([
      {
        type: 'function_call_output',
        call_id: 'fc_1',
        output: expect.stringContaining('hello\ndef main():'),
      },
      {
        type: 'function_call_output',
        call_id: 'fc_2',
        output: expect.stringMatching(/^Error FILE_NOT_FOUND: /),
      },
    ]);
  });

  it('runs apply_patch_call operations as V4A patches and answers apply_patch_call_output', async () => {
    const output: ResponseOutputItem[] = [
      {
        type: 'apply_patch_call',
        id: 'apc_1',
        call_id: 'ap_1',
        status: 'completed',
        operation: {
          type: 'update_file',
          path: 'src/app.py',
          diff: '@@ def main():\n-    print("hi")\n+    print("hello")\n',
        },
      },
      {
        type: 'apply_patch_call',
        id: 'apc_2',
        call_id: 'ap_2',
        status: 'completed',
        operation: { type: 'create_file', path: 'docs/new.md', diff: '+# New\n+\n+text\n' },
      },
      {
        type: 'apply_patch_call',
        id: 'apc_3',
        call_id: 'ap_3',
        status: 'completed',
        operation: { type: 'delete_file', path: 'old.txt' },
      },
      {
        type: 'apply_patch_call',
        id: 'apc_4',
        call_id: 'ap_4',
        status: 'completed',
        operation: { type: 'update_file', path: 'src/app.py', diff: '@@\n-    nothing like this\n+    x\n' },
      },
    ];
    const res = await batch({ output }).expect(200);
    const input: ResponseInputItem[] = (res.body as ResponsesAnswer).input;
    expect(input).toMatchObject([
      {
        type: 'apply_patch_call_output',
        call_id: 'ap_1',
        status: 'completed',
        output: expect.stringContaining('modified'),
      },
      { type: 'apply_patch_call_output', call_id: 'ap_2', status: 'completed' },
      { type: 'apply_patch_call_output', call_id: 'ap_3', status: 'completed' },
      {
        type: 'apply_patch_call_output',
        call_id: 'ap_4',
        status: 'failed',
        output: expect.stringContaining('Error PATCH_FAILED'),
      },
    ]);
    const read = await t.call(session, 'read_file', { path: 'src/app.py' }).expect(200);
    expect(read.body.data.content).toBe('def main():\n    print("hello")');
    expect((await t.call(session, 'read_file', { path: 'docs/new.md' })).body.data.content).toBe(
      '# New\n\ntext',
    );
    expect((await t.call(session, 'file_info', { path: 'old.txt' })).status).toBe(404);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&tool=apply_patch`)).expect(200);
    expect(audit.body.entries.map((e: { wireTool: string }) => e.wireTool)).toEqual([
      'openai-responses:apply_patch_call.update_file',
      'openai-responses:apply_patch_call.delete_file',
      'openai-responses:apply_patch_call.create_file',
      'openai-responses:apply_patch_call.update_file',
    ]);
  });

  it('runs each command of a shell_call in order and answers one shell_call_output', async () => {
    const output: ResponseOutputItem[] = [
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'sc_1',
        status: 'completed',
        environment: null,
        action: {
          commands: ['mkdir -p d && echo made', 'ls d; echo 0123456789abcdef', 'exit 3'],
          timeout_ms: 5000,
          max_output_length: 12,
        },
      },
    ];
    const res = await batch({ output }).expect(200);
    const input: ResponseInputItem[] = (res.body as ResponsesAnswer).input;
    expect(input).toEqual([
      {
        type: 'shell_call_output',
        call_id: 'sc_1',
        max_output_length: 12,
        output: [
          { stdout: 'made\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          { stdout: '0123456789ab', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 3 } },
        ],
      },
    ]);
    const audit = await t
      .admin(t.http.get(`/v1/audit?sessionId=${session.id}&tool=run_command&limit=3`))
      .expect(200);
    expect(audit.body.entries.map((e: { wireTool: string }) => e.wireTool)).toEqual(
      Array(3).fill('openai-responses:shell_call'),
    );
  });

  it('runs custom_tool_call items: free-form input for the one text parameter, or JSON', async () => {
    const patch = '*** Begin Patch\n*** Add File: custom.txt\n+made by a custom tool\n*** End Patch\n';
    const output: ResponseOutputItem[] = [
      { type: 'custom_tool_call', call_id: 'ct_1', name: 'apply_patch', input: patch },
      { type: 'custom_tool_call', call_id: 'ct_2', name: 'read_file', input: '{"path": "custom.txt"}' },
      { type: 'custom_tool_call', call_id: 'ct_3', name: 'edit_file', input: 'needs an object' },
    ];
    const res = await batch({ output }).expect(200);
    expect((res.body as ResponsesAnswer).input).toMatchObject([
      { type: 'custom_tool_call_output', call_id: 'ct_1', output: expect.stringContaining('added') },
      { type: 'custom_tool_call_output', call_id: 'ct_2', output: '1\tmade by a custom tool' },
      {
        type: 'custom_tool_call_output',
        call_id: 'ct_3',
        output: expect.stringMatching(/^Error VALIDATION_FAILED: edit_file takes a JSON object/),
      },
    ]);
  });

  it('refuses a body with no call items, and names a malformed item', async () => {
    const none = await batch({
      id: 'resp_1',
      object: 'response',
      output: [{ type: 'message', content: [] }],
    }).expect(400);
    expect(none.body.error.suggestion).toContain('function_call');
    const bad = await batch({
      output: [{ type: 'shell_call', call_id: 'x', action: { commands: [] } }],
    }).expect(400);
    expect(bad.body.error.message).toContain('/output[0]/action/commands');
  });

  it("counts a shell_call's commands against the batch limit of 100 calls", async () => {
    const shell = (i: number) => ({
      type: 'shell_call',
      call_id: `s${i}`,
      action: { commands: Array.from({ length: 20 }, () => 'true') },
    });
    const res = await batch({ output: Array.from({ length: 6 }, (_, i) => shell(i)) }).expect(413);
    expect(res.body.error).toMatchObject({ code: 'BODY_TOO_LARGE', details: { calls: 120, limit: 100 } });
  });

  it('a session without execute permission gets the refusal inside the shell output, not a failed batch', async () => {
    const reader = await t.createSession({ profile: 'read-write' });
    const res = await t.http
      .post(`/v1/sessions/${reader.id}/calls`)
      .set('authorization', `Bearer ${reader.token}`)
      .send({ output: [{ type: 'shell_call', call_id: 's', action: { commands: ['ls'] } }] })
      .expect(200);
    expect(res.body.input[0].output[0]).toEqual({
      stdout: '',
      stderr: expect.stringMatching(/^Error PERMISSION_DENIED: /),
      outcome: { type: 'exit', exit_code: 126 },
    });
  });
});
