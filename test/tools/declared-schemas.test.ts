// What a model sees of each built-in tool, kept as committed files: its OpenAI, Anthropic and Gemini
// declarations (GET /v1/tools?format=…) and its entry in the MCP server's tools/list, one JSON file per
// tool under test/__snapshots__/tool-schemas/. Any change to a name, description or input schema a model
// reads shows up in review as a diff of that file. After an intended change: `npx vitest run -u <this file>`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

type Named = { name?: string; function?: { name: string } };

const byName = (list: Named[]) =>
  new Map(list.map((entry) => [entry.function?.name ?? entry.name ?? '', entry] as const));

describe('declared tool schemas', () => {
  let t: InjectApp;
  const declared = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    // The unisolated runtime counts as a working sandbox, so no execution tool is marked disabled and
    // the files do not depend on whether bwrap works on the machine running the tests.
    t = await injectApp({ TOOLGATE_SANDBOX: 'none' });
    const list = async (format: string) => {
      const res = await t.admin(t.http.get(`/v1/tools?format=${format}`)).expect(200);
      return res.body.tools;
    };
    const openai = byName(await list('openai'));
    const anthropic = byName(await list('anthropic'));
    const gemini = byName((await list('gemini'))[0].functionDeclarations);
    // The MCP server's own answer to tools/list, for a session allowed every tool.
    const session = await t.createSession({ profile: 'full' });
    const mcp = await t.http
      .post('/mcp')
      .set('authorization', `Bearer ${session.token}`)
      .set('accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(200);
    const mcpTools = byName(mcp.body.result.tools);
    for (const { name } of BUILTIN_TOOLS) {
      declared.set(name, {
        openai: openai.get(name),
        anthropic: anthropic.get(name),
        gemini: gemini.get(name),
        mcp: mcpTools.get(name),
      });
    }
  });
  afterAll(() => t.close());

  it('declares every built-in tool in every format', () => {
    for (const [name, formats] of declared) {
      for (const [format, declaration] of Object.entries(formats)) {
        expect(declaration, `${name} in ${format}`).toBeDefined();
      }
    }
  });

  for (const { name } of BUILTIN_TOOLS) {
    it(`${name}: the declarations match test/__snapshots__/tool-schemas/${name}.json`, async () => {
      await expect(`${JSON.stringify(declared.get(name), null, 2)}\n`).toMatchFileSnapshot(
        `../__snapshots__/tool-schemas/${name}.json`,
      );
    });
  }
});
