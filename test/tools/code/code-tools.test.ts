import { utimesSync, writeFileSync, rmSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';
import { fixtureSession } from './fixture.js';

describe('code tools on the multi-language fixture', () => {
  let t: InjectApp;
  let s: Awaited<ReturnType<typeof fixtureSession>>;
  beforeAll(async () => {
    t = await injectApp();
    s = await fixtureSession(t);
  });
  afterAll(() => t.close());

  const data = async (tool: string, input: unknown) => {
    const res = await t.call(s, tool, input);
    if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  it('search_code finds a class by exact name with its line and signature', async () => {
    const result = await data('search_code', { query: 'UserService', match: 'exact' });
    expect(result.matches).toEqual([
      {
        path: 'src/services/user-service.ts',
        name: 'UserService',
        kind: 'class',
        line: 7,
        endLine: 16,
        signature: 'class UserService',
        language: 'typescript',
        score: 1003,
      },
    ]);
  });

  it('search_code matches fuzzily in-order letters and ranks the closest first', async () => {
    const result = await data('search_code', { query: 'fmtname' });
    expect(result.matches[0]).toMatchObject({ name: 'formatName', path: 'src/util/format.ts', line: 2 });
    const prefix = await data('search_code', { query: 'create' });
    expect(prefix.matches.map((m: { name: string }) => m.name).slice(0, 2)).toEqual([
      'create',
      'create_user',
    ]);
  });

  it('search_code filters by kind, language and path', async () => {
    const methods = await data('search_code', { query: 'save', kinds: ['method'] });
    expect(methods.matches.map((m: { path: string; line: number }) => `${m.path}:${m.line}`).sort()).toEqual([
      'py/app/models.py:7',
      'src/db/repo.ts:7',
    ]);
    const python = await data('search_code', { query: 'save', languages: ['python'] });
    expect(python.matches.map((m: { path: string }) => m.path)).toEqual(['py/app/models.py']);
    const scoped = await data('search_code', { query: 'main', match: 'exact', path: 'go' });
    expect(scoped.matches).toHaveLength(1);
    expect(scoped.matches[0]).toMatchObject({ path: 'go/main.go', kind: 'function', language: 'go' });
  });

  it('search_code leaves out .gitignored files and node_modules', async () => {
    mkdirSync(path.join(s.dir, 'node_modules/dep'), { recursive: true });
    writeFileSync(path.join(s.dir, 'node_modules/dep/index.js'), 'export function ignoredDependency() {}\n');
    expect((await data('search_code', { query: 'ignoredByGitignore', match: 'exact' })).matches).toEqual([]);
    expect((await data('search_code', { query: 'ignoredDependency', match: 'exact' })).matches).toEqual([]);
  });

  it('get_symbol_info returns doc comment, signature and body range of a member', async () => {
    const result = await data('get_symbol_info', { name: 'UserService.create', include_source: true });
    expect(result.symbols).toHaveLength(1);
    expect(result.symbols[0]).toMatchObject({
      path: 'src/services/user-service.ts',
      kind: 'method',
      container: 'UserService',
      line: 11,
      startLine: 11,
      endLine: 15,
      signature: 'create(name: string): string',
      doc: 'Adds a user and returns its display name.',
      exported: true,
    });
    expect(result.symbols[0].source.split('\n')[0]).toBe('  create(name: string): string {');
  });

  it('get_symbol_info reads docstrings, Go and Rust doc comments', async () => {
    const user = await data('get_symbol_info', { name: 'User', kind: 'class' });
    expect(user.symbols[0]).toMatchObject({
      path: 'py/app/models.py',
      doc: 'A registered user.',
      endLine: 8,
    });
    const store = await data('get_symbol_info', { name: 'NewStore' });
    expect(store.symbols[0]).toMatchObject({
      doc: 'NewStore returns an empty store.',
      signature: 'func NewStore() *Store',
    });
    const area = await data('get_symbol_info', { name: 'area' });
    expect(area.symbols[0]).toMatchObject({
      path: 'rust/src/geometry.rs',
      line: 8,
      doc: 'The area of a rectangle.',
    });
  });

  it('get_symbol_info answers 404 for an unknown name', async () => {
    const res = await t.call(s, 'get_symbol_info', { name: 'doesNotExist' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('find_references lists the call sites of a function, tied to it by imports', async () => {
    const result = await data('find_references', { name: 'formatName' });
    expect(result.definitions.map((d: { path: string; line: number }) => `${d.path}:${d.line}`)).toEqual([
      'src/util/format.ts:2',
    ]);
    expect(result.references).toEqual([
      {
        path: 'src/services/user-service.ts',
        line: 12,
        column: 21,
        kind: 'call',
        confidence: 'resolved',
        text: 'const display = formatName(name);',
      },
      {
        path: 'src/ui/Button.tsx',
        line: 4,
        column: 19,
        kind: 'call',
        confidence: 'resolved',
        text: 'return <button>{formatName(props.label)}</button>;',
      },
      {
        path: 'test/format.spec.ts',
        line: 6,
        column: 12,
        kind: 'call',
        confidence: 'resolved',
        text: "expect(formatName(' ada ')).toBe('ADA');",
      },
    ]);
  });

  it('find_references marks same-named method calls it cannot tie to a definition', async () => {
    const result = await data('find_references', { name: 'save', path: 'src/db/repo.ts' });
    expect(result.definitions).toHaveLength(1);
    expect(
      result.references.map((r: { path: string; line: number; confidence: string }) => [
        r.path,
        r.line,
        r.confidence,
      ]),
    ).toEqual([
      ['py/app/service.py', 7, 'name'],
      ['src/services/user-service.ts', 13, 'name'],
    ]);
    const strict = await data('find_references', {
      name: 'save',
      path: 'src/db/repo.ts',
      include_unresolved: false,
    });
    expect(strict.references).toEqual([]);
  });

  it('resolve_symbol follows a TS import through an index re-export with a rename', async () => {
    const result = await data('resolve_symbol', { name: 'slug', path: 'src/index.ts' });
    expect(result.resolution).toBe('import');
    // No language server runs: the answer says it comes from the syntax index.
    expect(result.source).toBe('syntax');
    expect(
      result.definitions.map((d: { path: string; name: string; line: number }) => [d.path, d.name, d.line]),
    ).toEqual([['src/util/slug.ts', 'slugify', 1]]);
    expect(result.chain).toEqual([
      { path: 'src/index.ts', line: 2, via: 'import', source: './util/index.js' },
      { path: 'src/util/index.ts', line: 2, via: 're-export', source: './slug' },
    ]);
  });

  it('resolve_symbol follows Python package imports, Go packages, Rust use and Java imports', async () => {
    const cases: [string, string, string, number][] = [
      ['User', 'py/main.py', 'py/app/models.py', 1],
      ['models.User', 'py/app/service.py', 'py/app/models.py', 1],
      ['create_user', 'py/main.py', 'py/app/service.py', 5],
      ['store.NewStore', 'go/main.go', 'go/store/store.go', 9],
      ['area', 'rust/src/main.rs', 'rust/src/geometry.rs', 8],
      [
        'Helper',
        'java/src/main/java/com/example/App.java',
        'java/src/main/java/com/example/util/Helper.java',
        3,
      ],
    ];
    for (const [name, from, file, line] of cases) {
      const result = await data('resolve_symbol', { name, path: from });
      expect({
        name,
        resolution: result.resolution,
        at: result.definitions.map((d: { path: string; line: number }) => `${d.path}:${d.line}`),
      }).toEqual({
        name,
        resolution: 'import',
        at: [`${file}:${line}`],
      });
    }
  });

  it('resolve_symbol prefers a local definition and says when it only matched by name', async () => {
    const local = await data('resolve_symbol', { name: 'main', path: 'src/index.ts' });
    expect(local.resolution).toBe('local');
    expect(local.definitions).toHaveLength(1);
    const byName = await data('resolve_symbol', { name: 'Rect', path: 'src/index.ts' });
    expect(byName.resolution).toBe('name-match');
    expect(byName.definitions[0]).toMatchObject({ path: 'rust/src/geometry.rs', line: 2 });
  });

  it('get_imports_exports lists re-exports, their resolved files and the importers', async () => {
    const result = await data('get_imports_exports', { path: 'src/util/index.ts' });
    expect(result.imports).toEqual([
      {
        source: './format',
        line: 1,
        bindings: [{ local: '*', imported: '*' }],
        reexport: true,
        resolved: ['src/util/format.ts'],
      },
      {
        source: './slug',
        line: 2,
        bindings: [{ local: 'slug', imported: 'slugify' }],
        reexport: true,
        resolved: ['src/util/slug.ts'],
      },
    ]);
    expect(result.exports).toEqual([
      { name: '*', line: 1, source: './format' },
      { name: 'slug', local: 'slugify', line: 2, source: './slug' },
    ]);
    expect(result.importedBy).toEqual(['src/index.ts']);
  });

  it('get_imports_exports refuses files the index does not parse', async () => {
    const res = await t.call(s, 'get_imports_exports', { path: 'README.md' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('UNSUPPORTED_LANGUAGE');
    const outside = await t.call(s, 'get_imports_exports', { path: '../../etc/passwd' });
    expect(outside.status).toBe(403);
  });

  it('build_dependency_graph reports both import cycles, shortest first', async () => {
    const result = await data('build_dependency_graph', { path: 'src' });
    expect(result.cycles).toEqual([
      ['src/db/repo.ts', 'src/services/user-service.ts', 'src/db/repo.ts'],
      ['src/cycle/a.ts', 'src/cycle/b.ts', 'src/cycle/c.ts', 'src/cycle/a.ts'],
    ]);
    expect(result.edges).toContainEqual({ from: 'src/index.ts', to: 'src/util/index.ts', line: 2 });
    expect(result.files).not.toContain('go/main.go');
  });

  it('build_dependency_graph resolves Go, Python, Rust and Java imports and counts external ones', async () => {
    const result = await data('build_dependency_graph', { include_external: true });
    const edges = result.edges.map((e: { from: string; to: string }) => `${e.from} -> ${e.to}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'go/main.go -> go/store/store.go',
        'py/main.py -> py/app/__init__.py',
        'py/app/__init__.py -> py/app/models.py',
        'rust/src/main.rs -> rust/src/geometry.rs',
        'java/src/main/java/com/example/App.java -> java/src/main/java/com/example/util/Helper.java',
      ]),
    );
    expect(result.external).toEqual([
      { source: 'fmt', count: 1 },
      { source: 'vitest', count: 1 },
    ]);
  });

  it('get_codebase_map ranks the most referenced file first and fits the budget', async () => {
    const result = await data('get_codebase_map', { max_tokens: 4000 });
    // The import cycle a → b → c → a (c reads `a` as a value) keeps its rank among its own files.
    const outsideCycle = result.files.filter((f: { path: string }) => !f.path.startsWith('src/cycle/'));
    expect(outsideCycle[0].path).toBe('src/util/format.ts');
    expect(outsideCycle[0].definitions[0]).toEqual({
      name: 'formatName',
      kind: 'function',
      line: 2,
      signature: 'function formatName(name: string): string',
    });
    expect(result.truncated).toBe(false);
    const small = await data('get_codebase_map', { max_tokens: 64 });
    expect(small.truncated).toBe(true);
    expect(small.tokens).toBeLessThanOrEqual(64);
    const res = await t.call(s, 'get_codebase_map', { max_tokens: 64 });
    expect(res.status).toBe(200);
  });

  it('get_codebase_map ranks the focus neighbourhood higher', async () => {
    const result = await data('get_codebase_map', { focus_files: ['go/main.go'], max_tokens: 4000 });
    expect(result.files.slice(0, 2).map((f: { path: string }) => f.path)).toEqual([
      'go/main.go',
      'go/store/store.go',
    ]);
    const bySymbol = await data('get_codebase_map', { focus_symbols: ['area'], max_tokens: 4000 });
    expect(bySymbol.files[0].path).toBe('rust/src/geometry.rs');
  });

  it('re-parses only changed files, and sees edits and deletions', async () => {
    await data('search_code', { query: 'x' });
    const unchanged = await data('search_code', { query: 'formatName', match: 'exact' });
    expect(unchanged.index.parsed).toBe(0);
    const file = path.join(s.dir, 'src/util/slug.ts');
    writeFileSync(
      file,
      'export function slugify(text: string): string {\n  return text;\n}\n\nexport function unslug() {}\n',
    );
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const changed = await data('search_code', { query: 'unslug', match: 'exact' });
    expect(changed.index.parsed).toBe(1);
    expect(changed.matches[0]).toMatchObject({ path: 'src/util/slug.ts', line: 5 });
    rmSync(file);
    expect((await data('search_code', { query: 'unslug', match: 'exact' })).matches).toEqual([]);
  });
});

describe('code index confinement', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('never follows a symlink out of the workspace', async () => {
    const outside = tempDir('toolgate-outside-');
    writeFileSync(path.join(outside, 'secret.ts'), 'export function outsideSecret() {}\n');
    const session = await t.createSession({
      profile: 'read-only',
      files: { 'src/a.ts': 'export const a = 1;\n' },
    });
    symlinkSync(outside, path.join(t.app.services.workspaces.dirFor(session.id), 'linked'));
    const res = await t.call(session, 'search_code', { query: 'outsideSecret', match: 'exact' });
    expect(res.status).toBe(200);
    expect(res.body.data.matches).toEqual([]);
    const scoped = await t.call(session, 'search_code', { query: 'a', path: 'linked' });
    expect(scoped.status).toBe(403);
    rmSync(outside, { recursive: true, force: true });
  });

  it('renders compact text for an LLM through the OpenAI batch format', async () => {
    const session = await t.createSession({
      profile: 'read-only',
      files: {
        'src/a.ts': 'export function alpha() {}\n',
        'src/b.ts': "import { alpha } from './a';\nalpha();\n",
      },
    });
    const res = await t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .send({
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'find_references', arguments: '{"name":"alpha"}' },
          },
        ],
      });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('src/b.ts:2:1: alpha();');
  });
});
