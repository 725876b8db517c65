// Start-up faults an operator can fix: the data dir, the database file and the listening port. Each
// becomes a StartupError with one line naming the thing and what to do, instead of a bare errno
// (makeDirs reports the real errno where Node's recursive mkdir says ENOENT). And the data dir's paths
// a replica keeps to itself.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { makeDirs, nearestExisting } from '../lib/make-dirs.js';
import { openSqlDatabase, type DatabaseChoice } from '../store/open.js';
import type { Migration, SqlDatabase } from '../store/sql.js';

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

const errnoCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/** Why a directory cannot be written, in words; looks at the nearest ancestor that exists. */
async function whyNotWritable(dir: string, err: unknown): Promise<string> {
  const { existing } = await nearestExisting(dir);
  const stats = await fs.stat(existing).catch(() => null);
  if (stats && !stats.isDirectory()) return `${existing} is not a directory`;
  try {
    await fs.access(existing, constants.W_OK);
  } catch (accessErr) {
    err = accessErr;
  }
  switch (errnoCode(err)) {
    case 'EROFS':
      return `${existing} is on a read-only file system`;
    case 'EACCES':
    case 'EPERM':
      return `${existing} is not writable by this user (uid ${process.getuid?.() ?? '?'})`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `a path component is not a directory`;
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left on its file system';
    default:
      return (err as Error)?.message ?? String(err);
  }
}

/** Creates the data dir (and the named subdirectories) and proves it writable with a probe file. */
export async function prepareDataDir(dir: string, subdirs: readonly string[] = []): Promise<void> {
  const fail = async (err: unknown) =>
    new StartupError(
      `data dir ${dir} is not usable: ${await whyNotWritable(dir, err)} (set TOOLGATE_DATA_DIR)`,
    );
  try {
    await makeDirs(dir, 0o700);
    for (const sub of subdirs) await makeDirs(path.join(dir, sub), 0o700);
    const probe = path.join(dir, `.write-probe-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.unlink(probe);
  } catch (err) {
    throw await fail(err);
  }
}

/**
 * A path in the data dir for what only this process uses and empties at its start (job logs, egress
 * sockets): its own, named with the replica's id, when replicas share the data dir.
 */
export function ownPath(config: Pick<Config, 'dataDir' | 'replica'>, name: string): string {
  return path.join(config.dataDir, config.replica ? `${name}-${config.replica.id}` : name);
}

/** Opens the database; a failure is one line naming it (the SQLite file, or the PostgreSQL server). */
export async function openDatabaseOrExplain(
  choice: DatabaseChoice,
  migrations: readonly Migration[],
): Promise<SqlDatabase> {
  try {
    return await openSqlDatabase(choice, migrations);
  } catch (err) {
    // The PostgreSQL driver's message already names the server (never the password) and the setting.
    if (choice.url !== undefined) throw new StartupError((err as Error).message);
    const code = errnoCode(err);
    const hint =
      code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
        ? '; restore it from a backup, or move it away to start with an empty database'
        : code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN'
          ? '; check that the data dir is writable'
          : '';
    throw new StartupError(
      `database ${path.join(choice.dataDir, 'toolgate.db')}: ${(err as Error).message}${hint}`,
    );
  }
}

/** Explains a failed listen (port taken, privileged port, address not on this machine). */
export function explainListenError(err: unknown, host: string, port: number): Error {
  switch (errnoCode(err)) {
    case 'EADDRINUSE':
      return new StartupError(
        `port ${port} on ${host} is already in use; stop the other process or set PORT`,
      );
    case 'EACCES':
      return new StartupError(`not allowed to listen on port ${port}; use a port above 1023 or set PORT`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`${host} is not an address of this machine; set HOST`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
