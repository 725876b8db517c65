import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LspManager } from '../../src/code/lsp/manager.js';
import { effectiveLimits } from '../../src/runtime/runner/limits.js';
import { tempDir } from '../helpers/app.js';
import { workspaceAt } from '../helpers/runtime.js';

// The manager's lifecycle with a tiny real server process (test/fixtures/lsp/fake-server.mjs) started
// through a real session runtime: shared per session and language, idle-stopped, restarted after a crash.

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/lsp/fake-server.mjs');
describe('LspManager', () => {
  const root = tempDir('toolgate-lsp-manager-');
  const ws = workspaceAt(root);
  const manager = new LspManager({
    idleMs: 400,
    startBudgetMs: 20_000,
    limits: effectiveLimits(600_000),
    root: () => root,
    spec: (language) =>
      language === 'fake'
        ? {
            languageId: 'plaintext',
            command: `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE)}`,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          }
        : undefined,
  });
  const starts = () => readFileSync(path.join(root, 'starts.log'), 'utf8').trim().split('\n').length;

  afterAll(async () => {
    manager.close();
    await ws.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts one server per session and language on demand and shares it', async () => {
    expect(manager.client('s1', ws.workspace.runtime, 'cobol')).toBeUndefined();
    expect(manager.state('s1', 'fake')).toBe('stopped');
    const first = manager.client('s1', ws.workspace.runtime, 'fake');
    expect(manager.state('s1', 'fake')).toBe('starting');
    const [a, b] = await Promise.all([first, manager.client('s1', ws.workspace.runtime, 'fake')]);
    expect(a).toBe(b);
    expect(manager.state('s1', 'fake')).toBe('running');
    expect(starts()).toBe(1);
  });

  it('stops an idle server and starts a new one on the next call', async () => {
    const before = await manager.client('s1', ws.workspace.runtime, 'fake')!;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(manager.state('s1', 'fake')).toBe('stopped');
    const after = await manager.client('s1', ws.workspace.runtime, 'fake')!;
    expect(after).not.toBe(before);
    expect(starts()).toBe(2);
  });

  it('starts the server again after it crashed', async () => {
    const client = await manager.client('s1', ws.workspace.runtime, 'fake')!;
    await client.sync('crash.txt', 'plaintext', 'boom');
    for (let i = 0; i < 50 && manager.state('s1', 'fake') !== 'stopped'; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(manager.state('s1', 'fake')).toBe('stopped');
    expect(client.alive).toBe(false);
    const again = await manager.client('s1', ws.workspace.runtime, 'fake')!;
    expect(again.alive).toBe(true);
    expect(starts()).toBe(3);
    manager.forget('s1');
    expect(manager.state('s1', 'fake')).toBe('stopped');
  });
});
