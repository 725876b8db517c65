import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, type AuditEntry } from '../../src/store/audit.js';
import { openSqlDatabase } from '../../src/store/open.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { tempDir } from '../helpers/app.js';

// The journal's own tests: SQLite in a temp dir (the trigger below that refuses inserts is SQLite's).
const openDb = (dataDir: string) => openSqlDatabase({ dataDir }, MIGRATIONS);

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
  it('rows recorded but not yet committed survive a crash and are recovered once, torn line dropped', async () => {
    const dir = tempDir();
    const journal = path.join(dir, 'audit.journal');
    const crashedDb = await openDb(dir);
    const crashed = await AuditStore.open(crashedDb, journal);
    for (let n = 1; n <= 3; n++) crashed.record(entry(n));
    // The process "dies" here: nothing was committed, the journal holds the rows, plus a torn write.
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(3);
    appendFileSync(journal, '{"callId":"call_torn","ts":');

    const db = await openDb(dir);
    const restarted = await AuditStore.open(db, journal);
    const rows = await restarted.query({ limit: 10 });
    expect(rows.map((r) => r.callId)).toEqual(['call_3', 'call_2', 'call_1']);
    expect(readFileSync(journal, 'utf8')).toBe('');
    // The dead instance's timer must not duplicate them if it ever fires: keys make inserts idempotent.
    await crashed.flush();
    expect(await restarted.query({ limit: 10 })).toHaveLength(3);
    await restarted.close();
    await db.close();
    await crashedDb.close();
  });

  it('flushes on its own shortly after a call, and readers see rows at once', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    const store = await AuditStore.open(db, path.join(dir, 'audit.journal'));
    store.record(entry(1));
    expect(await store.query({ limit: 10 })).toHaveLength(1);
    store.record(entry(2));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const committed = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit');
    expect(committed?.n).toBe(2);
    await store.close();
    await db.close();
  });

  it('while SQLite refuses commits, holds at most its cap in memory and the rest in the journal, losing none', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    const journal = path.join(dir, 'audit.journal');
    const store = await AuditStore.open(db, journal, 10);
    // A database that refuses every audit insert, as a full disk would.
    await db.exec("CREATE TRIGGER refuse BEFORE INSERT ON audit BEGIN SELECT RAISE(FAIL, 'disk full'); END");
    for (let n = 1; n <= 50; n++) store.record(entry(n));
    await expect(store.flush()).rejects.toThrow(/disk full/);
    expect((store as unknown as { pending: unknown[] }).pending).toHaveLength(10);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(50);
    expect(store.droppedRows).toBe(0);

    await db.exec('DROP TRIGGER refuse');
    await store.flush();
    const rows = await store.query({ limit: 100 });
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((row) => row.callId)).size).toBe(50);
    expect(readFileSync(journal, 'utf8')).toBe('');
    await store.close();
    await db.close();
  });

  it('rows recorded while a commit runs wait for the next one and stay in the journal until then', async () => {
    const dir = tempDir();
    const db = await openDb(dir);
    const journal = path.join(dir, 'audit.journal');
    const store = await AuditStore.open(db, journal);
    for (let n = 1; n <= 3; n++) store.record(entry(n));
    const first = store.flush();
    // Recorded after the first commit took its batch: it must be neither lost nor cut from the journal.
    store.record(entry(4));
    const second = store.flush();
    await Promise.all([first, second]);
    expect((await store.query({ limit: 10 })).map((row) => row.callId)).toEqual([
      'call_4',
      'call_3',
      'call_2',
      'call_1',
    ]);
    expect(readFileSync(journal, 'utf8')).toBe('');
    await store.close();
    await db.close();
  });
});
