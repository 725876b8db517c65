import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';

describe('todo_write / todo_read', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('starts empty, replaces the list, assigns ids to new items and keeps given ones', async () => {
    const session = await t.createSession({ profile: 'read-only' });
    expect((await t.call(session, 'todo_read', {})).body.data).toEqual({ todos: [] });
    const first = await t.call(session, 'todo_write', {
      todos: [
        { content: 'Write the parser', status: 'in_progress', priority: 'high' },
        { id: 'docs', content: 'Document it', status: 'pending' },
      ],
    });
    expect(first.status).toBe(200);
    const [parser, docs] = first.body.data.todos;
    expect(parser).toEqual({
      id: expect.stringMatching(/^todo_/),
      content: 'Write the parser',
      status: 'in_progress',
      priority: 'high',
    });
    expect(docs).toEqual({ id: 'docs', content: 'Document it', status: 'pending' });

    const second = await t.call(session, 'todo_write', {
      todos: [{ id: parser.id, content: 'Write the parser', status: 'completed', priority: 'high' }],
    });
    expect(second.body.data.todos).toEqual([{ ...parser, status: 'completed' }]);
    expect((await t.call(session, 'todo_read', {})).body.data.todos).toEqual([
      { ...parser, status: 'completed' },
    ]);
  });

  it('keeps each session’s list to itself', async () => {
    const a = await t.createSession();
    const b = await t.createSession();
    await t.call(a, 'todo_write', { todos: [{ content: 'only a', status: 'pending' }] });
    expect((await t.call(b, 'todo_read', {})).body.data.todos).toEqual([]);
    const cross = await t.http
      .post(`/v1/sessions/${a.id}/tools/todo_read`)
      .set('authorization', `Bearer ${b.token}`)
      .send({});
    expect(cross.status).toBe(404);
  });

  it('rejects an unknown status, an extra field and duplicate ids with 400', async () => {
    const session = await t.createSession();
    const badStatus = await t.call(session, 'todo_write', { todos: [{ content: 'x', status: 'done' }] });
    expect(badStatus.status).toBe(400);
    const extra = await t.call(session, 'todo_write', {
      todos: [{ content: 'x', status: 'pending', due: 1 }],
    });
    expect(extra.status).toBe(400);
    const duplicate = await t.call(session, 'todo_write', {
      todos: [
        { id: 'same', content: 'x', status: 'pending' },
        { id: 'same', content: 'y', status: 'pending' },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.message).toContain('same');
  });

  it('renders the list as checkbox lines for an LLM', async () => {
    const session = await t.createSession();
    const res = await t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .send({
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: {
              name: 'todo_write',
              arguments: JSON.stringify({ todos: [{ id: 't1', content: 'Ship it', status: 'in_progress' }] }),
            },
          },
        ],
      });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('[~] Ship it  [t1]');
  });

  it('removes a session’s todos when the session is deleted', async () => {
    const session = await t.createSession();
    await t.call(session, 'todo_write', { todos: [{ content: 'gone soon', status: 'pending' }] });
    const count = async () =>
      (await t.app.services.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM todos WHERE session_id = ?', [
        session.id,
      ]))!.n;
    expect(await count()).toBe(1);
    expect((await t.admin(t.http.delete(`/v1/sessions/${session.id}`))).status).toBe(204);
    expect(await count()).toBe(0);
  });
});

describe('todo state across a restart', () => {
  it('survives closing and reopening the app on the same data dir', async () => {
    const dataDir = tempDir();
    const first = await injectApp({}, { dataDir });
    const session = await first.createSession();
    await first.call(session, 'todo_write', {
      todos: [{ id: 'keep', content: 'Persist me', status: 'pending' }],
    });
    await first.close({ keepData: true });
    const second = await injectApp({}, { dataDir });
    try {
      const read = await second.call(session, 'todo_read', {});
      expect(read.status).toBe(200);
      expect(read.body.data.todos).toEqual([{ id: 'keep', content: 'Persist me', status: 'pending' }]);
    } finally {
      await second.close();
    }
  });
});
