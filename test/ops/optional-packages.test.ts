// The optional backends' packages: in every `npm ci` (development dependencies), out of a production install
// (`--omit=dev`), declared as optional peer dependencies with the range each backend's loader names in its
// message. What a production install really answers when one is chosen is checked on a real one by
// test/system/bundle.test.ts (TOOLGATE_BUNDLE_TEST=1).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVER_PACKAGES } from '../../src/code/lsp/packages.js';
import { installCommand, loadOptional, MissingPackageError } from '../../src/lib/optional-package.js';
import { DOCKER_PACKAGE } from '../../src/runtime/backends/docker/load.js';
import { KUBERNETES_PACKAGE } from '../../src/runtime/backends/kubernetes/load.js';
import { POSTGRES_PACKAGE } from '../../src/store/drivers/postgres/load.js';
import { tempDir } from '../helpers/app.js';
import { REPO_ROOT } from './child-server.js';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** Every package a loader names, with the range its message gives. */
const LOADED = [
  DOCKER_PACKAGE,
  KUBERNETES_PACKAGE,
  POSTGRES_PACKAGE,
  ...Object.values(SERVER_PACKAGES).flatMap((server) => server.packages),
];

describe('optional backend packages', () => {
  it('are optional peer dependencies, installed by npm ci as development dependencies, never production ones', () => {
    const peers = Object.keys(pkg.peerDependencies);
    expect(peers.length).toBeGreaterThan(0);
    for (const name of peers) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name]);
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });

  it('each loader names its package with the range package.json gives, and every optional package has a loader', () => {
    expect(Object.fromEntries(LOADED.map((p) => [p.name, p.range]))).toEqual(pkg.peerDependencies);
  });

  it('the runtime bundler and the TypeScript runner are development dependencies (dist/ needs neither)', () => {
    for (const name of ['esbuild', 'tsx', 'typescript']) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
  });
});

describe('loadOptional', () => {
  const moduleImporting = (specifier: string) => {
    const file = path.join(tempDir('toolgate-optional-'), 'backend.mjs');
    writeFileSync(file, `import ${JSON.stringify(specifier)};\nexport const loaded = true;\n`);
    return () => import(pathToFileURL(file).href) as Promise<{ loaded: boolean }>;
  };

  it('turns "the package is not installed" into one line naming it and the command that adds it', async () => {
    const missing = { name: 'toolgate-no-such-package', range: '^1.2.0' };
    const err = await loadOptional('the test backend', missing, moduleImporting(missing.name)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MissingPackageError);
    const { message } = err as Error;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^the test backend needs toolgate-no-such-package, which is not installed/);
    expect(message).toContain('npm install --omit=dev --save-prod toolgate-no-such-package@^1.2.0');
  });

  it('passes any other failure unchanged: another missing package, a module that throws', async () => {
    const other = await loadOptional(
      'the test backend',
      { name: 'toolgate-other-package', range: '^1' },
      moduleImporting('toolgate-no-such-package'),
    ).catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(MissingPackageError);
    expect((other as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
    const thrown = new Error('boom');
    await expect(loadOptional('the test backend', DOCKER_PACKAGE, () => Promise.reject(thrown))).rejects.toBe(
      thrown,
    );
  });

  it('loads what is installed', async () => {
    expect(await loadOptional('the test backend', POSTGRES_PACKAGE, moduleImporting('pg'))).toMatchObject({
      loaded: true,
    });
  });

  it('names several packages in one command', () => {
    expect(installCommand(SERVER_PACKAGES.typescript.packages)).toBe(
      'npm install --omit=dev --save-prod typescript-language-server@~5.3.0 typescript@5.9',
    );
  });
});
