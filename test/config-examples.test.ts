// Every config file the repository ships or shows loads through loadConfig with the values it writes:
// docker/config.example.json (the compose file and the image mount it), docker/runtime-images/images.json,
// the ConfigMap of deploy/kubernetes/config.yaml, and each ```json config block of README.md and docs/*.md.
// A block that is not a toolgate config file (an MCP client's, an eval's variants) is listed as such, so
// a new example in the docs is either checked here or named as something else.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type Config } from '../src/config.js';
import { tempDir } from './helpers/app.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((file) => `docs/${file}`)].filter(
  (file) => file.endsWith('.md'),
);

/** Blocks of the docs that are JSON but no config file of toolgate: file → how many. */
const NOT_CONFIG = { 'docs/agents.md': 3, 'docs/evals.md': 1 } as Record<string, number>;

/** What each config block of the docs must give, checked on the loaded config (file → one check each). */
const DOC_CHECKS: Record<string, Array<(config: Config) => void>> = {
  'README.md': [
    (config) => {
      // The "$schema" example: named for editors, ignored by the service.
      expect(config.limits.outputMaxBytes).toBe(262_144);
      expect(config).not.toHaveProperty('$schema');
    },
    (config) => {
      expect(config.profiles.reviewer).toEqual({ permissions: ['read'], categories: ['filesystem', 'code'] });
      expect(config.profiles['read-only']).toEqual({ permissions: ['read'] });
      expect(config.rateLimits).toEqual({
        execution: { limit: 30, windowSeconds: 60 },
        '*': { limit: 600, windowSeconds: 60 },
      });
      expect(config.approval).toEqual(['delete_file']);
      expect(config.limits.outputMaxBytes).toBe(262_144);
      expect(config.limits.readMaxBytes).toBe(10 * 1024 * 1024);
      expect(config.policy.approvalTtlSeconds).toBe(900);
      expect(config.policy.idempotencyTtlSeconds).toBe(24 * 3600);
    },
  ],
  'docs/operations.md': [
    (config) => {
      expect(config.network.openRanges).toEqual(['10.20.30.40/32']);
      expect(config.profiles.builder.network).toEqual({
        mode: 'allowlist',
        allow: ['mirror.internal', '*.pythonhosted.org', 'pypi.org'],
      });
    },
  ],
  'docs/tool-platform.md': [
    (config) => {
      expect(config.mcpServers.memory).toMatchObject({
        command: 'node',
        env: { MEMORY_FILE_PATH: '${WORKSPACE}/.memory.jsonl' },
        readOnlyPaths: ['/srv/toolgate/node_modules'],
        tools: { read_graph: { capabilities: { readsFiles: true } } },
        callTimeoutMs: 60_000,
      });
    },
  ],
  'docs/transfer.md': [
    (config) => {
      expect(config.git).toEqual({ allowedHosts: ['github.com', 'file:///srv/repos'], timeoutSeconds: 120 });
      expect(config.archive).toEqual({
        maxEntries: 50_000,
        maxBytes: 1_073_741_824,
        maxRatio: 200,
        ratioFloorBytes: 16 * 1024 * 1024,
      });
      expect(config.blobs.ttlSeconds).toBe(3600);
      expect(config.limits.uploadMaxBytes).toBe(1_073_741_824);
    },
  ],
};

/** The ```json blocks of a markdown file (indented ones too, as in a list item). */
function jsonBlocks(file: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    const fence = line.trim();
    if (current === undefined && fence === '```json') current = [];
    else if (current !== undefined && fence === '```') {
      blocks.push(current.join('\n'));
      current = undefined;
    } else current?.push(line);
  }
  return blocks;
}

function loadText(text: string, env: Record<string, string> = {}): Config {
  const file = path.join(tempDir(), 'config.json');
  writeFileSync(file, text);
  return loadConfig({ ...env, TOOLGATE_CONFIG: file });
}

describe('shipped config examples', () => {
  it('docker/config.example.json (mounted by docker-compose.yml) loads with its values and the defaults', () => {
    const config = loadConfig({ TOOLGATE_CONFIG: path.join(ROOT, 'docker/config.example.json') });
    expect(config.rateLimits['*']).toEqual({ limit: 600, windowSeconds: 60 });
    expect(config.rateLimits.execution).toEqual({ limit: 60, windowSeconds: 60 });
    expect(config.limits).toMatchObject({ workspaceMaxBytes: 1_073_741_824, writeMaxBytes: 10_485_760 });
    expect(config.limits.maxEntries).toBe(5000);
    expect(config.sessions).toEqual({
      defaultTtlSeconds: 86_400,
      maxTtlSeconds: 2_592_000,
      idleTtlSeconds: 21_600,
      sweepIntervalSeconds: 60,
    });
    expect(config.audit.retentionDays).toBe(30);
    expect(config.shutdown.graceSeconds).toBe(20);
  });

  it('docker/runtime-images/images.json gives the docker backend its three images', () => {
    const config = loadConfig({ TOOLGATE_CONFIG: path.join(ROOT, 'docker/runtime-images/images.json') });
    expect(config.sandbox).toBe('docker');
    expect(config.containers).toMatchObject({
      type: 'docker',
      defaultImage: 'base',
      images: {
        base: 'toolgate/runtime-base:1',
        python: 'toolgate/runtime-python:1',
        node: 'toolgate/runtime-node:1',
      },
      pool: {},
    });
  });

  it("deploy/kubernetes/config.yaml's config.json gives the kubernetes backend its settings", () => {
    const configMap = parseYaml(readFileSync(path.join(ROOT, 'deploy/kubernetes/config.yaml'), 'utf8')) as {
      data: Record<string, string>;
    };
    // The deployment sets TOOLGATE_SANDBOX=kubernetes as well (deploy/kubernetes/deployment.yaml).
    const config = loadText(configMap.data['config.json'], { TOOLGATE_SANDBOX: 'kubernetes' });
    expect(config.sandbox).toBe('kubernetes');
    expect(config.containers).toMatchObject({
      type: 'kubernetes',
      namespace: 'toolgate',
      runtimeImage: 'toolgate:latest',
      workspace: 'pvc',
      images: { base: 'toolgate/runtime-base:1', python: 'toolgate/runtime-python:1' },
      defaultImage: 'base',
    });
  });

  it('every ```json block of README.md and docs/*.md is a config that loads with its values, or listed as none', () => {
    let checked = 0;
    for (const file of DOCS) {
      const blocks = jsonBlocks(file);
      if (file in NOT_CONFIG) {
        expect(blocks.length, `${file}: its JSON blocks that are no config file`).toBe(NOT_CONFIG[file]);
        continue;
      }
      const checks = DOC_CHECKS[file] ?? [];
      expect(blocks.length, `${file}: a JSON block without a check in DOC_CHECKS`).toBe(checks.length);
      blocks.forEach((block, i) => {
        checks[i](loadText(block));
        checked += 1;
      });
    }
    expect(checked).toBe(Object.values(DOC_CHECKS).flat().length);
  });
});
