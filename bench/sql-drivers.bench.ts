// The two SqlDatabase drivers side by side, in one run, on the statements the stores issue most: a point
// read by key, a one-row write (autocommit), and a transaction of 10 rows (how the audit recorder
// commits a batch). SQLite (a temp dir, synchronous=NORMAL) is the baseline; PostgreSQL (the server in
// BENCH_DATABASE_URL or TOOLGATE_TEST_DATABASE_URL, a schema of its own, dropped after) runs as
// configured (synchronous_commit=on: each commit waits for its WAL flush) and with
// synchronous_commit=off (SQLite NORMAL's counterpart: a crash of the database's machine may lose the
// last commits, a crash of the service loses nothing). Each line: operations/s and the ratio to SQLite.
// Loopback only. BENCH_SQL_OPS (default 2000) sets the size.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openSqlDatabase, type DatabaseChoice } from '../src/store/open.js';
import type { Migration } from '../src/store/sql.js';
import { fmt } from './lib.js';

const OPS = Number(process.env.BENCH_SQL_OPS ?? 2000);
const url = process.env.BENCH_DATABASE_URL ?? process.env.TOOLGATE_TEST_DATABASE_URL;
if (!url) {
  console.log('skipped: set BENCH_DATABASE_URL (or TOOLGATE_TEST_DATABASE_URL) to a loopback PostgreSQL');
  process.exit(0);
}
const host = new URL(url).hostname;
if (!['127.0.0.1', '::1', '[::1]', 'localhost'].includes(host)) throw new Error(`not loopback: ${host}`);

const TABLE: Migration[] = [
  {
    name: 'bench_0001',
    sql: 'CREATE TABLE rows (id INTEGER PRIMARY KEY AUTOINCREMENT, k TEXT NOT NULL, at INTEGER NOT NULL, ms REAL);',
  },
];

const rate = async (count: number, work: (i: number) => Promise<unknown>) => {
  const started = performance.now();
  for (let i = 0; i < count; i++) await work(i);
  return (count / (performance.now() - started)) * 1000;
};

async function measure(choice: DatabaseChoice) {
  const db = await openSqlDatabase(choice, TABLE);
  try {
    const write = await rate(OPS, (i) =>
      db.run('INSERT INTO rows (k, at, ms) VALUES (@k, @at, @ms)', { k: `k${i}`, at: Date.now(), ms: i / 7 }),
    );
    const read = await rate(OPS, (i) => db.get('SELECT id, k, at FROM rows WHERE id = ?', [i + 1]));
    const batch = await rate(OPS / 10, () =>
      db.transaction(async (tx) => {
        for (let j = 0; j < 10; j++) await tx.run('INSERT INTO rows (k, at) VALUES (?, ?)', ['b', j]);
      }),
    );
    return { read, write, batch };
  } finally {
    await db.close();
  }
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const schema = `bench_${process.pid}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-sql-'));
try {
  const inSchema = (options: string) => {
    const withOptions = new URL(url);
    withOptions.searchParams.set('options', `-c search_path=${schema} ${options}`.trim());
    return withOptions.href;
  };
  const runs: [string, DatabaseChoice][] = [
    ['SQLite (baseline)', { dataDir }],
    ['PostgreSQL', { dataDir, url: inSchema('') }],
    ['PostgreSQL, synchronous_commit=off', { dataDir, url: inSchema('-c synchronous_commit=off') }],
  ];
  let baseline: Awaited<ReturnType<typeof measure>> | undefined;
  for (const [name, choice] of runs) {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    const result = await measure(choice);
    baseline ??= result;
    const line = (key: keyof typeof result) =>
      `${key} ${fmt(result[key], 0)}/s (${fmt(result[key] / baseline![key])}×)`;
    console.log(`${name}: ${line('read')}, ${line('write')}, ${line('batch')} (batch = 10-row transaction)`);
  }
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
