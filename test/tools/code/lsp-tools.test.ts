import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEditDiagnostics } from '../../../src/code/lsp/edit-diagnostics.js';
import { type InjectApp } from '../../helpers/app.js';
import { injectAppWithConfig } from '../../ops/with-config.js';

// The code tools with real language servers (pyright, typescript-language-server) started inside the
// session runtime (bwrap, or unisolated in the suite's second pass): one app and one warm session per
// language for the whole file.

const PY = {
  'core.py':
    'class Context:\n    """The run\'s state."""\n\n\ndef make() -> Context:\n    return Context()\n',
  // Uses the syntax index does not tie to the class: an annotation inside a generic, an except-free
  // module-qualified use.
  'use.py':
    'import core\nfrom core import Context, make\n\n\ndef run(items: list[Context]) -> None:\n' +
    '    ctx: Context = make()\n    other = core.Context()\n',
};
const TS = {
  'tsconfig.json': '{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}',
  'src/a.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/b.ts': "import { add } from './a.js';\n\nexport const three: number = add(1, 2);\n",
};

describe('code tools answered by language servers', () => {
  let t: InjectApp;
  let py: { id: string; token: string };
  let ts: { id: string; token: string };
  const write = (session: { id: string }, files: Record<string, string>) => {
    const dir = t.app.services.workspaces.dirFor(session.id);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  };
  const call = async (session: { id: string; token: string }, tool: string, input: unknown) => {
    const res = await t.call(session, tool, input);
    return { status: res.status, body: res.body };
  };
  const data = async (session: { id: string; token: string }, tool: string, input: unknown) => {
    const res = await call(session, tool, input);
    if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  beforeAll(async () => {
    // A profile whose sessions' edits report no diagnostics.
    // The edit budget (2 s by default, half of it for the state before the change) is a latency goal;
    // pyright on a loaded machine (the whole suite in parallel) takes longer, and these tests are about
    // which problems are new, so they give the server the time it needs.
    t = await injectAppWithConfig(
      {
        profiles: { quiet: { permissions: ['read', 'write'], editDiagnostics: false } },
        lsp: { editBudgetMs: 60_000 },
      },
      { TOOLGATE_LSP: 'on' },
    );
    py = await t.createSession({ profile: 'read-write' });
    ts = await t.createSession({ profile: 'read-write' });
    write(py, PY);
    write(ts, TS);
    // Warm both servers (the first start takes seconds).
    await Promise.all([
      data(py, 'diagnostics', { path: 'core.py', wait_ms: 60_000 }),
      data(ts, 'diagnostics', { path: 'src/a.ts', wait_ms: 60_000 }),
    ]);
  }, 120_000);
  afterAll(() => t.close());

  it('diagnostics reports a type error of a file, errors first, and nothing once it is fixed', async () => {
    write(py, { 'bad.py': 'from core import make\n\nx: int = make()\ny = undefined_name\n' });
    const bad = await data(py, 'diagnostics', { path: 'bad.py', wait_ms: 20_000 });
    expect(bad.source).toBe('lsp');
    expect(bad.errors).toBe(2);
    expect(bad.diagnostics.map((d: { line: number; severity: string }) => [d.line, d.severity])).toEqual([
      [3, 'error'],
      [4, 'error'],
    ]);
    expect(bad.diagnostics[1].message).toContain('undefined_name');
    write(py, { 'bad.py': 'from core import make\n\nx = make()\n' });
    const fixed = await data(py, 'diagnostics', { path: 'bad.py', wait_ms: 20_000 });
    expect(fixed).toMatchObject({ errors: 0, checked: 1, unanswered: 0 });
  });

  it('diagnostics checks a TypeScript file with the TypeScript server', async () => {
    write(ts, { 'src/c.ts': "import { add } from './a.js';\n\nexport const s: string = add(1, 2);\n" });
    const result = await data(ts, 'diagnostics', { path: 'src', wait_ms: 30_000 });
    expect(result.servers).toEqual([{ server: 'typescript', state: 'answered' }]);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ path: 'src/c.ts', line: 3, severity: 'error' });
  });

  it("a server's start is on the session's audit log, not counted as one of its calls", async () => {
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${ts.id}&limit=200`));
    const rows = (audit.body.entries as { tool: string; entryPoint: string; inputSummary: string }[]).filter(
      (row) => row.tool === 'language_server:typescript',
    );
    expect(rows[0]).toMatchObject({ entryPoint: 'admin' });
    expect(rows.map((row) => JSON.parse(row.inputSummary).event)).toContain('started');
  });

  it('diagnostics refuses with 422 where no server serves the files', async () => {
    write(py, { 'notes.md': '# notes\n', 'main.go': 'package main\n\nfunc main() {}\n' });
    const markdown = await call(py, 'diagnostics', { path: 'notes.md' });
    expect(markdown.status).toBe(422);
    expect(markdown.body.error.code).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('find_references answers from the server, with the uses the syntax index misses', async () => {
    const result = await data(py, 'find_references', { name: 'Context', path: 'core.py' });
    expect(result.source).toBe('lsp');
    const at = result.references.map((r: { path: string; line: number }) => `${r.path}:${r.line}`);
    expect(at).toEqual(
      expect.arrayContaining(['core.py:5', 'core.py:6', 'use.py:5', 'use.py:6', 'use.py:7']),
    );
    // Neither the definition nor the name in the import list is a use.
    expect(at).not.toContain('core.py:1');
    expect(at).not.toContain('use.py:2');
    expect(result.references.every((r: { confidence: string }) => r.confidence === 'resolved')).toBe(true);
  });

  it('resolve_symbol and get_symbol_info answer from the server', async () => {
    const resolved = await data(py, 'resolve_symbol', { name: 'make', path: 'use.py', line: 6 });
    expect(resolved).toMatchObject({ source: 'lsp', resolution: 'import' });
    expect(resolved.definitions.map((d: { path: string; line: number }) => `${d.path}:${d.line}`)).toEqual([
      'core.py:5',
    ]);
    const info = await data(py, 'get_symbol_info', { name: 'Context', path: 'use.py' });
    expect(info.source).toBe('lsp');
    expect(info.symbols[0].hover).toContain('class Context');
  });

  it('answers from the syntax index where no server serves the language', async () => {
    const result = await data(py, 'find_references', { name: 'main' });
    expect(result.source).toBe('syntax');
  });

  it('rename_symbol shows the diff with dry_run, renames across files as one change, and undoes', async () => {
    const dir = t.app.services.workspaces.dirFor(py.id);
    const before = readFileSync(path.join(dir, 'use.py'), 'utf8');
    const dry = await data(py, 'rename_symbol', {
      path: 'core.py',
      name: 'make',
      new_name: 'build',
      dry_run: true,
    });
    expect(dry.files.map((f: { path: string }) => f.path)).toEqual(['bad.py', 'core.py', 'use.py']);
    expect(dry.diff).toContain('+def build() -> Context:');
    expect(dry.diff).toContain('+from core import Context, build');
    expect(readFileSync(path.join(dir, 'use.py'), 'utf8')).toBe(before);

    const done = await data(py, 'rename_symbol', { path: 'use.py', name: 'Context', new_name: 'RunContext' });
    expect(done.dryRun).toBe(false);
    const after = readFileSync(path.join(dir, 'use.py'), 'utf8');
    expect(after).toContain('def run(items: list[RunContext]) -> None:');
    expect(after).toContain('other = core.RunContext()');
    expect(readFileSync(path.join(dir, 'core.py'), 'utf8')).toContain('class RunContext:');
    // The server follows the change: the new name has the uses, and undo puts both files back.
    const refs = await data(py, 'find_references', { name: 'RunContext', path: 'core.py' });
    expect(refs.source).toBe('lsp');
    expect(refs.total).toBeGreaterThanOrEqual(5);
    await data(py, 'undo_edit', { path: 'use.py' });
    expect(readFileSync(path.join(dir, 'use.py'), 'utf8')).toBe(before);
    expect(readFileSync(path.join(dir, 'core.py'), 'utf8')).toBe(PY['core.py']);
  });

  it('rename_symbol refuses a file no server serves', async () => {
    const res = await call(py, 'rename_symbol', { path: 'notes.md', name: 'notes', new_name: 'n' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('edits report the problems they introduced, not the ones already there, and none once fixed', async () => {
    const created = await data(py, 'write_file', {
      path: 'e.py',
      content: 'y = undefined_name\nx: int = 1\n',
    });
    // The write brought the file and its error: new.
    expect(created.diagnostics.state).toBe('checked');
    expect(created.diagnostics.problems.map((p: { line: number }) => p.line)).toEqual([1]);
    const broken = await data(py, 'edit_file', {
      path: 'e.py',
      old_string: 'x: int = 1',
      new_string: 'x: int = "s"',
    });
    expect(broken.diagnostics.state).toBe('checked');
    expect(broken.diagnostics.problems).toHaveLength(1);
    expect(broken.diagnostics.problems[0]).toMatchObject({ path: 'e.py', line: 2, severity: 'error' });
    const text = renderEditDiagnostics(broken.diagnostics);
    expect(text).toMatch(/^\nNew problems:\n {2}e\.py:2:\d+ error /);
    const fixed = await data(py, 'multi_edit', {
      path: 'e.py',
      edits: [{ old_string: 'x: int = "s"', new_string: '\nx: int = 2' }],
    });
    // undefined_name is still there but not new.
    expect(fixed.diagnostics).toEqual({ state: 'checked', problems: [], more: 0 });
    const off = await data(py, 'edit_file', {
      path: 'e.py',
      old_string: 'x: int = 2',
      new_string: 'x: int = "t"',
      diagnostics: false,
    });
    expect(off.diagnostics).toBeUndefined();
    // Anthropic's built-in editor answers in its own words, then the new problems.
    const res = await t.http
      .post(`/v1/sessions/${py.id}/calls`)
      .set('authorization', `Bearer ${py.token}`)
      .send({
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'str_replace_based_edit_tool',
            input: {
              command: 'str_replace',
              path: 'e.py',
              old_str: 'x: int = "t"',
              new_str: 'x: int = None',
            },
          },
        ],
      })
      .expect(200);
    expect(res.body.content[0].content).toMatch(
      /^Successfully replaced text at exactly one location\.\nNew problems:\n {2}e\.py:3:\d+ error /,
    );
    // A move reports only what the move broke: the old content's problems came with it.
    const moved = await data(py, 'move_file', { source: 'e.py', destination: 'f.py' });
    expect(moved.diagnostics).toMatchObject({ state: 'checked', problems: [] });
  });

  it('an edit in a session with no server running says so at once and starts none', async () => {
    const fresh = await t.createSession({ profile: 'read-write' });
    const result = await data(fresh, 'write_file', { path: 'g.py', content: 'x: int = "s"\n' });
    expect(result.diagnostics).toEqual({ state: 'not running', problems: [], more: 0 });
    expect(t.app.services.lsp!.manager.state(fresh.id, 'python')).toBe('stopped');
    expect(renderEditDiagnostics(result.diagnostics)).toContain('Diagnostics unavailable');
    // A file no server serves gets no diagnostics field.
    const plain = await data(fresh, 'write_file', { path: 'notes.txt', content: 'hi\n' });
    expect(plain.diagnostics).toBeUndefined();
    // The profile switches it off: not even the state.
    const quiet = await t.createSession({ profile: 'quiet' });
    const off = await data(quiet, 'write_file', { path: 'g.py', content: 'x: int = "s"\n' });
    expect(off.diagnostics).toBeUndefined();
  });

  it('a TypeScript edit reports the type error it introduced, apply_patch and the fix none new', async () => {
    write(ts, { 'src/d.ts': "import { add } from './a.js';\n\nexport const n: number = add(1, 2);\n" });
    await data(ts, 'diagnostics', { path: 'src/d.ts', wait_ms: 30_000 });
    const broken = await data(ts, 'edit_file', {
      path: 'src/d.ts',
      old_string: 'export const n: number',
      new_string: 'export const n: string',
    });
    expect(broken.diagnostics.state).toBe('checked');
    expect(broken.diagnostics.problems).toHaveLength(1);
    expect(broken.diagnostics.problems[0]).toMatchObject({ path: 'src/d.ts', line: 3, severity: 'error' });
    const fixed = await data(ts, 'apply_patch', {
      patch:
        '*** Begin Patch\n*** Update File: src/d.ts\n@@\n-export const n: string = add(1, 2);\n' +
        '+export const n: number = add(1, 2);\n*** End Patch',
    });
    expect(fixed.diagnostics).toEqual({ state: 'checked', problems: [], more: 0 });
  });
});
