// MCP servers as tool sources: @modelcontextprotocol/server-memory from node_modules, run by the
// runtime's own node inside each session's sandbox (its node_modules bound read-only). Its tools appear
// as memory__<tool> in category "memory" and every call goes through the pipeline: permissions, rate
// limits, audit; each session has its own server process working in its own workspace. A Streamable
// HTTP server on an allowed loopback host is reached from the service.
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectApp } from '../helpers/app.js';
import { injectApp } from '../helpers/app.js';
import { writeConfigFile } from '../ops/with-config.js';
import { MEMORY_SERVER_CONFIG } from '../helpers/mcp-memory.js';

const config = MEMORY_SERVER_CONFIG;

/** A tool that says everything MCP lets a tool say about itself. */
const LOOKUP = {
  name: 'look_up',
  title: 'Look Up A Word',
  description: 'Look a word up',
  inputSchema: { type: 'object' as const, properties: { word: { type: 'string' } }, required: ['word'] },
  outputSchema: {
    type: 'object' as const,
    properties: { found: { type: 'boolean' } },
    required: ['found'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: true },
  _meta: { 'example.org/source': 'dictionary' },
};

describe('MCP server as a tool source', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp({ TOOLGATE_CONFIG: writeConfigFile(config) });
  });
  afterAll(() => t.close());

  const entity = { entities: [{ name: 'toolgate', entityType: 'service', observations: ['runs tools'] }] };

  it('lists the server tools as <server>__<tool> with capabilities from the annotations', async () => {
    const res = await t.admin(t.http.get('/v1/tools?category=memory'));
    const byName = Object.fromEntries(res.body.tools.map((tool: { name: string }) => [tool.name, tool]));
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining(['memory__create_entities', 'memory__read_graph']),
    );
    expect(byName.memory__read_graph).toMatchObject({ permissions: ['read'], source: 'mcp memory' });
    expect(byName.memory__create_entities.permissions).toEqual(['read', 'write']);
  });

  it('runs the server per session inside its workspace, and audits the calls', async () => {
    const one = await t.createSession({ profile: 'read-write' });
    const two = await t.createSession({ profile: 'read-write' });
    const created = await t.call(one, 'memory__create_entities', entity);
    expect(created.status).toBe(200);
    const graph = await t.call(one, 'memory__read_graph', {});
    expect(JSON.stringify(graph.body.data)).toContain('runs tools');
    // The server's file is in the session's own workspace: it ran there.
    const memoryFile = path.join(t.app.services.workspaces.dirFor(one.id), '.memory.jsonl');
    expect(existsSync(memoryFile)).toBe(true);
    expect(readFileSync(memoryFile, 'utf8')).toContain('toolgate');
    // Another session has its own server and its own (empty) graph.
    const other = await t.call(two, 'memory__read_graph', {});
    expect(JSON.stringify(other.body.data)).not.toContain('runs tools');

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${one.id}`));
    expect(
      audit.body.entries.map((e: { tool: string; category: string }) => `${e.category}/${e.tool}`),
    ).toEqual(['memory/memory__read_graph', 'memory/memory__create_entities']);
  });

  it('stops an unused server so the runtime idles out, and starts it again on the next call', async () => {
    const idle = await injectApp({
      TOOLGATE_CONFIG: writeConfigFile(config),
      TOOLGATE_RUNTIME_IDLE_SECONDS: '1',
    });
    try {
      const s = await idle.createSession({ profile: 'read-write' });
      expect((await idle.call(s, 'memory__create_entities', entity)).status).toBe(200);
      expect(idle.app.services.runtimes.get(s.id)!.state).toBe('running');
      const stopped = async () => {
        for (let i = 0; i < 60 && idle.app.services.runtimes.get(s.id)!.state !== 'stopped'; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        return idle.app.services.runtimes.get(s.id)!.state;
      };
      expect(await stopped()).toBe('stopped');
      // The graph lives in the workspace, so a fresh server sees what the first one wrote.
      const graph = await idle.call(s, 'memory__read_graph', {});
      expect(graph.status).toBe(200);
      expect(JSON.stringify(graph.body.data)).toContain('runs tools');
    } finally {
      await idle.close();
    }
  });

  it('checks permissions and rate limits like any tool', async () => {
    const readOnly = await t.createSession({ profile: 'read-only' });
    const denied = await t.call(readOnly, 'memory__create_entities', entity);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
    expect((await t.call(readOnly, 'memory__read_graph', {})).status).toBe(200);

    const limited = await t.createSession({
      profile: 'read-write',
      rateLimits: { memory: { limit: 2, windowSeconds: 60 } },
    });
    expect((await t.call(limited, 'memory__read_graph', {})).status).toBe(200);
    expect((await t.call(limited, 'memory__search_nodes', { query: 'x' })).status).toBe(200);
    const third = await t.call(limited, 'memory__read_graph', {});
    expect(third.status).toBe(429);
    const bad = await t.call(limited, 'memory__search_nodes', {});
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('a Streamable HTTP MCP server on an allowed host', () => {
  let remote: Server;
  let url: string;
  beforeAll(async () => {
    // A stateless MCP server on loopback: a fresh server and transport per request.
    remote = createServer(async (req, res) => {
      const server = new McpServer({ name: 'remote', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'echo',
            description: 'Echo a text back',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            annotations: { readOnlyHint: true },
          },
          LOOKUP,
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) =>
        request.params.name === 'look_up'
          ? { content: [{ type: 'text', text: 'found' }], structuredContent: { found: true } }
          : { content: [{ type: 'text', text: `echo: ${String(request.params.arguments?.text)}` }] },
      );
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise((resolve) => remote.close(resolve)));

  it('offers its tools through the pipeline', async () => {
    const t = await injectApp({
      TOOLGATE_CONFIG: writeConfigFile({ mcpAllowedHosts: ['127.0.0.1'], mcpServers: { remote: { url } } }),
    });
    try {
      const session = await t.createSession({ profile: 'read-only' });
      const res = await t.call(session, 'remote__echo', { text: 'hi' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] });
      expect((await t.call(session, 'remote__echo', {})).body.error.code).toBe('VALIDATION_FAILED');
      const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
      expect(audit.body.entries.map((e: { category: string }) => e.category)).toEqual(['remote', 'remote']);
    } finally {
      await t.close();
    }
  });

  it("keeps what the server says about a tool: its title (after the server's), outputSchema, annotations, _meta", async () => {
    const configFile = writeConfigFile({ mcpAllowedHosts: ['127.0.0.1'], mcpServers: { remote: { url } } });
    const t = await injectApp({ TOOLGATE_CONFIG: configFile });
    try {
      const listed = await t.admin(t.http.get('/v1/tools?category=remote&format=mcp'));
      const byName = Object.fromEntries(listed.body.tools.map((tool: { name: string }) => [tool.name, tool]));
      expect(byName.remote__look_up).toEqual({
        name: 'remote__look_up',
        title: 'remote: Look Up A Word',
        description: LOOKUP.description,
        inputSchema: expect.objectContaining({ type: 'object', required: ['word'] }),
        outputSchema: LOOKUP.outputSchema,
        // Given hints kept; the one left out is MCP's default (open world), not toolgate's guess.
        annotations: {
          title: 'remote: Look Up A Word',
          readOnlyHint: true,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: true,
        },
        _meta: LOOKUP._meta,
      });
      // No upstream title: the name, one space per underscore run.
      expect(byName.remote__echo.title).toBe('remote: Echo');
      const session = await t.createSession({ profile: 'read-only' });
      const res = await t.call(session, 'remote__look_up', { word: 'tool' });
      expect(res.body.data).toEqual({ found: true });
    } finally {
      await t.close();
      rmSync(path.dirname(configFile), { recursive: true, force: true });
    }
  });

  it('refuses a URL whose host is not allowed, naming the server', async () => {
    await expect(
      injectApp({ TOOLGATE_CONFIG: writeConfigFile({ mcpServers: { remote: { url } } }) }),
    ).rejects.toThrow(/mcpServers\.remote\.url: host 127\.0\.0\.1 is not in mcpAllowedHosts/);
  });
});
