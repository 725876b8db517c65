// src/search is pure: the service and the code inside the runtime both import it, so it may import
// only src/lib and libraries, and never touch the file system or spawn anything.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SEARCH = path.resolve(import.meta.dirname, '../../src/search');
const files = readdirSync(SEARCH).filter((f) => f.endsWith('.ts'));
const importsOf = (file: string) =>
  [
    ...readFileSync(path.join(SEARCH, file), 'utf8').matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'/g),
  ].map((m) => m[1]);

describe('src/search', () => {
  it('imports only src/lib, libraries and node:path', () => {
    const bad = files.flatMap((file) =>
      importsOf(file)
        .filter((spec) =>
          spec.startsWith('.') ? !/^\.\/|^\.\.\/lib\//.test(spec) : /^node:(?!path$)/.test(spec),
        )
        .map((spec) => `${file} → ${spec}`),
    );
    expect(files.length).toBeGreaterThan(0);
    expect(bad).toEqual([]);
  });
});
