// `npm ci` on a machine without a compiler (no gcc, g++, make or python3, as in a slim container or on a
// newcomer's laptop), on every supported Node line: it must succeed, and the process must then load a
// SQLite driver — the prebuilt better-sqlite3 13 on Node 22 and 24 — or, on Node 20, whose driver needs
// the compiler, say exactly that and how to fix it. The compiler is hidden by PATH: a folder of links to
// everything in /usr/bin except the build tools. better-sqlite3 12's build is forced from source (as
// where no prebuilt binary fits or none can be downloaded), so it fails here every time. Three clean
// installs from the warm npm cache take about 3 min here, so the test runs only when TOOLGATE_INSTALL_TEST=1
// (.ci/run sets it).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
// Once per run: the install does not depend on the session runtime the second project tests.
const enabled = process.env.TOOLGATE_INSTALL_TEST === '1' && process.env.TOOLGATE_TEST_SANDBOX !== 'none';
const title = enabled
  ? 'npm ci without a compiler'
  : process.env.TOOLGATE_INSTALL_TEST === '1'
    ? 'npm ci without a compiler (runs in the bwrap project only)'
    : 'npm ci without a compiler (skipped: set TOOLGATE_INSTALL_TEST=1 to run it; .ci/run does)';

const BUILD_TOOLS = /^(gcc|g\+\+|cc|c\+\+|cpp|make|gmake|clang.*|python[\d.]*|.*-linux-gnu-.*)$/;

/** A PATH folder with every program of /usr/bin but the build tools, and `node` the given binary. */
function pathWithoutCompiler(node: string): string {
  const dir = tempDir('toolgate-nocc-');
  for (const name of readdirSync('/usr/bin')) {
    if (!BUILD_TOOLS.test(name) && name !== 'node')
      symlinkSync(path.join('/usr/bin', name), path.join(dir, name));
  }
  symlinkSync(node, path.join(dir, 'node'));
  return dir;
}

/** The node binary of a Node line, from the npm registry's platform package (as .ci/run gets them). */
function nodeOfLine(line: number): string {
  if (line === Number(process.versions.node.split('.')[0])) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}@${line}`;
  return execFileSync('npx', ['-y', '-p', pkg, 'node', '-p', 'process.execPath'], {
    encoding: 'utf8',
  }).trim();
}

// Loads the store's driver module as the service does and runs one query. A production install has no
// tsx (a development dependency), so the module is compiled to JavaScript first, as `npm run build` does.
const CHECK = `import { Database, sqliteDriver } from './sqlite-driver.mjs';
const db = new Database(':memory:');
console.log(JSON.stringify({ driver: sqliteDriver, sqlite: db.prepare('select sqlite_version() as v').get().v }));
`;

// What keeps npm from compiling, read from the files npm ci reads; these run in every npm test.
describe('install needs no compiler', () => {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { optional?: boolean; gypfile?: boolean; version?: string }>;
  };

  it('better-sqlite3 12 (compiled, Node 20 only) is optional: its build failing never fails the install', () => {
    expect(lock.packages['node_modules/better-sqlite3']).toMatchObject({ optional: true });
    expect(lock.packages['node_modules/better-sqlite3']?.version).toMatch(/^12\./);
  });

  it('the lockfile tells npm ci not to compile better-sqlite3 13, which ships prebuilt', () => {
    // npm ci takes a package's fields from the lockfile, which npm does not write `gypfile` into, so a
    // package with a binding.gyp and no install script is compiled whatever its own package.json says
    // (npm/cli#3341). Every `npm install` drops this line again: put it back when this fails.
    expect(
      lock.packages['node_modules/better-sqlite3-napi']?.gypfile,
      'package-lock.json lost "gypfile": false in "node_modules/better-sqlite3-napi" (npm install drops it; add it back)',
    ).toBe(false);
  });

  it('no other installed package compiles anything (no binding.gyp whose scripts npm would run)', () => {
    // npm 11 runs a package's install scripts (node-gyp among them) only when allowScripts names it, so a
    // binding.gyp elsewhere (cpu-features, an optional dependency of dockerode's ssh2) is never built.
    // Only the packages allowScripts allows (true): a package named there with false is denied.
    const allowed = new Set(
      Object.entries(
        (
          JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
            allowScripts?: Record<string, boolean>;
          }
        ).allowScripts ?? {},
      )
        .filter(([, allow]) => allow)
        .map(([name]) => name),
    );
    const native = Object.keys(lock.packages).filter(
      (location) =>
        location !== '' &&
        existsSync(path.join(REPO_ROOT, location, 'binding.gyp')) &&
        (allowed.has(location.replace(/^.*node_modules\//, '')) || /better-sqlite3/.test(location)),
    );
    // better-sqlite3 12 is absent where its build failed.
    expect(native).toContain('node_modules/better-sqlite3-napi');
    expect(native.filter((location) => !/^node_modules\/better-sqlite3(-napi)?$/.test(location))).toEqual([]);
  });
});

describe.skipIf(!enabled)(title, () => {
  const made: string[] = [];
  const cleanUp = () => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  afterAll(cleanUp, 120_000);

  const install = (line: number, omitDev: boolean) => {
    const node = nodeOfLine(line);
    const bin = pathWithoutCompiler(node);
    // In memory where there is /dev/shm: a clean install writes and later removes some 30,000 files,
    // which takes minutes on this machine's shared disk.
    const appDir = existsSync('/dev/shm')
      ? mkdtempSync('/dev/shm/toolgate-install-')
      : tempDir('toolgate-install-');
    made.push(bin, appDir);
    for (const file of ['package.json', 'package-lock.json']) {
      cpSync(path.join(REPO_ROOT, file), path.join(appDir, file));
    }
    const driver = readFileSync(path.join(REPO_ROOT, 'src/store/sqlite-driver.ts'), 'utf8');
    writeFileSync(
      path.join(appDir, 'sqlite-driver.mjs'),
      ts.transpileModule(driver, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText,
    );
    writeFileSync(path.join(appDir, 'check.mjs'), CHECK);
    // This machine's environment (its registry, proxy and CA settings) minus whatever names a compiler.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: bin,
      // No prebuilt binary for better-sqlite3 12: it must compile, and cannot.
      npm_config_build_from_source: 'true',
    };
    for (const name of ['PYTHON', 'CC', 'CXX', 'npm_config_python']) delete env[name];
    const run = (command: string, args: string[]) =>
      spawnSync(command, args, { cwd: appDir, env, encoding: 'utf8', timeout: 240_000 });
    // The sandbox really has no compiler, and runs the line's node.
    expect(run('sh', ['-c', 'command -v gcc g++ cc make python3']).stdout).toBe('');
    expect(run('node', ['-v']).stdout.trim()).toMatch(new RegExp(`^v${line}\\.`));
    const ci = run('npm', [
      'ci',
      ...(omitDev ? ['--omit=dev'] : []),
      '--prefer-offline',
      '--ignore-scripts=false',
      '--no-audit',
      '--no-fund',
    ]);
    expect(ci.status, `npm ci on Node ${line}:\n${ci.stdout}\n${ci.stderr}`).toBe(0);
    return { appDir, run, check: run('node', ['check.mjs']) };
  };

  // The whole install (as the README says) on the container's line; the production dependencies, where
  // both native packages are, on the others (the dev dependencies build nothing: see above).
  for (const line of [24, 22]) {
    it(`installs on Node ${line} and loads the prebuilt better-sqlite3 13`, () => {
      try {
        const { appDir, run, check } = install(line, line !== 24);
        expect(check.status, check.stderr).toBe(0);
        expect(JSON.parse(check.stdout)).toMatchObject({
          driver: 'better-sqlite3-napi',
          sqlite: expect.any(String),
        });
        // The Node 20 driver's build failed and npm left it out, without failing the install.
        expect(existsSync(path.join(appDir, 'node_modules/better-sqlite3'))).toBe(false);
        if (line === 24) {
          // npm test's layer check passes on that box too: the optional driver that is not there is not
          // an unresolvable import (it stopped npm test before vitest on a fresh Node 24 box once).
          for (const item of ['src', 'tsconfig.json', '.dependency-cruiser.cjs']) {
            cpSync(path.join(REPO_ROOT, item), path.join(appDir, item), { recursive: true });
          }
          const layers = run('node', [
            'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
            'src',
            '--config',
            '.dependency-cruiser.cjs',
            '--output-type',
            'err',
          ]);
          expect(layers.status, `${layers.stdout}\n${layers.stderr}`).toBe(0);
        }
      } finally {
        cleanUp();
      }
    }, 300_000);
  }

  it('installs on Node 20 too; starting then names the missing driver and the fix', () => {
    let check;
    try {
      check = install(20, true).check;
    } finally {
      cleanUp();
    }
    expect(check.status).not.toBe(0);
    expect(check.stderr).toContain('No SQLite driver loads on Node 20.');
    expect(check.stderr).toContain('python3, make and g++');
    expect(check.stderr).toContain('npm rebuild better-sqlite3');
    expect(check.stderr).toContain('Node 22 or later');
  }, 300_000);
});
