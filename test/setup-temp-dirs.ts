// Runs before each test file (vitest setupFiles): the temp dirs the file's tests made with tempDir are
// removed when its tests are done, after its own afterAll hooks (after hooks run in reverse order, and
// this one is registered first), so no app still uses them. test/global-setup.ts checks the run's temp
// dir is empty at the end. The PostgreSQL schemas its apps and stores ran on are dropped then too
// (test/helpers/postgres.ts).
import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/app.js';
import { dropTestSchemas } from './helpers/postgres.js';

afterAll(() => removeTempDirs());
afterAll(() => dropTestSchemas());
