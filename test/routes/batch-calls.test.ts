// POST /v1/sessions/{id}/calls: the three input formats answered in kind, order and concurrency,
// partial failures, limits and the audit trail.
import type Anthropic from '@anthropic-ai/sdk';
import type {
  ChatCompletionMessage,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicAnswer } from '../../src/protocols/anthropic.js';
import type { OpenAiAnswer } from '../../src/protocols/openai.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { slowRead, slowWrite } from './batch-tools.js';

// Compile-time proof that the answers are what the vendors' SDKs take as the next messages.
export const openAiMessagesFit = (answer: OpenAiAnswer): ChatCompletionToolMessageParam[] => answer.messages;
export const anthropicMessageFits = (answer: AnthropicAnswer): Anthropic.MessageParam => answer;

type Session = { id: string; token: string };

describe('POST /v1/sessions/{id}/calls', () => {
  let t: InjectApp;
  let session: Session;
  beforeAll(async () => {
    t = await injectApp({}, { tools: [...BUILTIN_TOOLS, slowRead, slowWrite] });
    session = await t.createSession({ profile: 'read-write', files: { 'notes.txt': 'one\ntwo\n' } });
  });
  afterAll(() => t.close());

  const batch = (body: unknown, as: Session = session) =>
    t.http
      .post(`/v1/sessions/${as.id}/calls`)
      .set('authorization', `Bearer ${as.token}`)
      .send(body as object);

  it('runs toolgate-format calls and returns data and text per call, in order', async () => {
    const res = await batch({
      calls: [
        { id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha\n' } },
        { name: 'read_file', arguments: { path: 'a.txt' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toMatchObject([
      { index: 0, id: 'w', name: 'write_file', success: true, data: { path: 'a.txt', created: true } },
      { index: 1, name: 'read_file', success: true, data: { content: 'alpha' }, text: '1\talpha' },
    ]);
    expect(res.body.results[0].callId).toMatch(/^call_/);
  });

  it('accepts an OpenAI assistant message as is and answers with role "tool" messages', async () => {
    const assistant: ChatCompletionMessage = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        {
          id: 'call_A',
          type: 'function',
          function: { name: 'write_file', arguments: JSON.stringify({ path: 'o.txt', content: 'x\ny\n' }) },
        },
        { id: 'call_B', type: 'function', function: { name: 'read_file', arguments: '{"path": "o.txt"' } },
        { id: 'call_C', type: 'function', function: { name: 'read_file', arguments: '{"path": "o.txt"}' } },
      ],
    };
    const res = await batch(assistant);
    expect(res.status).toBe(200);
    const messages: ChatCompletionToolMessageParam[] = res.body.messages;
    expect(messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_A'],
      ['tool', 'call_B'],
      ['tool', 'call_C'],
    ]);
    expect(messages[0].content).toBe('Created o.txt (4 bytes)');
    // The malformed call gets a clear error; the calls around it still ran.
    expect(messages[1].content).toMatch(/^Error INVALID_JSON: The arguments of read_file are not valid JSON/);
    expect(messages[1].content).toMatch(/Suggestion: /);
    expect(messages[2].content).toBe('1\tx\n2\ty');
  });

  it('accepts Anthropic content, ignores text blocks and answers with tool_result blocks', async () => {
    // Typed as the SDK's assistant content, so this is the shape a Messages API client holds.
    const content: Anthropic.ContentBlockParam[] = [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.txt' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'missing.txt' } },
      { type: 'tool_use', id: 'toolu_3', name: 'read_fille', input: { path: 'notes.txt' } },
    ];
    const res = await batch({ content });
    expect(res.status).toBe(200);
    const message: Anthropic.MessageParam = res.body;
    expect(message.role).toBe('user');
    expect(res.body.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '1\tone\n2\ttwo', is_error: false },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_2',
        content: expect.stringMatching(/^Error FILE_NOT_FOUND: No such file or directory: missing.txt/),
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_3',
        content: expect.stringMatching(/^Error TOOL_NOT_FOUND: .*\nSuggestion: Did you mean read_file/),
        is_error: true,
      },
    ]);
  });

  it('runs read-only calls at the same time: four 300 ms reads overlap', async () => {
    const started = performance.now();
    const res = await batch({
      calls: ['a', 'b', 'c', 'd'].map((label) => ({ name: 'slow_read', arguments: { ms: 300, label } })),
    });
    const wallMs = performance.now() - started;
    const runs = res.body.results.map((r: { data: { startedAt: number; endedAt: number } }) => r.data);
    // Every read started before any read ended: they all ran at once.
    expect(Math.max(...runs.map((r: { startedAt: number }) => r.startedAt))).toBeLessThan(
      Math.min(...runs.map((r: { endedAt: number }) => r.endedAt)),
    );
    expect(wallMs).toBeLessThan(4 * 300);
    expect(res.body.results.map((r: { data: { label: string } }) => r.data.label)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('runs a write after every earlier call and before every later one', async () => {
    const res = await batch({
      calls: [
        { name: 'slow_read', arguments: { ms: 150, label: 'r1' } },
        { name: 'slow_read', arguments: { ms: 50, label: 'r2' } },
        { name: 'slow_write', arguments: { ms: 100, label: 'w' } },
        { name: 'slow_read', arguments: { ms: 50, label: 'r3' } },
        { name: 'slow_read', arguments: { ms: 50, label: 'r4' } },
      ],
    });
    const [r1, r2, w, r3, r4] = res.body.results.map(
      (r: { data: { startedAt: number; endedAt: number } }) => r.data,
    );
    expect(r2.startedAt).toBeLessThan(r1.endedAt);
    expect(w.startedAt).toBeGreaterThanOrEqual(Math.max(r1.endedAt, r2.endedAt));
    expect(r3.startedAt).toBeGreaterThanOrEqual(w.endedAt);
    expect(r4.startedAt).toBeGreaterThanOrEqual(w.endedAt);
    expect(r4.startedAt).toBeLessThan(r3.endedAt);
  });

  it('reads see the writes that come before them in the batch, not the ones after', async () => {
    const res = await batch({
      calls: [
        { name: 'write_file', arguments: { path: 'v.txt', content: 'v1' } },
        { name: 'read_file', arguments: { path: 'v.txt' } },
        { name: 'write_file', arguments: { path: 'v.txt', content: 'v2' } },
        { name: 'read_file', arguments: { path: 'v.txt' } },
      ],
    });
    expect(res.body.results.map((r: { data: { content?: string } }) => r.data.content)).toEqual([
      undefined,
      'v1',
      undefined,
      'v2',
    ]);
  });

  it('refuses a call the session may not make, runs the rest, and audits each call with entry point batch', async () => {
    const reader = await t.createSession({ profile: 'read-only', files: { 'r.txt': 'r\n' } });
    const res = await batch(
      {
        calls: [
          { name: 'write_file', arguments: { path: 'r.txt', content: 'changed' } },
          { name: 'read_file', arguments: { path: 'r.txt' } },
          { name: 'read_file', arguments: { path: '../outside.txt' } },
        ],
      },
      reader,
    );
    expect(
      res.body.results.map((r: { success: boolean; error?: { code: string } }) => r.error?.code ?? 'ok'),
    ).toEqual(['PERMISSION_DENIED', 'ok', 'PATH_OUTSIDE_WORKSPACE']);
    expect(res.body.results[1].data.content).toBe('r');
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${reader.id}`));
    const rows = audit.body.entries as { callId: string; entryPoint: string; status: string; tool: string }[];
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.entryPoint === 'batch')).toBe(true);
    expect(new Set(rows.map((row) => row.callId))).toEqual(
      new Set(res.body.results.map((r: { callId: string }) => r.callId)),
    );
    expect(rows.find((row) => row.tool === 'write_file')?.status).toBe('refused');
  });

  it('answers a call that needs approval with APPROVAL_PENDING and its result URL, and goes on', async () => {
    const guarded = await t.createSession({
      profile: 'read-write',
      approval: ['write_file'],
      files: { 'g.txt': 'g\n' },
    });
    const res = await batch(
      {
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'write_file', arguments: '{"path":"g.txt","content":"new"}' },
          },
          { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"g.txt"}' } },
        ],
      },
      guarded,
    );
    expect(res.body.messages[0].content).toMatch(
      new RegExp(`^Error APPROVAL_PENDING: .*\\nSuggestion: .*GET /v1/sessions/${guarded.id}/calls/call_`),
    );
    expect(res.body.messages[1].content).toBe('1\tg');
  });

  it('refuses more than 100 calls with 413 and runs none of them', async () => {
    const calls = Array.from({ length: 101 }, (_, i) => ({
      name: 'write_file',
      arguments: { path: `many/${i}.txt`, content: '' },
    }));
    const res = await batch({ calls });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'BODY_TOO_LARGE', details: { calls: 101, limit: 100 } });
    const list = await t.call(session, 'list_directory', { path: '.' });
    expect(JSON.stringify(list.body.data)).not.toContain('many');
  });

  it.each([
    [
      {},
      /needs one of "calls", "tool_calls" \(OpenAI\), "output" \(OpenAI Responses\), "content" \(Anthropic\) or "parts" \(Gemini\)/,
    ],
    [{ calls: [], tool_calls: [] }, /only one format/],
    [{ toString: 1 }, /needs one of/],
    [{ calls: [] }, /no tool calls/],
    [{ content: [{ type: 'text', text: 'hi' }] }, /no tool calls/],
    [{ calls: [{ arguments: {} }] }, /Invalid toolgate batch/],
    [
      { tool_calls: [{ id: 'x', function: { name: 'read_file', arguments: { path: 'a' } } }] },
      /Invalid openai batch/,
    ],
    [{ content: [{ type: 'tool_use', name: 'read_file', input: {} }] }, /Invalid anthropic batch/],
  ])('answers a malformed body %j with 400 and a message naming the problem', async (body, message) => {
    const res = await batch(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toMatch(message);
  });

  it("answers 404 for another session's id and 401 without a token", async () => {
    const other = await t.createSession();
    const res = await batch(
      { calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      {
        id: other.id,
        token: session.token,
      },
    );
    expect(res.status).toBe(404);
    const anonymous = await t.http.post(`/v1/sessions/${session.id}/calls`).send({ calls: [] });
    expect(anonymous.status).toBe(401);
  });
});
