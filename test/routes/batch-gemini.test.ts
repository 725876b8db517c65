// POST /v1/sessions/{id}/calls in Gemini format: the model's Content (as @google/genai returns it in
// candidates[0].content) posted as is, answered with a user Content of functionResponse parts.
import type { Content } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeminiAnswer } from '../../src/protocols/gemini.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

// Compile-time proof that the answer is what the Gemini SDK takes as the next content of `contents`.
export const geminiContentFits = (answer: GeminiAnswer): Content => answer;

type Session = { id: string; token: string };

describe('POST /v1/sessions/{id}/calls (Gemini)', () => {
  let t: TestApp;
  let session: Session;
  beforeAll(async () => {
    t = await startApp({}, { tools: BUILTIN_TOOLS });
    session = await t.createSession({ profile: 'read-write', files: { 'notes.txt': 'one\ntwo\n' } });
  });
  afterAll(() => t.close());

  const batch = (body: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/sessions/${session.id}/calls`,
      headers: { authorization: `Bearer ${session.token}` },
      payload: body as object,
    });

  it('runs the functionCall parts of a model Content in order and answers with functionResponse parts', async () => {
    const content: Content = {
      role: 'model',
      parts: [
        { text: 'Let me write, then read.', thought: true },
        {
          functionCall: { id: 'fc_1', name: 'write_file', args: { path: 'g.txt', content: 'x\ny\n' } },
          thoughtSignature: 'c2lnbmF0dXJl',
        },
        { functionCall: { name: 'read_file', args: { path: 'g.txt' } } },
        { functionCall: { id: 'fc_3', name: 'read_file', args: { path: 'missing.txt' } } },
        { functionCall: { id: 'fc_4', name: 'read_fille', args: { path: 'g.txt' } } },
      ],
    };
    const res = await batch(content);
    expect(res.statusCode).toBe(200);
    const next: Content = res.json();
    expect(next).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'fc_1',
            name: 'write_file',
            response: { output: 'Created g.txt (4 bytes)' },
          },
        },
        // Gemini often sends calls without ids: the answer then matches by name and order.
        { functionResponse: { name: 'read_file', response: { output: '1\tx\n2\ty' } } },
        {
          functionResponse: {
            id: 'fc_3',
            name: 'read_file',
            response: {
              error: expect.stringMatching(/^Error FILE_NOT_FOUND: No such file or directory: missing.txt/),
            },
          },
        },
        {
          functionResponse: {
            id: 'fc_4',
            name: 'read_fille',
            response: {
              error: expect.stringMatching(/^Error TOOL_NOT_FOUND: .*\nSuggestion: Did you mean read_file/),
            },
          },
        },
      ],
    });
    // The answer continues the conversation as is: contents = [...history, content, next].
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Make g.txt' }] }, content, next];
    expect(contents).toHaveLength(3);
  });

  it('audits every call on its own with entry point batch', async () => {
    const reader = await t.createSession({ profile: 'read-only', files: { 'r.txt': 'r\n' } });
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/sessions/${reader.id}/calls`,
      headers: { authorization: `Bearer ${reader.token}` },
      payload: {
        parts: [
          { functionCall: { name: 'write_file', args: { path: 'r.txt', content: 'changed' } } },
          { functionCall: { name: 'read_file', args: { path: 'r.txt' } } },
        ],
      },
    });
    const parts = (res.json() as GeminiAnswer).parts;
    expect(parts.map((part) => Object.keys(part.functionResponse.response)[0])).toEqual(['error', 'output']);
    expect(JSON.stringify(parts[0])).toContain('Error PERMISSION_DENIED');
    const audit = await t.app.inject({
      method: 'GET',
      url: `/v1/audit?sessionId=${reader.id}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const rows = audit.json().entries as { entryPoint: string; status: string; tool: string }[];
    expect(rows.map((row) => [row.tool, row.entryPoint, row.status]).sort()).toEqual([
      ['read_file', 'batch', 'success'],
      ['write_file', 'batch', 'refused'],
    ]);
  });

  it('refuses more than 100 functionCall parts with 413 and runs none of them', async () => {
    const parts = Array.from({ length: 101 }, (_, i) => ({
      functionCall: { name: 'write_file', args: { path: `many/${i}.txt`, content: '' } },
    }));
    const res = await batch({ role: 'model', parts });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'BODY_TOO_LARGE', details: { calls: 101, limit: 100 } });
    const list = await t.call(session, 'list_directory', { path: '.' });
    expect(JSON.stringify(list.body.data)).not.toContain('many');
  });

  it.each([
    [{ parts: [{ text: 'Nothing to do.' }] }, /no tool calls/],
    [{ parts: [{ functionCall: { args: {} } }] }, /Invalid gemini batch: \/functionCall\[0\]\/functionCall/],
    [{ parts: [{ functionCall: { name: '' } }] }, /Invalid gemini batch/],
    [{ parts: {} }, /Invalid gemini batch: \/parts/],
    [{ parts: [], content: [] }, /only one format/],
  ])('answers a malformed body %j with 400 and a message naming the problem', async (body, message) => {
    const res = await batch(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_FAILED');
    expect(res.json().error.message).toMatch(message);
  });
});
