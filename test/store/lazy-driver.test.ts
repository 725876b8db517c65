// `npm start` on SQLite never loads node-postgres: `pg` is imported only inside the PostgreSQL driver's
// folder, and that folder only through the dynamic import() in src/store/open.ts.
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

  it('nothing outside it imports the folder statically; openSqlDatabase imports it with import()', () => {
    const staticImporters = files.filter(
      (f) =>
        !f.startsWith('store/drivers/postgres/') &&
        staticImportLines(f).some((line) => /drivers\/postgres\//.test(line)),
    );
    expect(staticImporters).toEqual([]);
    expect(source('store/open.ts')).toMatch(/await import\('\.\/drivers\/postgres\/open\.js'\)/);
  });
});
