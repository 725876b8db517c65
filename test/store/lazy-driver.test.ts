// `npm start` on SQLite never loads node-postgres: `pg` is imported only inside the PostgreSQL driver's
// folder, and that folder only through its loader (drivers/postgres/load.ts, which src/store/open.ts imports),
// whose dynamic import() brings in the driver and so `pg` (a missing `pg` is one line at start).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');
const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
const source = (file: string) => readFileSync(path.join(SRC, file), 'utf8');
const staticImportLines = (file: string) =>
  source(file)
    .split('\n')
    .filter((line) => /^\s*import\s/.test(line) && !/^\s*import type\s/.test(line));

describe('the PostgreSQL driver is imported lazily', () => {
  it("only its own folder imports 'pg'", () => {
    const importers = files.filter((f) => /from 'pg(?:\/[^']*)?'/.test(source(f)));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => !f.startsWith('store/drivers/postgres/'))).toEqual([]);
  });

  it('nothing outside it imports the folder statically but its loader, which imports the driver with import()', () => {
    const staticImporters = files.filter(
      (f) =>
        !f.startsWith('store/drivers/postgres/') &&
        staticImportLines(f).some(
          (line) => /drivers\/postgres\//.test(line) && !/drivers\/postgres\/load\.js'/.test(line),
        ),
    );
    expect(staticImporters).toEqual([]);
    expect(source('store/open.ts')).toMatch(/from '\.\/drivers\/postgres\/load\.js'/);
    // The loader itself imports the driver only with import(), and nothing of pg.
    const loader = 'store/drivers/postgres/load.ts';
    expect(staticImportLines(loader).filter((line) => /open\.js'|'pg'/.test(line))).toEqual([]);
    expect(source(loader)).toMatch(/import\('\.\/open\.js'\)/);
  });
});
