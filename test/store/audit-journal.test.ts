import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, type AuditEntry } from '../../src/store/audit.js';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { tempDir } from '../helpers/app.js';

const entry = (n: number): AuditEntry => ({
  callId: `call_${n}`,
  ts: Date.now(),
  sessionId: 'ses_x',
  tool: 'read_file',
  category: 'filesystem',
  status: 'success',
  errorCode: null,
  httpStatus: 200,
  durationMs: 1,
  bytesIn: 10,
  bytesOut: 20,
  caller: 'session',
  entryPoint: 'rest',
  inputSummary: '{}',
});

describe('audit journal', () => {
  it('rows recorded but not yet committed survive a crash and are recovered once, torn line dropped', () => {
    const dir = tempDir();
    const dbFile = path.join(dir, 'db.sqlite');
    const journal = path.join(dir, 'audit.journal');
    const crashed = new AuditStore(openDatabase(dbFile, MIGRATIONS), journal);
    for (let n = 1; n <= 3; n++) crashed.record(entry(n));
    // The process "dies" here: nothing was committed, the journal holds the rows, plus a torn write.
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(3);
    appendFileSync(journal, '{"callId":"call_torn","ts":');

    const db = openDatabase(dbFile, MIGRATIONS);
    const restarted = new AuditStore(db, journal);
    const rows = restarted.query({ limit: 10 });
    expect(rows.map((r) => r.callId)).toEqual(['call_3', 'call_2', 'call_1']);
    expect(readFileSync(journal, 'utf8')).toBe('');
    // The dead instance's timer must not duplicate them if it ever fires: keys make inserts idempotent.
    crashed.flush();
    expect(restarted.query({ limit: 10 })).toHaveLength(3);
  });

  it('flushes on its own shortly after a call, and readers see rows at once', async () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'db.sqlite'), MIGRATIONS);
    const store = new AuditStore(db, path.join(dir, 'audit.journal'));
    store.record(entry(1));
    expect(store.query({ limit: 10 })).toHaveLength(1);
    store.record(entry(2));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const committed = db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number };
    expect(committed.n).toBe(2);
    store.close();
  });

  it('while SQLite refuses commits, holds at most its cap in memory and the rest in the journal, losing none', () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'db.sqlite'), MIGRATIONS);
    const journal = path.join(dir, 'audit.journal');
    const store = new AuditStore(db, journal, 10);
    // A database that refuses every audit insert, as a full disk would.
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON audit BEGIN SELECT RAISE(FAIL, 'disk full'); END");
    for (let n = 1; n <= 50; n++) store.record(entry(n));
    expect(() => store.flush()).toThrow(/disk full/);
    expect((store as unknown as { pending: unknown[] }).pending).toHaveLength(10);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(50);
    expect(store.droppedRows).toBe(0);

    db.exec('DROP TRIGGER refuse');
    store.flush();
    const rows = store.query({ limit: 100 });
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((row) => row.callId)).size).toBe(50);
    expect(readFileSync(journal, 'utf8')).toBe('');
    store.close();
  });
});
