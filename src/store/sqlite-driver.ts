// Which build of better-sqlite3 this process loads. better-sqlite3 12 (compiled for the running Node's
// ABI) is the one that works on Node 20; on Node 24.19 and later it aborts the process when a prepared
// statement is garbage-collected. better-sqlite3 13 (an N-API build, prebuilt, the same API) fixes that
// but crashes on Node 20. So Node 22 and later load 13, installed under the alias better-sqlite3-napi,
// and Node 20 loads 12. Everything that opens a database goes through here.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const sqliteDriver = nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const Database: typeof BetterSqlite3 = require(sqliteDriver);
