// The layers import downwards only: src/lib imports nothing of ours, src/code imports no tool, and the
// code that runs inside a runtime imports nothing of the service.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every relative import of a file, resolved to a path under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)].map((m) =>
    path.relative(SRC, path.resolve(path.dirname(file), m[1])),
  );
}

const violations = (layer: string, forbidden: string[]) =>
  filesUnder(path.join(SRC, layer)).flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden.some((top) => target === top || target.startsWith(`${top}/`)))
      .map((target) => `${path.relative(SRC, file)} → ${target}`),
  );

describe('layering', () => {
  it('src/lib imports nothing of ours', () => {
    expect(
      violations('lib', [
        'contract',
        'engine',
        'code',
        'jobs',
        'runtime',
        'tools',
        'routes',
        'http',
        'protocols',
        'ops',
        'sandbox',
        'store',
        'policies',
        'edit',
        'project',
      ]),
    ).toEqual([]);
  });

  it('src/code imports no tool', () => {
    expect(violations('code', ['tools', 'routes', 'http'])).toEqual([]);
  });

  it('the code that runs inside a runtime imports nothing of the service', () => {
    expect(
      violations('runtime/inside', [
        'store',
        'routes',
        'http',
        'jobs',
        'code',
        'tools',
        'services.ts',
        'app.ts',
      ]),
    ).toEqual([]);
  });
});
