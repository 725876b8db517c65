import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspClient } from '../../src/code/lsp/client.js';
import { effectiveLimits } from '../../src/runtime/runner/limits.js';
import { tempDir } from '../helpers/app.js';
import { workspaceAt } from '../helpers/runtime.js';

// The LSP client against a real language server (pyright) started through a real session runtime like
// a command: one warm server for the whole file, so the tests stay quick.

const require = createRequire(import.meta.url);
const PYRIGHT = require.resolve('pyright/langserver.index.js');

describe('LspClient over a server the session runtime started', () => {
  const root = tempDir('toolgate-lsp-');
  const ws = workspaceAt(root);
  let client: LspClient;

  beforeAll(async () => {
    writeFileSync(
      path.join(root, 'core.py'),
      'class Context:\n    pass\n\n\ndef make() -> Context:\n    return Context()\n',
    );
    writeFileSync(path.join(root, 'use.py'), 'from core import Context, make\n\nctx: Context = make()\n');
    const process = await ws.workspace.runtime.spawn({
      command: `exec ${JSON.stringify(globalThis.process.execPath)} ${JSON.stringify(PYRIGHT)} --stdio`,
      cwd: '.',
      env: { PATH: globalThis.process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      limits: effectiveLimits(600_000),
    });
    client = await LspClient.start(process, root, 30_000);
    for (const file of ['core.py', 'use.py'])
      await client.sync(file, 'python', readFileSync(path.join(root, file), 'utf8'));
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await ws.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('finds the uses of a class across files, workspace-relative and 1-based', async () => {
    const uses = await client.references('core.py', { line: 1, column: 7 }, 20_000);
    expect(uses?.map((u) => `${u.path}:${u.line}:${u.column}`).sort()).toEqual([
      'core.py:5:15',
      'core.py:6:12',
      'use.py:1:18',
      'use.py:3:6',
    ]);
  });

  it('goes to the definition through the import', async () => {
    const found = await client.definition('use.py', { line: 3, column: 16 }, 20_000);
    expect(found).toEqual([{ path: 'core.py', line: 5, column: 5 }]);
  });

  it('reports the diagnostics of a changed file for that version, and none once fixed', async () => {
    const broken = await client.sync('use.py', 'python', 'from core import make\n\nctx: Context = make()\n');
    const errors = await client.diagnostics('use.py', broken, 20_000);
    expect(errors?.map((d) => [d.line, d.column, d.severity])).toEqual([[3, 6, 'error']]);
    expect(errors?.[0].message).toContain('Context');
    const fixed = await client.sync('use.py', 'python', 'from core import make\n\nctx = make()\n');
    expect(await client.diagnostics('use.py', fixed, 20_000)).toEqual([]);
  });

  it('answers undefined past the budget instead of waiting', async () => {
    expect(await client.diagnostics('never-opened.py', 1, 50)).toBeUndefined();
  });
});
