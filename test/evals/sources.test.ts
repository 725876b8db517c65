// The runner reaches tools from outside as it reaches built-ins: an MCP server's tools (server-memory,
// run in each case's session) through REST and MCP, each case in its own session and workspace.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDataset } from '../../src/evals/dataset.js';
import { runEvals } from '../../src/evals/runner.js';
import { injectTransport } from '../../src/evals/transport.js';
import { ADMIN_KEY, injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { MEMORY_SERVER_CONFIG } from '../helpers/mcp-memory.js';

let t: InjectApp;
let configDir: string;
beforeAll(async () => {
  configDir = tempDir('toolgate-eval-config-');
  const configFile = path.join(configDir, 'config.json');
  writeFileSync(configFile, JSON.stringify(MEMORY_SERVER_CONFIG));
  t = await injectApp({ TOOLGATE_CONFIG: configFile });
});
afterAll(async () => {
  await t.close();
  rmSync(configDir, { recursive: true, force: true });
});

const entity = { entities: [{ name: 'toolgate', entityType: 'service', observations: ['runs tools'] }] };

describe('eval cases on an MCP source', () => {
  it('run in fresh sessions through REST and MCP, and see only their own workspace', async () => {
    const cases = [
      {
        name: 'create then read',
        tool: 'memory__read_graph',
        calls: [
          { tool: 'memory__create_entities', input: entity },
          { tool: 'memory__read_graph', via: 'mcp', input: {} },
        ],
        expect: { text: 'toolgate', files: { '.memory.jsonl': { contains: '"toolgate"' } } },
      },
      // A fresh session: nothing the first case created is here.
      {
        name: 'a fresh session starts empty',
        tool: 'memory__read_graph',
        input: {},
        expect: { data: { entities: [] }, files: { '.memory.jsonl': null } },
      },
    ];
    const report = await runEvals(
      [parseDataset('memory', JSON.stringify(cases), 'json')],
      [{ variant: { name: 'default' }, transport: injectTransport(t.app), adminToken: ADMIN_KEY }],
      { concurrency: 1 },
    );
    expect(report.variants[0].failures).toEqual([]);
    expect(report.variants[0].tools.map((row) => row.tool)).toEqual(['memory__read_graph']);
  });
});
