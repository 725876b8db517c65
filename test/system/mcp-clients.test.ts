// Third-party MCP clients against a running service: the official conformance suite's server scenarios
// that apply to any server (@modelcontextprotocol/conformance, DNS rebinding protection included) and the
// MCP Inspector CLI (@modelcontextprotocol/inspector): listing tools with a session token, and what it
// shows without one. Both need Node >= 22 (the inspector >= 22.19): they run on the Node 22 binary of the
// npm registry's platform package, as .ci/run's Node 22 pass does, fetched with npx. They take a minute
// and the registry, so only with TOOLGATE_MCP_CLIENTS_TEST=1 (.ci/run sets it).
// The suite has no way to send a token: a loopback proxy in front adds the session's, and passes Host and
// Origin on untouched, so the rebinding scenario's forged headers reach the service as sent.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);
// Nothing here depends on the session runtime: once, in the bwrap pass, when .ci/run runs both.
const enabled = process.env.TOOLGATE_MCP_CLIENTS_TEST === '1' && process.env.TOOLGATE_TEST_SANDBOX !== 'none';
const title = enabled
  ? 'MCP conformance suite and Inspector CLI'
  : 'MCP conformance suite and Inspector CLI (skipped: set TOOLGATE_MCP_CLIENTS_TEST=1 to run them; .ci/run does)';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
/** The server scenarios that hold for any server (the others need the suite's own test tools). */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'resources-list',
  'dns-rebinding-protection',
];

describe.skipIf(!enabled)(title, () => {
  let t: TestApp;
  let proxy: Server;
  let appUrl: string;
  let proxyUrl: string;
  let token: string;
  let home: string;
  let env: NodeJS.ProcessEnv;

  /** Runs an npm package's binary on Node 22; its output whatever its exit code. */
  const npx = async (pkg: string, args: string[], timeout = 180_000) => {
    const result = await run('npx', ['-y', '-p', pkg, ...args], { env, timeout, cwd: home }).catch(
      (err: { stdout?: string; stderr?: string }) => err,
    );
    return `${result.stdout ?? ''}${result.stderr ?? ''}`;
  };

  const inspectorToolsList = (...args: string[]) =>
    npx(INSPECTOR, ['mcp-inspector', '--cli', `${appUrl}/mcp`, '--method', 'tools/list', ...args]);

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'toolgate-mcp-clients-'));
    const nodePackage = `node-${process.platform}-${process.arch}@22`;
    const { stdout } = await run('npx', ['-y', '-p', nodePackage, 'node', '-p', 'process.execPath'], {
      timeout: 180_000,
    });
    env = {
      ...process.env,
      PATH: `${path.dirname(stdout.trim())}${path.delimiter}${process.env.PATH}`,
      // The inspector keeps a catalog and secrets: in the temp dir, in memory.
      HOME: home,
      MCP_CATALOG_PATH: path.join(home, 'catalog.json'),
      MCP_INSPECTOR_SECRET_STORE: 'memory',
      npm_config_update_notifier: 'false',
    };
    t = await startApp();
    appUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    token = (await t.createSession({ profile: 'read-only' })).token;
    const target = new URL(appUrl);
    proxy = createServer((req, res) => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, authorization: `Bearer ${token}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  }, 300_000);

  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await t?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it.each(SCENARIOS)(
    'conformance scenario %s passes',
    async (scenario) => {
      const output = await npx(CONFORMANCE, [
        'conformance',
        'server',
        '--url',
        proxyUrl,
        '--scenario',
        scenario,
      ]);
      const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
      expect(passed, output).not.toBeNull();
      expect(passed![3], output).toBe('0');
      expect(passed![1], output).toBe(passed![2]);
    },
    300_000,
  );

  it('Inspector CLI lists the session’s tools with the token as a header', async () => {
    const output = await inspectorToolsList('--header', `Authorization: Bearer ${token}`);
    expect(output).toContain('"name": "read_file"');
    expect(output).not.toContain('"name": "write_file"');
  }, 300_000);

  it('Inspector CLI without a token shows that a toolgate session token is required', async () => {
    // No terminal here: without this flag the inspector stops before asking the server at all.
    const output = await inspectorToolsList('--stored-auth-only');
    expect(output).toContain('a toolgate session token is required');
  }, 300_000);
});
