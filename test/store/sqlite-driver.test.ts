// The SQLite driver loader: the driver for each Node line, and one message that says what to do when it
// does not load (better-sqlite3 12 is optional: on Node 20 without a compiler npm leaves it out).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { driverFor, loadSqliteDriver } from '../../src/store/sqlite-driver.js';

const missing = (id: string) => {
  throw Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- sqlite-driver.ts`), {
    code: 'MODULE_NOT_FOUND',
  });
};

describe('sqlite driver', () => {
  it('loads better-sqlite3 12 on Node 20 and the prebuilt 13 on Node 22 and later', () => {
    expect(driverFor(20)).toBe('better-sqlite3');
    expect(driverFor(22)).toBe('better-sqlite3-napi');
    expect(driverFor(24)).toBe('better-sqlite3-napi');
  });

  it("opens a database with the running Node's driver", () => {
    const Database = loadSqliteDriver(
      Number(process.versions.node.split('.')[0]),
      createRequire(import.meta.url),
    );
    const db = new Database(':memory:');
    expect(db.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    db.close();
  });

  it('names the missing Node 20 driver and both ways to get one', () => {
    expect(() => loadSqliteDriver(20, missing)).toThrow(
      /^No SQLite driver loads on Node [\d.]+ \(better-sqlite3: Cannot find module 'better-sqlite3'\)\. .*python3, make and g\+\+.*`npm rebuild better-sqlite3`.*Node 22 or later/,
    );
  });

  it('says to reinstall when the prebuilt driver is missing on Node 22 and later', () => {
    expect(() => loadSqliteDriver(24, missing)).toThrow(
      /better-sqlite3-napi: Cannot find module.*run `npm ci`/,
    );
  });

  it('fails at load, not at the first query, when the native part is missing', () => {
    const noBinding = () =>
      class {
        constructor() {
          throw new Error('Could not locate the bindings file. Tried:\n → build/better_sqlite3.node');
        }
      };
    expect(() => loadSqliteDriver(20, noBinding)).toThrow(/Could not locate the bindings file\. Tried:\)/);
  });
});
