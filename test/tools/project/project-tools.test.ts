import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext, type ToolHarness, type ToolSession } from '../../helpers/tool-context.js';
import { FIXTURE_REPO } from '../code/fixture.js';

// The tools' execute runs directly on the fixture workspace (no HTTP): a failing call rejects.
describe('project tools on the multi-language fixture', () => {
  let t: ToolHarness;
  let s: ToolSession;
  beforeAll(async () => {
    t = await toolContext();
    s = await t.session({ profile: 'read-only' });
    cpSync(FIXTURE_REPO, s.dir, { recursive: true });
  });
  afterAll(() => t.close());

  const data = (tool: string, input: unknown = {}) => s.run(tool, input);

  it('detect_project_type reads ecosystems, package managers and frameworks from the manifests', async () => {
    const result = await data('detect_project_type');
    expect(result.ecosystems).toEqual(['node', 'typescript', 'python', 'go', 'rust', 'java']);
    expect(result.packageManagers).toEqual(['npm', 'pip', 'go modules', 'cargo', 'maven']);
    expect(result.frameworks.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['Fastify', 'React', 'Vitest', 'Flask', 'pytest', 'Spring Boot', 'JUnit 5']),
    );
    expect(result.frameworks).toContainEqual({ name: 'Flask', evidence: 'py/requirements.txt: flask' });
    expect(result.languages[0]).toEqual({ language: 'TypeScript', files: 11, bytes: expect.any(Number) });
    expect(result.containers).toEqual(['Dockerfile']);
    expect(result.ci).toEqual([{ system: 'GitHub Actions', path: '.github/workflows/ci.yml' }]);
  });

  it('detect_project_type gives build and test commands with the directory to run them in', async () => {
    const { commands } = await data('detect_project_type');
    const tests = commands
      .filter((c: { kind: string }) => c.kind === 'test')
      .map((c: { command: string; cwd: string }) => `${c.cwd}: ${c.command}`);
    expect(tests).toEqual([
      '.: npm test',
      'py: pytest',
      'go: go test ./...',
      'rust: cargo test',
      'java: mvn test',
      '.: make test',
    ]);
    expect(commands).toContainEqual({
      kind: 'build',
      command: 'npm run build',
      cwd: '.',
      source: 'package.json',
    });
  });

  it('detect_project_type picks the package manager from the lockfile', async () => {
    writeFileSync(path.join(s.dir, 'pnpm-lock.yaml'), 'lockfileVersion: 9\n');
    const { packageManagers, commands } = await data('detect_project_type');
    expect(packageManagers[0]).toBe('pnpm');
    expect(commands[0]).toMatchObject({ command: 'pnpm run build' });
  });

  it('extract_conventions measures indentation per language, quotes, semicolons and line endings', async () => {
    const result = await data('extract_conventions');
    expect(result.indentation).toMatchObject({
      style: 'spaces',
      size: 2,
      language: 'TypeScript',
      declared: 'space 2',
    });
    expect(result.indentation.byLanguage).toEqual(
      expect.arrayContaining([
        { language: 'Go', style: 'tabs' },
        { language: 'Python', style: 'spaces', size: 4 },
        { language: 'TypeScript', style: 'spaces', size: 2 },
      ]),
    );
    expect(result.lineEndings).toBe('lf');
    expect(result.finalNewline).toBe(true);
    expect(result.semicolons).toBe('always');
    expect(result.quotes).toEqual(
      expect.arrayContaining([
        { language: 'javascript/typescript', style: 'single' },
        { language: 'python', style: 'double' },
      ]),
    );
  });

  it('extract_conventions reports naming, test layout and lint/format tooling', async () => {
    const result = await data('extract_conventions');
    expect(result.naming).toEqual(
      expect.arrayContaining([
        { language: 'Python', functions: 'snake_case', types: 'PascalCase' },
        { language: 'Go', functions: 'PascalCase', types: 'PascalCase' },
      ]),
    );
    expect(result.naming.find((n: { language: string }) => n.language === 'TypeScript').constants).toBe(
      'UPPER_SNAKE',
    );
    expect(result.tests).toEqual({
      frameworks: ['Vitest', 'pytest', 'JUnit 5', 'JUnit'],
      layout: 'separate',
      directories: ['test'],
      patterns: ['*.spec.ts'],
      count: 1,
      examples: ['test/format.spec.ts'],
    });
    expect(result.tooling).toEqual([
      { tool: 'EditorConfig', path: '.editorconfig' },
      { tool: 'Prettier', path: '.prettierrc' },
      { tool: 'TypeScript compiler', path: 'tsconfig.json' },
    ]);
  });

  it('get_project_overview names the project, its entry points and key files', async () => {
    const result = await data('get_project_overview');
    expect(result.name).toBe('fixture-shop');
    expect(result.description).toBe("A small multi-language shop used to test toolgate's code intelligence.");
    expect(result.entryPoints).toEqual([
      { path: 'src/index.ts', reason: 'package.json "main"' },
      { path: 'rust/src/main.rs', reason: 'Rust binary' },
      { path: 'go/main.go', reason: 'Go package main with func main' },
      { path: 'java/src/main/java/com/example/App.java', reason: 'Java static void main' },
    ]);
    expect(result.keyFiles).toEqual(
      expect.arrayContaining([
        { path: 'README.md', role: 'readme' },
        { path: 'go/go.mod', role: 'manifest' },
        { path: 'Dockerfile', role: 'container' },
      ]),
    );
    expect(result.languages.find((l: { language: string }) => l.language === 'Python')).toEqual({
      language: 'Python',
      files: 4,
      bytes: expect.any(Number),
      lines: 35,
    });
    expect(result.directories).toContainEqual({
      path: 'src/util',
      files: 3,
      bytes: 333,
      languages: ['TypeScript'],
    });
  });

  it('get_project_overview cuts the directory summary to the token budget', async () => {
    const { data, error } = await s.attempt('get_project_overview', { max_tokens: 150 });
    expect(error).toBeUndefined();
    expect(data.truncated).toBe(true);
    expect(data.directories.every((d: { path: string }) => !d.path.includes('/'))).toBe(true);
  });

  it('project tools work on an empty workspace', async () => {
    const empty = await t.session({ profile: 'read-only' });
    for (const tool of ['detect_project_type', 'extract_conventions', 'get_project_overview']) {
      const { error } = await empty.attempt(tool, {});
      expect(error, tool).toBeUndefined();
    }
    const detected = await empty.run('detect_project_type', {});
    expect(detected.ecosystems).toEqual([]);
  });
});
