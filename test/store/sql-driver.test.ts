// The SqlDatabase contract (src/store/sql.ts), held to by both drivers: the same cases run on SQLite and
// on PostgreSQL (the server TOOLGATE_TEST_DATABASE_URL names; skipped, and said, without one). The
// tables come from a migration written for SQLite, so the PostgreSQL cases also prove its translation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromStorageError } from '../../src/lib/errors.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { openSqlDatabase } from '../../src/store/open.js';
import type { Migration, SqlDatabase } from '../../src/store/sql.js';
import { openTestDatabase, type Engine, type TestDatabase } from '../helpers/database.js';
import { freshSchema } from '../helpers/postgres.js';
import { needs } from '../helpers/requires.js';

const TABLES: Migration[] = [
  {
    name: 'test_0001_items',
    sql: `
      CREATE TABLE items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        note TEXT,
        at INTEGER,
        ratio REAL,
        data BLOB
      );
      CREATE UNIQUE INDEX items_name ON items (name);
      CREATE INDEX items_noted ON items (lower(name) || '?', at DESC) WHERE note IS NOT NULL;
      CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
      CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  // A column named like a type: only declared types are translated.
  { name: 'test_0002_blob_column', sql: 'ALTER TABLE items ADD COLUMN blob TEXT;' },
];

const ENGINES: Engine[] = ['sqlite', 'postgres'];
/** Asked once, so a machine without a server prints one line for the whole file. */
const noPostgres = needs('postgres', 'the PostgreSQL cases of the SQL driver test');
const skip = (engine: Engine) => engine === 'postgres' && noPostgres;

describe.each(ENGINES)('SqlDatabase on %s', (engine) => {
  describe.skipIf(skip(engine))('contract', () => {
    let test: TestDatabase;
    let db: SqlDatabase;
    beforeEach(async () => {
      test = await openTestDatabase(TABLES, engine);
      db = test.db;
    });
    afterEach(() => test.remove());

    it('binds positional and named parameters, a name used twice included', async () => {
      await db.run('INSERT INTO items (name, note) VALUES (?, ?)', ['a', 'first']);
      await db.run('INSERT INTO items (name, note) VALUES (@name, @note)', { name: 'b', note: 'b' });
      expect(await db.get('SELECT name, note FROM items WHERE name = ?', ['a'])).toEqual({
        name: 'a',
        note: 'first',
      });
      expect(
        await db.all('SELECT name FROM items WHERE name = @same AND note = @same', { same: 'b' }),
      ).toEqual([{ name: 'b' }]);
      expect(await db.get('SELECT name FROM items WHERE name = ?', ['nobody'])).toBeUndefined();
      await expect(db.run('INSERT INTO items (name) VALUES (@name)', {})).rejects.toThrow(/name/);
    });

    it('leaves ? and @ inside string literals alone', async () => {
      await db.run("INSERT INTO items (name, note) VALUES (?, 'what? @where')", ['q']);
      expect(await db.get('SELECT note FROM items WHERE name = @name', { name: 'q' })).toEqual({
        note: 'what? @where',
      });
    });

    it('stores NULL for null and for an undefined named value', async () => {
      await db.run('INSERT INTO items (name, note, at) VALUES (?, ?, ?)', ['n', null, null]);
      await db.run('INSERT INTO items (name, note) VALUES (@name, @note)', { name: 'u', note: undefined });
      expect(await db.all('SELECT name, note, at FROM items ORDER BY name')).toEqual([
        { name: 'n', note: null, at: null },
        { name: 'u', note: null, at: null },
      ]);
    });

    it('gives integers back as numbers: millisecond timestamps, 2^53 - 1, counts and sums', async () => {
      const now = Date.now();
      await db.run('INSERT INTO items (name, at, ratio) VALUES (?, ?, ?)', ['t', now, 1.5]);
      await db.run('INSERT INTO items (name, at) VALUES (?, ?)', ['max', Number.MAX_SAFE_INTEGER]);
      await db.run('INSERT INTO items (name, at) VALUES (?, ?)', ['big', 2n ** 40n]);
      expect(await db.get('SELECT at, ratio FROM items WHERE name = ?', ['t'])).toEqual({
        at: now,
        ratio: 1.5,
      });
      expect(await db.get('SELECT at FROM items WHERE name = ?', ['max'])).toEqual({
        at: Number.MAX_SAFE_INTEGER,
      });
      expect(await db.get('SELECT at FROM items WHERE name = ?', ['big'])).toEqual({ at: 2 ** 40 });
      const totals = await db.get<{ n: unknown; total: unknown }>(
        "SELECT COUNT(*) AS n, SUM(at) AS total FROM items WHERE name IN ('t', 'big')",
      );
      expect(totals).toEqual({ n: 2, total: now + 2 ** 40 });
    });

    it('round-trips Buffers, every byte value and the empty one', async () => {
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await db.run('INSERT INTO items (name, data) VALUES (?, ?)', ['all', bytes]);
      await db.run('INSERT INTO items (name, data) VALUES (?, ?)', ['empty', Buffer.alloc(0)]);
      const rows = await db.all<{ data: Buffer }>('SELECT data FROM items ORDER BY name');
      expect(rows.map((row) => Buffer.isBuffer(row.data))).toEqual([true, true]);
      expect(rows[0]!.data.equals(bytes)).toBe(true);
      expect(rows[1]!.data.length).toBe(0);
    });

    it('counts the rows a statement changed, and returns rows with RETURNING', async () => {
      const inserted = await db.all<{ id: number }>(
        "INSERT INTO items (name) VALUES ('r1'), ('r2'), ('r3') RETURNING id",
      );
      expect(inserted.map((row) => row.id)).toEqual([1, 2, 3]);
      expect(await db.run("UPDATE items SET note = 'x' WHERE id >= ?", [2])).toEqual({ changes: 2 });
      expect(await db.run('DELETE FROM items WHERE id = ?', [99])).toEqual({ changes: 0 });
      expect(await db.all("INSERT INTO items (name) VALUES ('r4') RETURNING id, name")).toEqual([
        { id: 4, name: 'r4' },
      ]);
    });

    it('upserts with ON CONFLICT, and DO NOTHING changes no row', async () => {
      const upsert = 'INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v';
      await db.run(upsert, ['k', 'one']);
      expect(await db.run(upsert, ['k', 'two'])).toEqual({ changes: 1 });
      expect(
        await db.run('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO NOTHING', ['k', 'three']),
      ).toEqual({ changes: 0 });
      expect(await db.all('SELECT k, v FROM kv')).toEqual([{ k: 'k', v: 'two' }]);
    });

    it('commits a transaction whose function resolves, and returns its value', async () => {
      const value = await db.transaction(async (tx) => {
        await tx.run("INSERT INTO items (name) VALUES ('kept')");
        return (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM items'))!.n;
      });
      expect(value).toBe(1);
      expect(await db.all('SELECT name FROM items')).toEqual([{ name: 'kept' }]);
    });

    it('rolls back a transaction whose function rejects, passing the rejection on', async () => {
      const reason = new Error('changed my mind');
      await expect(
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO items (name) VALUES ('gone')");
          throw reason;
        }),
      ).rejects.toBe(reason);
      // A statement that fails inside is rolled back too, and the connection stays usable: more failing
      // transactions than the pool has connections, then a good one.
      for (let i = 0; i < 12; i++) {
        await expect(
          db.transaction(async (tx) => {
            await tx.run("INSERT INTO items (name) VALUES ('dup')");
            await tx.run("INSERT INTO items (name) VALUES ('dup')");
          }),
        ).rejects.toThrow(/unique/i);
      }
      expect(await db.all('SELECT name FROM items')).toEqual([]);
      await db.transaction((tx) => tx.run("INSERT INTO items (name) VALUES ('after')"));
      expect(await db.all('SELECT name FROM items')).toEqual([{ name: 'after' }]);
    });

    it('runs concurrent transactions without losing an update, and never shows rolled-back rows', async () => {
      await db.run('INSERT INTO counter (id, n) VALUES (1, 0)');
      const seen = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          db.transaction(async (tx) => {
            const row = await tx.get<{ n: number }>('UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n');
            await tx.run('INSERT INTO items (name, at) VALUES (?, ?)', [`c${i}`, row!.n]);
            return row!.n;
          }),
        ),
      );
      expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await db.get('SELECT n FROM counter')).toEqual({ n: 10 });

      let inserted!: () => void;
      const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
      const doomed = db.transaction(async (tx) => {
        await tx.run("INSERT INTO items (name) VALUES ('uncommitted')");
        inserted();
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('rolled back');
      });
      await insertedNow;
      const outside = await db.get("SELECT COUNT(*) AS n FROM items WHERE name = 'uncommitted'");
      await expect(doomed).rejects.toThrow('rolled back');
      expect(outside).toEqual({ n: 0 });
    });

    it('applies each migration once: a second opener finds them applied and the rows there', async () => {
      await db.run("INSERT INTO kv (k, v) VALUES ('a', 'b')");
      const again = await openSqlDatabase(test.choice, TABLES);
      try {
        expect(await again.all('SELECT name FROM schema_migrations ORDER BY name')).toEqual([
          { name: 'test_0001_items' },
          { name: 'test_0002_blob_column' },
        ]);
        expect(await again.all('SELECT k, v FROM kv')).toEqual([{ k: 'a', v: 'b' }]);
      } finally {
        await again.close();
      }
    });

    it('runs several statements with exec, and says it can take writes', async () => {
      await db.exec("INSERT INTO kv (k, v) VALUES ('e1', '1'); INSERT INTO kv (k, v) VALUES ('e2', '2')");
      expect(await db.get('SELECT COUNT(*) AS n FROM kv')).toEqual({ n: 2 });
      await expect(db.checkWritable()).resolves.toBeUndefined();
      expect(db.dialect).toBe(engine);
      // Closing twice is harmless (the harness's close and a test's own may both run).
      await db.close();
    });
  });
});

describe.skipIf(noPostgres)('migrations on PostgreSQL', () => {
  it('applies the whole MIGRATIONS list once when three replicas start at the same moment', async () => {
    const schema = await freshSchema();
    const openers = await Promise.allSettled(
      [1, 2, 3].map(() => openSqlDatabase({ dataDir: '/nonexistent', url: schema.url }, MIGRATIONS)),
    );
    const opened = openers.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      expect(openers.filter((result) => result.status === 'rejected')).toEqual([]);
      const db = opened[0]!;
      const applied = await db.all<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((m) => m.name).sort());
      // The translated tables take the rows the stores write: identity ids, 64-bit times, a `blob` column.
      const now = Date.now();
      await db.run(
        `INSERT INTO sessions (id, token_hash, profile, permissions, exclude_tools, rate_limits, approval,
           metadata, created_at, expires_at) VALUES (?, ?, 'full', '[]', '[]', '{}', '[]', '{}', ?, ?)`,
        ['s1', 'h1', now, now + 1000],
      );
      const history = await db.all(
        `INSERT INTO file_history (session_id, change_id, tool, path, kind, blob, bytes, created_at)
         VALUES (?, 'c', 'write_file', 'a.txt', 'created', 'sha', 3, ?) RETURNING id, created_at`,
        ['s1', now],
      );
      expect(history).toEqual([{ id: 1, created_at: now }]);
    } finally {
      await Promise.all(opened.map((db) => db.close()));
      await schema.drop();
    }
  });
});

describe.skipIf(noPostgres)('PostgreSQL connection faults', () => {
  it('drops a connection the server ended, answers 503 for it, and goes on with a new one', async () => {
    const test = await openTestDatabase(TABLES, 'postgres');
    try {
      // The server ends this transaction's own connection (as a restart or a failover would).
      const failure = await test.db
        .transaction((tx) => tx.get('SELECT pg_terminate_backend(pg_backend_pid())'))
        .catch((err: unknown) => err);
      expect(fromStorageError(failure)).toMatchObject({ code: 'STORAGE_UNAVAILABLE', statusCode: 503 });
      const direct = await test.db.get('SELECT pg_terminate_backend(pg_backend_pid())').catch((err) => err);
      expect(fromStorageError(direct)).toMatchObject({ code: 'STORAGE_UNAVAILABLE', statusCode: 503 });
      for (let i = 0; i < 12; i++) {
        await test.db.transaction((tx) => tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', [`k${i}`, 'v']));
      }
      expect(await test.db.get('SELECT COUNT(*) AS n FROM kv')).toEqual({ n: 12 });
    } finally {
      await test.remove();
    }
  });
});

describe('openSqlDatabase', () => {
  it('names the PostgreSQL server it cannot reach, never the password', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const opening = openSqlDatabase(
      { dataDir: '/nonexistent', url: 'postgres://app:pa55word-x@127.0.0.1:1/toolgate' },
      [],
    );
    await expect(opening).rejects.toThrow(
      /^cannot connect to PostgreSQL at 127\.0\.0\.1:1\/toolgate as app: .*ECONNREFUSED/,
    );
    await expect(opening).rejects.not.toThrow(/pa55word/);
  });

  it('refuses a URL that is not postgres:// or postgresql://', async () => {
    await expect(openSqlDatabase({ dataDir: '/nonexistent', url: 'mysql://db/x' }, [])).rejects.toThrow(
      /postgres:\/\/ or postgresql:\/\//,
    );
  });
});
