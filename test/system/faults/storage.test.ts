// Storage faults other than a full disk: the database write-locked by another process. The service
// answers every call with a clear envelope (never a 500), keeps serving, and recovers by itself once
// the fault is gone. (A runtime killed mid-call: test/runtime/runtime.test.ts.)
import path from 'node:path';
import { Database } from '../../../src/store/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';

describe('the database write-locked by a second process (SQLITE_BUSY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('gives 503 STORAGE_UNAVAILABLE with a suggestion while locked, and works again after', async () => {
    const s = await t.createSession({ files: { 'a.txt': 'a\n' } });
    const other = new Database(path.join(t.dataDir, 'toolgate.db'));
    other.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const ready = await t.http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database.ok).toBe(false);
      // Creating a session needs a write: after the busy timeout it is refused, clearly.
      const created = await t.admin(t.http.post('/v1/sessions')).send({});
      expect(created.status).toBe(503);
      expect(created.body.error.code).toBe('STORAGE_UNAVAILABLE');
      expect(created.body.error.suggestion).toMatch(/Retry/);
      expect((await t.http.get('/healthz')).status).toBe(200);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    // Ready again by itself: at once for the database; the event-loop check may still count the busy
    // waits (better-sqlite3 waits out busy_timeout synchronously) until they leave its 10 s window.
    let ready = await t.http.get('/readyz');
    for (let i = 0; i < 100 && ready.status !== 200; i++) {
      expect(ready.body.checks.database.ok).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      ready = await t.http.get('/readyz');
    }
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    const read = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(read.status).toBe(200);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
    expect(audit.status).toBe(200);
  }, 60_000);
});
