// An invalid regex is a 400 INVALID_REGEX whichever grep engine runs: ripgrep, the JavaScript engine
// asked for, and the JavaScript engine the runtime falls back to when `rg` is not on its PATH (a machine
// with only Node). The fallback is forced by starting a real runtime whose PATH leads to no rg.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GrepArgs } from '../../src/runtime/ops/walk.js';
import type { Workspace } from '../../src/runtime/workspace.js';
import { needs } from '../helpers/requires.js';
import { workspaceAt } from '../helpers/runtime.js';

let root: string;
let emptyBin: string;
const runtimes: { workspace: Workspace; close(): Promise<void> }[] = [];
let withRipgrep: Workspace;
let withoutRipgrep: Workspace;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tg-grep-regex-'));
  writeFileSync(path.join(root, 'a.txt'), 'foo(bar)\n');
  // A directory with no programs at all: the runtime's `rg --version` fails, as where rg is not installed.
  emptyBin = mkdtempSync(path.join(tmpdir(), 'tg-grep-nobin-'));
  runtimes.push(workspaceAt(root), workspaceAt(root, { path: emptyBin }));
  [withRipgrep, withoutRipgrep] = runtimes.map((r) => r.workspace);
});
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(emptyBin, { recursive: true, force: true });
});

const grep = (workspace: Workspace, args: Partial<GrepArgs>) =>
  workspace.call('grep', {
    path: '.',
    pattern: 'foo',
    fixedStrings: false,
    caseInsensitive: false,
    multiline: false,
    context: 0,
    globs: [],
    maxHits: 100,
    engine: 'auto',
    ...args,
  });

const refusal = (call: Promise<unknown>) =>
  call.then(
    () => ({ code: 'none (answered)' }),
    (err: { code?: string; statusCode?: number }) => ({ code: err.code, statusCode: err.statusCode }),
  );

describe('grep without ripgrep (the JavaScript fallback)', () => {
  it('falls back to the JavaScript engine when rg is not on the PATH', async () => {
    const { result } = await grep(withoutRipgrep, { pattern: 'foo' });
    expect(result.engine).toBe('javascript');
    expect(result.hits.map((hit) => hit.path)).toEqual(['a.txt']);
  });

  it.each(['auto', 'javascript', 'ripgrep'] as const)(
    'answers an invalid regex with 400 INVALID_REGEX (engine %s)',
    async (engine) => {
      expect(await refusal(grep(withoutRipgrep, { pattern: 'foo(', engine }))).toEqual({
        code: 'INVALID_REGEX',
        statusCode: 400,
      });
    },
  );

  it('still says ripgrep is missing for a valid pattern that asks for it', async () => {
    expect(await refusal(grep(withoutRipgrep, { pattern: 'foo', engine: 'ripgrep' }))).toMatchObject({
      code: 'TOOL_FAILED',
    });
  });
});

const noRipgrep = needs('ripgrep', 'the invalid-regex answer of the ripgrep engine');

describe.skipIf(noRipgrep)('grep with ripgrep', () => {
  it.each(['auto', 'javascript', 'ripgrep'] as const)(
    'answers an invalid regex with 400 INVALID_REGEX (engine %s)',
    async (engine) => {
      expect(await refusal(grep(withRipgrep, { pattern: 'foo(', engine }))).toEqual({
        code: 'INVALID_REGEX',
        statusCode: 400,
      });
    },
  );
});
