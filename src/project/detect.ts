// Reads a project's manifests (package.json, pyproject/requirements, go.mod, Cargo.toml, pom/gradle,
// Makefile, Dockerfile, CI config) into ecosystems, package managers, frameworks and commands.
import path from 'node:path';
import {
  frameworksIn,
  GO_FRAMEWORKS,
  JAVA_FRAMEWORKS,
  JS_FRAMEWORKS,
  PYTHON_FRAMEWORKS,
  RUST_FRAMEWORKS,
} from './frameworks.js';
import { dirOf, filesNamed, readText, type Inventory, type ProjectContext } from './inventory.js';

export type CommandKind = 'build' | 'test' | 'lint' | 'format' | 'run';

export interface ProjectCommand {
  kind: CommandKind;
  command: string;
  /** Directory to run it in, workspace-relative. */
  cwd: string;
  /** The file it was read from or inferred from. */
  source: string;
}

export interface Detection {
  ecosystems: Set<string>;
  packageManagers: Set<string>;
  frameworks: Map<string, string>;
  commands: ProjectCommand[];
  manifests: string[];
  ci: { system: string; path: string }[];
  containers: string[];
}

const JS_LOCKFILES: [string, string][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lockb', 'bun'],
  ['bun.lock', 'bun'],
  ['package-lock.json', 'npm'],
];

const SCRIPT_KINDS: [string, CommandKind][] = [
  ['build', 'build'],
  ['test', 'test'],
  ['lint', 'lint'],
  ['format', 'format'],
  ['start', 'run'],
  ['dev', 'run'],
  ['typecheck', 'lint'],
];

const CI_FILES: [RegExp, string][] = [
  [/^\.github\/workflows\/[^/]+\.ya?ml$/, 'GitHub Actions'],
  [/^\.gitlab-ci\.yml$/, 'GitLab CI'],
  [/^\.circleci\/config\.yml$/, 'CircleCI'],
  [/^Jenkinsfile$/, 'Jenkins'],
  [/^azure-pipelines\.ya?ml$/, 'Azure Pipelines'],
  [/^\.travis\.yml$/, 'Travis CI'],
  [/^bitbucket-pipelines\.yml$/, 'Bitbucket Pipelines'],
  [/^\.ci\/run$/, 'custom CI script'],
];

const parseJson = (text: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const keysOf = (value: unknown): string[] =>
  typeof value === 'object' && value !== null ? Object.keys(value) : [];

function addFrameworks(found: Detection, pairs: [string, string][], source: string) {
  for (const [needle, name] of pairs)
    if (!found.frameworks.has(name)) found.frameworks.set(name, `${source}: ${needle}`);
}

async function detectNode(ctx: ProjectContext, inv: Inventory, found: Detection) {
  for (const manifest of filesNamed(inv, ['package.json'])) {
    const pkg = parseJson(await readText(ctx, manifest));
    if (!pkg) continue;
    const dir = dirOf(manifest);
    found.manifests.push(manifest);
    found.ecosystems.add('node');
    const inDir = (name: string) => inv.byPath.has(dir === '.' ? name : `${dir}/${name}`);
    const declared = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('@')[0] : undefined;
    const manager =
      declared ?? JS_LOCKFILES.find(([lock]) => inDir(lock) || inv.byPath.has(lock))?.[1] ?? 'npm';
    found.packageManagers.add(manager);
    const deps = [
      ...keysOf(pkg.dependencies),
      ...keysOf(pkg.devDependencies),
      ...keysOf(pkg.peerDependencies),
    ];
    addFrameworks(
      found,
      deps.filter((d) => JS_FRAMEWORKS[d]).map((d) => [d, JS_FRAMEWORKS[d]] as [string, string]),
      manifest,
    );
    if (deps.includes('typescript')) found.ecosystems.add('typescript');
    const scripts = keysOf(pkg.scripts);
    for (const [script, kind] of SCRIPT_KINDS) {
      if (!scripts.includes(script)) continue;
      const command =
        script === 'test' || script === 'start' ? `${manager} ${script}` : `${manager} run ${script}`;
      found.commands.push({ kind, command, cwd: dir, source: manifest });
    }
  }
}

async function detectPython(ctx: ProjectContext, inv: Inventory, found: Detection) {
  for (const manifest of filesNamed(inv, [
    'pyproject.toml',
    'requirements.txt',
    'setup.py',
    'Pipfile',
    'setup.cfg',
  ])) {
    const text = (await readText(ctx, manifest)) ?? '';
    const base = path.posix.basename(manifest);
    if (base === 'setup.cfg' && !/\[metadata\]|\[options\]/.test(text)) continue;
    const dir = dirOf(manifest);
    found.manifests.push(manifest);
    found.ecosystems.add('python');
    const inDir = (name: string) => inv.byPath.has(dir === '.' ? name : `${dir}/${name}`);
    let manager = 'pip';
    if (base === 'Pipfile') manager = 'pipenv';
    else if (/\[tool\.poetry\]/.test(text) || inDir('poetry.lock')) manager = 'poetry';
    else if (inDir('uv.lock')) manager = 'uv';
    found.packageManagers.add(manager);
    const lowered = text.toLowerCase();
    const names = Object.keys(PYTHON_FRAMEWORKS).filter((name) =>
      new RegExp(`(^|["'\\s,\\[])${name}([\\s<>=~!\\[;,"']|$)`, 'm').test(lowered),
    );
    addFrameworks(
      found,
      names.map((n) => [n, PYTHON_FRAMEWORKS[n]] as [string, string]),
      manifest,
    );
    const usesPytest = names.includes('pytest') || /\[tool\.pytest/.test(text);
    const run =
      manager === 'poetry'
        ? 'poetry run '
        : manager === 'uv'
          ? 'uv run '
          : manager === 'pipenv'
            ? 'pipenv run '
            : '';
    if (usesPytest && !found.commands.some((c) => c.cwd === dir && c.kind === 'test')) {
      found.commands.push({ kind: 'test', command: `${run}pytest`, cwd: dir, source: manifest });
    }
    if (base === 'pyproject.toml')
      found.commands.push({ kind: 'build', command: `${run}python -m build`, cwd: dir, source: manifest });
  }
}

interface ToolchainSpec {
  manifest: string;
  ecosystem: string;
  packageManager: string;
  frameworks: Readonly<Record<string, string>>;
  build: string;
  test: string;
}

/** Ecosystems whose manifest fixes the toolchain and its commands (Go modules, Cargo). */
const toolchain =
  (spec: ToolchainSpec) =>
  async (ctx: ProjectContext, inv: Inventory, found: Detection): Promise<void> => {
    for (const manifest of filesNamed(inv, [spec.manifest])) {
      const text = (await readText(ctx, manifest)) ?? '';
      const dir = dirOf(manifest);
      found.manifests.push(manifest);
      found.ecosystems.add(spec.ecosystem);
      found.packageManagers.add(spec.packageManager);
      addFrameworks(found, frameworksIn(text, spec.frameworks), manifest);
      found.commands.push({ kind: 'build', command: spec.build, cwd: dir, source: manifest });
      found.commands.push({ kind: 'test', command: spec.test, cwd: dir, source: manifest });
    }
  };

const detectGo = toolchain({
  manifest: 'go.mod',
  ecosystem: 'go',
  packageManager: 'go modules',
  frameworks: GO_FRAMEWORKS,
  build: 'go build ./...',
  test: 'go test ./...',
});

const detectRust = toolchain({
  manifest: 'Cargo.toml',
  ecosystem: 'rust',
  packageManager: 'cargo',
  frameworks: RUST_FRAMEWORKS,
  build: 'cargo build',
  test: 'cargo test',
});

async function detectJava(ctx: ProjectContext, inv: Inventory, found: Detection) {
  for (const manifest of filesNamed(inv, ['pom.xml', 'build.gradle', 'build.gradle.kts'])) {
    const text = (await readText(ctx, manifest)) ?? '';
    const dir = dirOf(manifest);
    found.manifests.push(manifest);
    found.ecosystems.add('java');
    addFrameworks(found, frameworksIn(text, JAVA_FRAMEWORKS), manifest);
    if (manifest.endsWith('pom.xml')) {
      found.packageManagers.add('maven');
      found.commands.push({ kind: 'build', command: 'mvn package', cwd: dir, source: manifest });
      found.commands.push({ kind: 'test', command: 'mvn test', cwd: dir, source: manifest });
    } else {
      found.packageManagers.add('gradle');
      const wrapper = inv.byPath.has(dir === '.' ? 'gradlew' : `${dir}/gradlew`) ? './gradlew' : 'gradle';
      found.commands.push({ kind: 'build', command: `${wrapper} build`, cwd: dir, source: manifest });
      found.commands.push({ kind: 'test', command: `${wrapper} test`, cwd: dir, source: manifest });
    }
  }
}

const MAKE_TARGETS: [string, CommandKind][] = [
  ['build', 'build'],
  ['all', 'build'],
  ['test', 'test'],
  ['check', 'test'],
  ['lint', 'lint'],
  ['fmt', 'format'],
  ['format', 'format'],
  ['run', 'run'],
];

async function detectMake(ctx: ProjectContext, inv: Inventory, found: Detection) {
  for (const manifest of filesNamed(inv, ['Makefile', 'makefile', 'GNUmakefile'], 1)) {
    const text = (await readText(ctx, manifest)) ?? '';
    const dir = dirOf(manifest);
    found.manifests.push(manifest);
    const targets = new Set([...text.matchAll(/^([A-Za-z0-9_.-]+)\s*:(?!=)/gm)].map((m) => m[1]));
    for (const [target, kind] of MAKE_TARGETS) {
      if (targets.has(target))
        found.commands.push({ kind, command: `make ${target}`, cwd: dir, source: manifest });
    }
  }
}

function detectContainersAndCi(inv: Inventory, found: Detection) {
  for (const file of inv.files) {
    const base = path.posix.basename(file.path);
    if (base === 'Dockerfile' || base.endsWith('.Dockerfile') || /^(docker-)?compose\.ya?ml$/.test(base)) {
      found.containers.push(file.path);
    }
    for (const [pattern, system] of CI_FILES)
      if (pattern.test(file.path)) found.ci.push({ system, path: file.path });
  }
}

export async function detectProject(ctx: ProjectContext, inv: Inventory): Promise<Detection> {
  const found: Detection = {
    ecosystems: new Set(),
    packageManagers: new Set(),
    frameworks: new Map(),
    commands: [],
    manifests: [],
    ci: [],
    containers: [],
  };
  for (const detect of [detectNode, detectPython, detectGo, detectRust, detectJava, detectMake]) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    await detect(ctx, inv, found);
  }
  detectContainersAndCi(inv, found);
  return found;
}
