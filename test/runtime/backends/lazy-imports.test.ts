// `npm start` on the embedded default never loads a container client: dockerode and the Kubernetes client
// are imported only inside their backends' folders, and those folders only through their load.ts, which
// imports the backend with a dynamic import() (and names the package when a production install lacks it).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');
const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
const source = (file: string) => readFileSync(path.join(SRC, file), 'utf8');
const STATIC_IMPORT = (what: string) => new RegExp(`^\\s*import[^;]*from\\s+'${what}`, 'm');

describe('container backends are imported lazily', () => {
  it('only their own folders import dockerode or @kubernetes/client-node', () => {
    const importers = files.filter((f) => /from '(dockerode|@kubernetes\/client-node)'/.test(source(f)));
    expect(importers.filter((f) => !/^runtime\/backends\/(docker|kubernetes)\//.test(f))).toEqual([]);
    expect(importers).toContain('runtime/backends/docker/index.ts');
    expect(importers).toContain('runtime/backends/kubernetes/index.ts');
  });

  it('nothing outside them imports their folders statically but their load.ts, which uses import()', () => {
    const staticImporters = files.filter(
      (f) =>
        !/^runtime\/backends\/(docker|kubernetes)\//.test(f) &&
        [/backends\/docker\/(?!load\.js')/, /backends\/kubernetes\/(?!load\.js')/].some((folder) =>
          source(f)
            .split('\n')
            .some(
              (line) => /^\s*import\s/.test(line) && !/^\s*import type\s/.test(line) && folder.test(line),
            ),
        ),
    );
    expect(staticImporters).toEqual([]);
    for (const backend of ['docker', 'kubernetes']) {
      const loader = source(`runtime/backends/${backend}/load.ts`);
      expect(loader).toMatch(/import\('\.\/index\.js'\)/);
      expect(loader.split('\n').filter((line) => /^\s*import\s.*from\s/.test(line))).toEqual([
        expect.stringContaining('lib/optional-package.js'),
      ]);
    }
    expect(source('runtime/runner/runner.ts')).toMatch(/await loadDockerBackend\(\)/);
    expect(STATIC_IMPORT('dockerode').test(source('runtime/runner/runner.ts'))).toBe(false);
  });
});
