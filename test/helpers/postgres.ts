// The tests' PostgreSQL: the server TOOLGATE_TEST_DATABASE_URL names (.ci/run starts Debian's cluster on
// loopback and sets it), with a fresh schema for each app or store under test, so parallel test files
// never see each other's rows. A schema's URL sets search_path in the connection's startup options;
// every schema made here is dropped when its test file ends (test/setup-temp-dirs.ts), if not sooner.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server for PostgreSQL tests (a role that may create schemas in its database), or undefined. */
export const testDatabaseUrl = (): string | undefined => process.env.TOOLGATE_TEST_DATABASE_URL || undefined;

/** Whether this run's apps and stores run on PostgreSQL (the `postgres` vitest project sets it). */
export const onPostgres = (): boolean => process.env.TOOLGATE_TEST_POSTGRES === '1';

/** Test traffic stays on this machine: the URL must name a loopback address or a Unix socket. */
function loopbackUrl(): string {
  const url = testDatabaseUrl();
  if (!url) throw new Error('TOOLGATE_TEST_DATABASE_URL is not set (see .ci/run)');
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || parsed.searchParams.get('host') || '';
  if (!['127.0.0.1', '::1', 'localhost'].includes(host) && !host.startsWith('/')) {
    throw new Error(`TOOLGATE_TEST_DATABASE_URL must name a loopback PostgreSQL, not ${host}`);
  }
  return url;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: loopbackUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  readonly name: string;
  /** The test server's URL with search_path set to this schema. */
  readonly url: string;
  drop(): Promise<void>;
}

/** Schemas made in the current test file and not dropped yet. */
const live = new Map<string, TestSchema>();
/** The schema of each data dir an app was started on, so an app restarted on it finds its rows. */
const byDataDir = new Map<string, TestSchema>();

/** A new empty schema on the test server. */
export async function freshSchema(): Promise<TestSchema> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE SCHEMA ${name}`));
  const url = new URL(loopbackUrl());
  url.searchParams.set('options', `-c search_path=${name}`);
  const schema: TestSchema = {
    name,
    url: url.href,
    async drop() {
      if (!live.delete(name)) return;
      await admin((client) => client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`));
    },
  };
  live.set(name, schema);
  return schema;
}

/** Drops every schema the current test file made and has not dropped: run after each test file. */
export async function dropTestSchemas(): Promise<void> {
  byDataDir.clear();
  for (const schema of [...live.values()]) await schema.drop();
}

/** The data dir's schema: made at its first app, kept until dropSchemaOf or the end of the file. */
export async function schemaOf(dataDir: string): Promise<TestSchema> {
  let schema = byDataDir.get(dataDir);
  if (!schema || !live.has(schema.name)) {
    schema = await freshSchema();
    byDataDir.set(dataDir, schema);
  }
  return schema;
}

export async function dropSchemaOf(dataDir: string): Promise<void> {
  const schema = byDataDir.get(dataDir);
  byDataDir.delete(dataDir);
  await schema?.drop();
}
