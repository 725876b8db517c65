// Finds lint, format and editor configuration, and the test files' layout and framework.
import path from 'node:path';
import type { Inventory } from './inventory.js';

const TOOL_FILES: [RegExp, string][] = [
  [/^eslint\.config\.(js|mjs|cjs|ts|mts)$|^\.eslintrc(\.(json|js|cjs|yml|yaml))?$/, 'ESLint'],
  [/^\.prettierrc(\.(json|js|cjs|mjs|yml|yaml|toml))?$|^prettier\.config\.(js|cjs|mjs|ts)$/, 'Prettier'],
  [/^biome\.jsonc?$/, 'Biome'],
  [/^\.editorconfig$/, 'EditorConfig'],
  [/^tsconfig(\.[\w-]+)?\.json$/, 'TypeScript compiler'],
  [/^\.?ruff\.toml$/, 'Ruff'],
  [/^\.flake8$/, 'Flake8'],
  [/^mypy\.ini$|^\.mypy\.ini$/, 'mypy'],
  [/^\.pylintrc$|^pylintrc$/, 'Pylint'],
  [/^\.golangci\.ya?ml$/, 'golangci-lint'],
  [/^\.?rustfmt\.toml$/, 'rustfmt'],
  [/^clippy\.toml$/, 'Clippy'],
  [/^checkstyle\.xml$/, 'Checkstyle'],
  [/^\.stylelintrc(\.\w+)?$/, 'Stylelint'],
];

const PYPROJECT_TOOLS: [RegExp, string][] = [
  [/\[tool\.black\]/, 'Black'],
  [/\[tool\.ruff/, 'Ruff'],
  [/\[tool\.isort\]/, 'isort'],
  [/\[tool\.mypy\]/, 'mypy'],
  [/\[tool\.pylint/, 'Pylint'],
];

export function toolingFiles(inv: Inventory): { tool: string; path: string }[] {
  const found: { tool: string; path: string }[] = [];
  for (const file of inv.files) {
    if (file.path.split('/').length > 3) continue;
    const base = path.posix.basename(file.path);
    for (const [pattern, tool] of TOOL_FILES) if (pattern.test(base)) found.push({ tool, path: file.path });
  }
  return found;
}

export function pyprojectTooling(text: string, file: string): { tool: string; path: string }[] {
  return PYPROJECT_TOOLS.filter(([pattern]) => pattern.test(text)).map(([, tool]) => ({ tool, path: file }));
}

const TEST_FILE =
  /(\.|_)(test|spec)\.[cm]?[jt]sx?$|^test_.+\.py$|_test\.py$|_test\.go$|Tests?\.java$|^tests?\.rs$/;
const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec']);

export interface TestLayout {
  files: string[];
  layout: 'separate' | 'colocated' | '__tests__' | 'mixed' | 'none';
  directories: string[];
  patterns: string[];
}

export function testLayout(inv: Inventory): TestLayout {
  const files = inv.files
    .map((f) => f.path)
    .filter((p) => TEST_FILE.test(path.posix.basename(p)) || p.split('/').some((part) => TEST_DIRS.has(part)))
    .filter((p) => /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java)$/.test(p));
  let separate = 0;
  let colocated = 0;
  let underscored = 0;
  const directories = new Set<string>();
  const patterns = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    const testDir = parts.findIndex((part) => TEST_DIRS.has(part));
    if (parts.includes('__tests__')) underscored++;
    else if (testDir >= 0) {
      separate++;
      directories.add(parts.slice(0, testDir + 1).join('/'));
    } else colocated++;
    const base = path.posix.basename(file);
    const suffix = /(\.(test|spec)\.[cm]?[jt]sx?|_test\.(go|py)|Tests?\.java)$/.exec(base)?.[0];
    if (suffix) patterns.add(`*${suffix}`);
    else if (base.startsWith('test_')) patterns.add('test_*.py');
  }
  const total = separate + colocated + underscored;
  const layout =
    total === 0
      ? 'none'
      : separate / total >= 0.8
        ? 'separate'
        : colocated / total >= 0.8
          ? 'colocated'
          : underscored / total >= 0.8
            ? '__tests__'
            : 'mixed';
  return { files, layout, directories: [...directories].sort(), patterns: [...patterns].sort() };
}

/** Test frameworks: detected from dependencies, plus the language's built-in runner when its tests exist. */
export function testFrameworks(frameworks: Iterable<string>, tests: TestLayout): string[] {
  const runners = new Set([
    'Vitest',
    'Jest',
    'Mocha',
    'Playwright',
    'Cypress',
    'pytest',
    'JUnit',
    'JUnit 5',
    'TestNG',
    'testify',
  ]);
  const out = [...frameworks].filter((f) => runners.has(f));
  if (tests.files.some((f) => f.endsWith('_test.go'))) out.push('go test');
  if (tests.files.some((f) => f.endsWith('.rs'))) out.push('cargo test');
  if (!out.includes('pytest') && tests.files.some((f) => f.endsWith('.py'))) out.push('unittest');
  return out;
}
