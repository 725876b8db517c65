// Tool folders whose definition.json is exactly what the SynthDev tool system writes (no category, no
// capabilities, the parameters inside an OpenAI function under `schema`): loaded beside ours, the
// parameters validated, the response format's description shown to the model, the category from the
// config, and — saying nothing about itself — the permissions of a command. Profiles leave tools out by
// name and by tag (SynthDev's role exclusions).
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { writeConfigFile } from '../ops/with-config.js';

/** As SynthDev writes it: these fields and nothing else. */
const synthDev = (name: string, tags: string[]) => ({
  name,
  description: `Short ${name} description`,
  auto_run: true,
  version: '2.0.0',
  tags,
  schema: {
    type: 'function',
    function: {
      name,
      description: `Detailed ${name} description for the model`,
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'Text to shout' } },
        required: ['text'],
      },
      response_format: { description: "Returns JSON with 'success' and 'shouted' (the text in capitals)." },
    },
  },
});

const SHOUT_RUN = `#!/bin/sh
sed -n 's/.*"text":"\\([^"]*\\)".*/{"success":true,"shouted":"\\1"}/p' | tr a-z A-Z | sed 's/SUCCESS/success/;s/TRUE/true/;s/SHOUTED/shouted/'
`;

/** Temp dirs this file made, removed at its end. */
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function toolsDir(folders: Record<string, object>): string {
  const dir = tempDir('toolgate-tools-');
  // An operator's tools dir is readable by the runtime's user (a container's is not the service's).
  chmodSync(dir, 0o755);
  made.push(dir);
  for (const [name, definition] of Object.entries(folders)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'definition.json'), JSON.stringify(definition, null, 2));
    writeFileSync(path.join(dir, name, 'run'), SHOUT_RUN);
    chmodSync(path.join(dir, name, 'run'), 0o755);
  }
  return dir;
}

const tracked = (configFile: string) => {
  made.push(path.dirname(configFile));
  return configFile;
};

describe('SynthDev tool folders', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp({
      TOOLGATE_TOOLS_DIR: toolsDir({
        shout: synthDev('shout', ['text']),
        wipe: synthDev('wipe', ['dangerous']),
        utility_shout: { ...synthDev('utility_shout', []), category: 'utility' },
      }),
      TOOLGATE_CONFIG: tracked(
        writeConfigFile({
          toolFolders: { category: 'synthdev' },
          profiles: {
            reviewer: {
              permissions: ['read', 'write', 'execute'],
              excludeTools: ['utility_shout'],
              excludeTags: ['dangerous'],
            },
          },
        }),
      ),
    });
  });
  afterAll(() => t.close());

  it('loads the file unmodified: parameters, the description with what it returns, category from config', async () => {
    const res = await t.admin(t.http.get('/v1/tools/shout'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'shout',
      category: 'synthdev',
      version: '2.0.0',
      tags: ['text'],
      source: 'folder shout',
    });
    expect(res.body.description).toBe(
      "Detailed shout description for the model\n\nReturns: Returns JSON with 'success' and 'shouted' (the text in capitals).",
    );
    expect(res.body.inputSchema).toMatchObject({ required: ['text'] });
    // A category the file names is kept.
    expect((await t.admin(t.http.get('/v1/tools/utility_shout'))).body.category).toBe('utility');
    // What the model reads, in a vendor format.
    const openai = await t.admin(t.http.get('/v1/tools?format=openai&category=synthdev'));
    expect(JSON.stringify(openai.body)).toContain('Returns: Returns JSON');
  });

  it('says nothing about itself, so it needs every permission a command needs', async () => {
    expect((await t.admin(t.http.get('/v1/tools/shout'))).body.permissions).toEqual([
      'read',
      'write',
      'execute',
    ]);
    const readOnly = await t.createSession({ profile: 'read-only' });
    const refused = await t.call(readOnly, 'shout', { text: 'hi' });
    expect(refused.status).toBe(403);
    const full = await t.createSession({ profile: 'execute' });
    const ran = await t.call(full, 'shout', { text: 'hello' });
    expect(ran.status).toBe(200);
    expect(ran.body.data).toEqual({ success: true, shouted: 'HELLO' });
    expect((await t.call(full, 'shout', {})).body.error.code).toBe('VALIDATION_FAILED');
  });

  it('a profile excludes tools by name and by tag', async () => {
    const reviewer = await t.createSession({ profile: 'reviewer' });
    const listed = await t.http.get('/v1/tools').set('authorization', `Bearer ${reviewer.token}`);
    const names = listed.body.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('shout');
    expect(names).not.toContain('utility_shout');
    expect(names).not.toContain('wipe');
    const byTag = await t.call(reviewer, 'wipe', { text: 'x' });
    expect(byTag.status).toBe(403);
    expect(byTag.body.error.message).toContain('tagged "dangerous"');
    expect((await t.call(reviewer, 'utility_shout', { text: 'x' })).status).toBe(403);
    // A session request may exclude by tag too.
    const noText = await t.createSession({ profile: 'execute', excludeTools: ['tag:text'] });
    expect((await t.call(noText, 'shout', { text: 'x' })).status).toBe(403);
  });

  it('refuses a file whose function name is not its name, naming the field', async () => {
    await expect(
      injectApp({
        TOOLGATE_TOOLS_DIR: toolsDir({
          odd: { ...synthDev('odd', []), schema: { ...synthDev('other', []).schema } },
        }),
      }),
    ).rejects.toThrow(/odd\/definition\.json: schema\.function\.name must equal name \("odd"\)/);
  });
});
