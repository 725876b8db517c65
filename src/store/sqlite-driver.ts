// Which build of better-sqlite3 this process loads. better-sqlite3 12 (compiled for the running Node's
// ABI) is the one that works on Node 20; on Node 24.19 and later it aborts the process when a prepared
// statement is garbage-collected. better-sqlite3 13 (an N-API build, prebuilt, the same API) fixes that
// but crashes on Node 20. So Node 22 and later load 13, installed under the alias better-sqlite3-napi,
// and Node 20 loads 12. 12 is an optional dependency: npm compiles it where no prebuilt binary fits, and
// a machine without a compiler must still install (Node 22 and later never load it), so its build failing
// leaves it out instead of failing `npm ci`; this module then says what is missing and how to get it.
// Everything that opens a database goes through here.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The driver package a Node major loads. */
export const driverFor = (nodeMajor: number) => (nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');

/** How to get a driver that loads, for the message when none does. */
function remedy(driver: string): string {
  return driver === 'better-sqlite3'
    ? 'better-sqlite3 12, the driver Node 20 loads, is an optional dependency that npm ci compiles here; ' +
        'its build was left out or failed (it needs python3, make and g++). Install those and run ' +
        '`npm rebuild better-sqlite3` (or `npm ci`), or run toolgate on Node 22 or later, which loads the ' +
        'prebuilt better-sqlite3 13 (README "Supported Node.js lines")'
    : 'better-sqlite3 13 ships prebuilt binaries for this platform under the alias better-sqlite3-napi; ' +
        'run `npm ci` to install it';
}

/**
 * Loads the driver for `nodeMajor` and opens an in-memory database with it, so a missing package or a
 * native part that does not load fails here, once, with a message that says what to do, not at the first
 * query with "Could not locate the bindings file".
 */
export function loadSqliteDriver(
  nodeMajor: number,
  load: (id: string) => unknown = require,
): typeof BetterSqlite3 {
  const driver = driverFor(nodeMajor);
  try {
    const Driver = load(driver) as typeof BetterSqlite3;
    new Driver(':memory:').close();
    return Driver;
  } catch (err) {
    const cause = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new Error(
      `No SQLite driver loads on Node ${process.versions.node} (${driver}: ${cause}). ${remedy(driver)}.`,
      {
        cause: err,
      },
    );
  }
}

const nodeMajor = Number(process.versions.node.split('.')[0]);

export const sqliteDriver = driverFor(nodeMajor);

export const Database: typeof BetterSqlite3 = loadSqliteDriver(nodeMajor);
