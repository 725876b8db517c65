// Opens the PostgreSQL database the operator named and applies the migrations, or fails with one line
// that says which server (host, port, database, user: never the password) and why, so a replica that
// cannot reach its database says so at start instead of at its first request.
import type { Migration } from '../../sql.js';
import { PostgresDatabase, type PostgresOptions } from './database.js';
import { applyPostgresMigrations } from './migrate.js';

/** Where a URL points, for messages: `host:port/database as user`, without the password. */
export function describeServer(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'an unparsable URL';
  }
  // A Unix socket is given as ?host=/run/postgresql (the URL's own host is then empty).
  const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || '(default database)';
  const user = parsed.username ? ` as ${decodeURIComponent(parsed.username)}` : '';
  return `${host}:${parsed.port || '5432'}/${database}${user}`;
}

/** The error's own words; a refused connection to a name with several addresses is an AggregateError. */
function reasonOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    return [...new Set(err.errors.map((inner: unknown) => reasonOf(inner)))].join('; ');
  }
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

/** The reason with the URL's password blanked out, should a library ever echo it. */
function withoutPassword(reason: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // No password to hide in a URL that does not parse.
  }
  return password.length >= 3 ? reason.split(password).join('***') : reason;
}

export async function openPostgres(
  url: string,
  migrations: readonly Migration[],
  options?: PostgresOptions,
): Promise<PostgresDatabase> {
  const fail = async (db: PostgresDatabase | undefined, what: string, err: unknown) => {
    await db?.close().catch(() => {});
    return new Error(
      `${what} PostgreSQL at ${describeServer(url)}: ${withoutPassword(reasonOf(err), url)} (DATABASE_URL or database.url in the config file)`,
    );
  };
  let db: PostgresDatabase | undefined;
  try {
    db = PostgresDatabase.open(url, options);
    await db.get('SELECT 1');
  } catch (err) {
    throw await fail(db, 'cannot connect to', err);
  }
  try {
    await applyPostgresMigrations(db, migrations);
  } catch (err) {
    throw await fail(db, 'cannot apply the migrations on', err);
  }
  return db;
}
