// GET /v1/sessions/{id}/events: every call of the session as SSE (start, output chunks, end, error),
// heartbeats, Last-Event-ID resume; and Accept: text/event-stream on a tool call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { keepAlivePoster } from '../helpers/keep-alive.js';
import { readSse, type SseReader } from './events-client.js';
import { bwrapElseNone } from '../helpers/requires.js';

describe('activity stream and streamed calls', () => {
  let t: TestApp;
  let base: string;
  let s: { id: string; token: string };
  const readers: SseReader[] = [];

  const subscribe = async (
    session: { id: string; token: string },
    headers: Record<string, string> = {},
    query = '',
  ) => {
    const res = await fetch(`${base}/v1/sessions/${session.id}/events${query}`, {
      headers: { authorization: `Bearer ${session.token}`, ...headers },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = readSse(res);
    readers.push(reader);
    await new Promise<void>((resolve) => {
      const check = () => (reader.comments.length ? resolve() : setTimeout(check, 10));
      check();
    });
    return reader;
  };

  /** POST run_command with Accept: text/event-stream. */
  const streamRunCommand = (input: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${base}/v1/sessions/${s.id}/tools/run_command`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(input),
      signal,
    });

  beforeAll(async () => {
    t = await startApp({ TOOLGATE_SANDBOX: bwrapElseNone() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    s = await t.createSession({ profile: 'execute' });
  });
  afterAll(async () => {
    for (const reader of readers) reader.close();
    await t.close();
  });

  it('streams start, output while the command runs, and end with the result envelope', async () => {
    const res = await streamRunCommand({
      command: 'echo one; sleep 0.6; echo two >&2; sleep 0.1; echo three',
    });
    expect(res.status).toBe(200);
    const reader = readSse(res);
    readers.push(reader);
    await reader.done;
    const names = reader.events.map((e) => e.event);
    expect(names[0]).toBe('start');
    expect(names.at(-1)).toBe('end');
    const outputs = reader.events.filter((e) => e.event === 'output');
    expect(outputs.map((e) => e.data)).toEqual([
      { stream: 'stdout', chunk: 'one\n' },
      { stream: 'stderr', chunk: 'two\n' },
      { stream: 'stdout', chunk: 'three\n' },
    ]);
    const end = reader.events.at(-1)!;
    // The first chunk arrived while the command was still sleeping.
    expect(end.at - outputs[0].at).toBeGreaterThan(400);
    expect(end.data).toMatchObject({
      success: true,
      status: 200,
      callId: reader.events[0].data.callId,
      data: { exitCode: 0, stdout: 'one\nthree\n', stderr: 'two\n' },
    });
  });

  it('ends a streamed call that fails with the error envelope', async () => {
    const res = await streamRunCommand({ command: 'true', cwd: '../outside' });
    const reader = readSse(res);
    await reader.done;
    expect(reader.events.map((e) => e.event)).toEqual(['start', 'end']);
    expect(reader.events[1].data).toMatchObject({
      success: false,
      status: 403,
      error: { code: 'PATH_OUTSIDE_WORKSPACE' },
    });
  });

  it('kills the command when the streaming client disconnects', async () => {
    const controller = new AbortController();
    const res = await streamRunCommand(
      { command: 'echo ready; sleep 30', timeout_ms: 60_000 },
      controller.signal,
    );
    const reader = readSse(res);
    await reader.waitFor((e) => e.event === 'output');
    const jobId = t.app.services.jobs.list(s.id).find((job) => job.running)!.id;
    controller.abort();
    const job = t.app.services.jobs.get(s.id, jobId);
    await Promise.race([job.done, new Promise((r) => setTimeout(r, 3000))]);
    expect(job.status).toBe('killed');
    expect(job.killReason).toBe('cancelled');
  });

  it('kills the command when a plain JSON client disconnects, on a connection that made calls before', async () => {
    // One keep-alive connection: the client-gone hook is the connection's, shared by its calls.
    const poster = keepAlivePoster(`${base}/v1/sessions/${s.id}/tools/run_command`, {
      authorization: `Bearer ${s.token}`,
    });
    expect(await poster.answered({ command: 'echo first' })).toBe(200);
    expect(await poster.answered({ command: 'echo second' })).toBe(200);
    const req = poster.send({ command: 'sleep 30', timeout_ms: 60_000 });
    req.on('error', () => undefined);
    let job;
    while (!(job = t.app.services.jobs.list(s.id).find((j) => j.running && j.command === 'sleep 30')))
      await new Promise((resolve) => setTimeout(resolve, 20));
    req.destroy();
    const running = t.app.services.jobs.get(s.id, job.id);
    await Promise.race([running.done, new Promise((resolve) => setTimeout(resolve, 5000))]);
    expect(running.status).toBe('killed');
    expect(running.killReason).toBe('cancelled');
    poster.close();
  });

  it('publishes every call of the session: start, output chunks, end, and errors', async () => {
    const events = await subscribe(s);
    const ok = await t.call(s, 'run_command', { command: 'echo streamed' });
    const bad = await t.call(s, 'read_file', { path: 'missing.txt' });
    await events.waitFor((e) => e.event === 'tool_call_end' && e.data.callId === bad.body.callId);
    const mine = events.events.filter((e) => [ok.body.callId, bad.body.callId].includes(e.data.callId));
    expect(mine.map((e) => e.event)).toEqual([
      'tool_call_start',
      'tool_output_chunk',
      'tool_call_end',
      'tool_call_start',
      'error',
      'tool_call_end',
    ]);
    expect(mine[1].data).toMatchObject({ tool: 'run_command', stream: 'stdout', chunk: 'streamed\n' });
    expect(mine[2].data).toMatchObject({ success: true });
    expect(mine[4].data.error.code).toBe('FILE_NOT_FOUND');
    const ids = mine.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('shows calls from the batch entry point too', async () => {
    const events = await subscribe(s);
    const batch = await t.http
      .post(`/v1/sessions/${s.id}/calls`)
      .set('authorization', `Bearer ${s.token}`)
      .send({ calls: [{ name: 'list_directory', arguments: {} }] });
    expect(batch.status).toBe(200);
    const start = await events.waitFor(
      (e) => e.event === 'tool_call_start' && e.data.tool === 'list_directory',
    );
    expect(start.data.entryPoint).toBe('batch');
  });

  it('resumes after Last-Event-ID from the buffer', async () => {
    const first = await subscribe(s);
    const a = await t.call(s, 'run_command', { command: 'echo a' });
    const endA = await first.waitFor((e) => e.event === 'tool_call_end' && e.data.callId === a.body.callId);
    first.close();
    const b = await t.call(s, 'run_command', { command: 'echo b' });
    const resumed = await subscribe(s, { 'last-event-id': endA.id! });
    const endB = await resumed.waitFor((e) => e.event === 'tool_call_end' && e.data.callId === b.body.callId);
    expect(Number(endB.id)).toBeGreaterThan(Number(endA.id));
    // Nothing at or before the given id is replayed.
    expect(resumed.events.every((e) => Number(e.id) > Number(endA.id))).toBe(true);
    expect(resumed.events.some((e) => e.event === 'tool_output_chunk' && e.data.chunk === 'b\n')).toBe(true);
  });

  it('sends heartbeat comments', async () => {
    const events = await subscribe(s, {}, '?heartbeat_ms=1000');
    await new Promise((r) => setTimeout(r, 1200));
    expect(events.comments).toContain('heartbeat');
  });

  it("refuses another session's stream and an unauthenticated one", async () => {
    const other = await t.createSession({ profile: 'read-only' });
    const res = await fetch(`${base}/v1/sessions/${s.id}/events`, {
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(res.status).toBe(404);
    const anonymous = await fetch(`${base}/v1/sessions/${s.id}/events`);
    expect(anonymous.status).toBe(401);
  });
});

describe('activity stream on shutdown', () => {
  it('ends open activity streams when the app closes', async () => {
    const t = await startApp({ TOOLGATE_SANDBOX: 'none' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const s = await t.createSession({ profile: 'read-only' });
    const res = await fetch(`${base}/v1/sessions/${s.id}/events`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    const reader = readSse(res);
    const started = Date.now();
    await t.close();
    await reader.done;
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
