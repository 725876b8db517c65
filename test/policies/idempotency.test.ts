import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('Idempotency-Key', () => {
  let t: InjectApp;
  let s: { id: string; token: string };
  beforeAll(async () => {
    t = await injectApp();
    s = await t.createSession({ profile: 'read-write' });
  });
  afterAll(() => t.close());

  const write = (key: string, content: string) =>
    t.call(s, 'write_file', { path: 'counter.txt', content }).set('idempotency-key', key);

  it('replays the stored result without running the tool again', async () => {
    const first = await write('key-1', 'one');
    expect(first.status).toBe(200);
    expect(first.body.data.created).toBe(true);
    const replay = await write('key-1', 'one');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Had it run again, the file would have existed: created would be false.
    expect(replay.body.data).toEqual(first.body.data);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&tool=write_file`));
    expect(audit.body.entries.length).toBe(2);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const res = await write('key-1', 'two');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('replays a stored 4xx too, and concurrent repeats run the tool once', async () => {
    const missing = await t.call(s, 'read_file', { path: 'nope' }).set('idempotency-key', 'k-err');
    expect(missing.status).toBe(404);
    await t.call(s, 'write_file', { path: 'nope', content: 'now it exists' }).expect(200);
    const replay = await t.call(s, 'read_file', { path: 'nope' }).set('idempotency-key', 'k-err');
    expect(replay.status).toBe(404);

    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.call(s, 'write_file', { path: 'race.txt', content: 'r' }).set('idempotency-key', 'k-race'),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.data.created).length).toBe(5);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true').length).toBe(4);
  });

  it('keys are per session, and a malformed key is a 400', async () => {
    const other = await t.createSession({ profile: 'read-write' });
    const res = await t
      .call(other, 'write_file', { path: 'counter.txt', content: 'one' })
      .set('idempotency-key', 'key-1');
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const bad = await t.call(s, 'list_directory', {}).set('idempotency-key', 'has space');
    expect(bad.status).toBe(400);
  });

  it('keys expire', async () => {
    await write('key-exp', 'x').expect(200);
    const { changes: removed } = await t.app.services.db.run(
      "UPDATE idempotency_keys SET expires_at = 0 WHERE key = 'key-exp'",
    );
    expect(removed).toBe(1);
    const again = await write('key-exp', 'different body is fine now');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});
