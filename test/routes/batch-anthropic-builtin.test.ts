// Anthropic's built-in text editor and bash tools through the service: their declarations typed as the
// @anthropic-ai/sdk's tool params, tool_use blocks a Claude model writes posted to the batch endpoint,
// run by our tools (audited as such, naming the built-in), and answered in the words those models know.
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicBuiltin } from '../../src/protocols/anthropic-builtin.js';
import type { AnthropicAnswer } from '../../src/protocols/anthropic.js';
import type { LlmToolList } from '../../src/protocols/llm.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

// Compile-time proof: what we serve is what the SDK's request takes, and our answer is its next message.
export const builtinFits = (
  builtin: AnthropicBuiltin,
):
  | Anthropic.ToolTextEditor20250728
  | Anthropic.ToolTextEditor20250429
  | Anthropic.ToolTextEditor20250124
  | Anthropic.ToolBash20250124 => builtin.tool;
export const toolListFits = (
  list: Extract<LlmToolList, { builtins: AnthropicBuiltin[] }>,
): Anthropic.ToolUnion[] => [...list.tools, ...list.builtins.map((b) => b.tool)];
export const answerFits = (answer: AnthropicAnswer): Anthropic.MessageParam => answer;

type Session = { id: string; token: string };
const SOURCE = 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n';

describe("Anthropic's built-in text editor and bash", () => {
  let t: InjectApp;
  let session: Session;
  beforeAll(async () => {
    t = await injectApp();
    session = await t.createSession({
      profile: 'execute',
      files: { 'calc.py': SOURCE, 'pkg/mod.py': 'x = 1\n' },
    });
  });
  afterAll(() => t.close());

  let n = 0;
  /** Posts an assistant content of tool_use blocks; answers the tool_result blocks, in order. */
  const use = (...inputs: [name: string, input: Record<string, unknown>][]) => useWith(undefined, ...inputs);
  /** The same, with the request's tools list sent along (`tools`: what the client sent to Anthropic). */
  async function useWith(
    tools: Anthropic.ToolUnion[] | undefined,
    ...inputs: [name: string, input: Record<string, unknown>][]
  ) {
    const content: Anthropic.ContentBlockParam[] = inputs.map(([name, input]) => ({
      type: 'tool_use',
      id: `toolu_${++n}`,
      name,
      input,
    }));
    const res = await t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .send({ role: 'assistant', content, ...(tools ? { tools } : {}) })
      .expect(200);
    const answer: Anthropic.MessageParam = res.body as AnthropicAnswer;
    return (answer.content as Anthropic.ToolResultBlockParam[]).map((block) => ({
      text: block.content as string,
      error: block.is_error,
    }));
  }
  const editor = (input: Record<string, unknown>): [string, Record<string, unknown>] => [
    'str_replace_based_edit_tool',
    input,
  ];

  it('lists the built-ins with the tools they map to, for the tools the session may use', async () => {
    const res = await t.http
      .get('/v1/tools?format=anthropic')
      .set('authorization', `Bearer ${session.token}`)
      .expect(200);
    expect(res.body.builtins.map((b: AnthropicBuiltin) => b.tool)).toEqual([
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
      { type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' },
      { type: 'text_editor_20250124', name: 'str_replace_editor' },
      { type: 'bash_20250124', name: 'bash' },
    ]);
    const reader = await t.createSession({ profile: 'read-only' });
    const limited = await t.http
      .get('/v1/tools?format=anthropic')
      .set('authorization', `Bearer ${reader.token}`);
    expect(limited.body.builtins.map((b: AnthropicBuiltin) => b.tool.name)).not.toContain('bash');
  });

  it('view: numbered lines of a file (or a range), and a listing of a directory', async () => {
    const [file, range, dir] = await use(
      editor({ command: 'view', path: 'calc.py' }),
      editor({ command: 'view', path: 'calc.py', view_range: [5, 6] }),
      editor({ command: 'view', path: 'pkg' }),
    );
    expect(file).toEqual({
      text: '     1\tdef add(a, b):\n     2\t    return a + b\n     3\t\n     4\t\n     5\tdef sub(a, b):\n     6\t    return a - b',
      error: false,
    });
    expect(range.text).toBe('     5\tdef sub(a, b):\n     6\t    return a - b');
    expect(dir.text).toMatch(
      /^Here's the files and directories up to 2 levels deep in pkg, excluding hidden items:\n[^]*mod\.py/,
    );
  });

  it("view: cut at the text editor's max_characters from the tools list, else at 16,000, with a note", async () => {
    // 4,000 lines of about 70 characters: some 290,000 characters as numbered lines.
    const long = Array.from({ length: 4000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(60)}`).join('\n');
    expect((await t.call(session, 'write_file', { path: 'long.txt', content: long })).status).toBe(200);
    const tools: Anthropic.ToolUnion[] = [
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10_000 },
      { name: 'read_file', input_schema: { type: 'object', properties: {} } },
    ];
    const [cut] = await useWith(tools, editor({ command: 'view', path: 'long.txt' }));
    const [shown, ...note] = cut.text.split('\n<response clipped');
    expect(shown.length).toBeLessThanOrEqual(10_000);
    expect(shown.length).toBeGreaterThan(9_000);
    expect(shown.endsWith('x')).toBe(true); // at a line's end
    const last = Number(/(\d+)\t[^\n]*$/.exec(shown)![1]);
    expect(note.join('')).toContain(`view_range [${last + 1}, -1]`);
    // The note's range goes on where the cut was.
    const [next] = await useWith(
      tools,
      editor({ command: 'view', path: 'long.txt', view_range: [last + 1, last + 2] }),
    );
    expect(next.text.split('\n(more lines follow')[0]).toBe(
      `${String(last + 1).padStart(6)}\tline ${last + 1}: ${'x'.repeat(60)}\n${String(last + 2).padStart(6)}\tline ${last + 2}: ${'x'.repeat(60)}`,
    );
    const [byDefault] = await use(editor({ command: 'view', path: 'long.txt' }));
    expect(byDefault.text.split('\n<response clipped')[0].length).toBeLessThanOrEqual(16_000);
    expect(byDefault.text.length).toBeLessThan(16_400);
    expect(byDefault.text).toContain('<response clipped: ');
    // A null max_characters (the SDK's type allows it) is no limit given: the default.
    const [nulled] = await useWith(
      [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: null }],
      editor({ command: 'view', path: 'long.txt' }),
    );
    expect(nulled.text).toBe(byDefault.text);
    // A short file is not touched.
    const [small] = await useWith(tools, editor({ command: 'view', path: 'pkg/mod.py' }));
    expect(small.text).toBe('     1\tx = 1');
  });

  it('refuses a max_characters that is not a positive integer, with the path named', async () => {
    for (const bad of [0, -5, 1.5, 'many']) {
      const res = await t.http
        .post(`/v1/sessions/${session.id}/calls`)
        .set('authorization', `Bearer ${session.token}`)
        .send({
          content: [
            {
              type: 'tool_use',
              id: 'toolu_bad',
              name: 'str_replace_based_edit_tool',
              input: { command: 'view', path: 'calc.py' },
            },
          ],
          tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: bad }],
        });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.message).toContain('/tools/0/max_characters');
    }
  });

  it('str_replace: one place replaced; the documented errors for no match and several matches', async () => {
    const [done, none, many] = await use(
      editor({
        command: 'str_replace',
        path: 'calc.py',
        old_str: '    return a - b',
        new_str: '    return a - b  # minus',
      }),
      editor({ command: 'str_replace', path: 'calc.py', old_str: 'return a * b', new_str: 'x' }),
      editor({ command: 'str_replace', path: 'calc.py', old_str: '(a, b):', new_str: '(a, b=0):' }),
    );
    expect(done).toEqual({ text: 'Successfully replaced text at exactly one location.', error: false });
    expect(none.error).toBe(true);
    expect(none.text).toMatch(
      /^Error: No match found for replacement\. Please check your text and try again\.\n/,
    );
    expect(many.text).toMatch(
      /^Error: Found 2 matches for replacement text\. Please provide more context to make a unique match\.\n/,
    );
    const [after] = await use(editor({ command: 'view', path: 'calc.py', view_range: [6, -1] }));
    expect(after.text).toBe('     6\t    return a - b  # minus');
  });

  it('create and insert (after a line; 0 is the top), then undo_edit in the 20250124 editor', async () => {
    const [created, top, middle] = await use(
      editor({ command: 'create', path: 'new/notes.md', file_text: 'one\nthree\n' }),
      editor({ command: 'insert', path: 'new/notes.md', insert_line: 0, insert_text: '# Notes' }),
      editor({ command: 'insert', path: 'new/notes.md', insert_line: 2, new_str: 'two\n' }),
    );
    expect(created).toEqual({ text: 'File created successfully at: new/notes.md', error: false });
    expect(top.text).toBe('Text inserted after line 0 of new/notes.md.');
    expect(middle.error).toBe(false);
    expect((await t.call(session, 'read_file', { path: 'new/notes.md' })).body.data.content).toBe(
      '# Notes\none\ntwo\nthree',
    );
    const [undone, refused] = await use(
      ['str_replace_editor', { command: 'undo_edit', path: 'new/notes.md' }],
      editor({ command: 'undo_edit', path: 'new/notes.md' }),
    );
    expect(undone).toEqual({ text: 'Last edit to new/notes.md undone successfully.', error: false });
    expect(refused.text).toMatch(/^Error VALIDATION_FAILED: undo_edit is a command of text_editor_20250124/);
    expect((await t.call(session, 'read_file', { path: 'new/notes.md' })).body.data.content).toBe(
      '# Notes\none\nthree',
    );
  });

  it('the documented "File not found" error', async () => {
    const [missing] = await use(editor({ command: 'view', path: 'nope.py' }));
    expect(missing).toEqual({ text: expect.stringMatching(/^Error: File not found\n/), error: true });
  });

  it('bash: the command output (with a non-zero exit code said), and restart', async () => {
    const [ok, failed, restarted] = await use(
      ['bash', { command: 'echo out; echo err >&2' }],
      ['bash', { command: 'ls missing-dir' }],
      ['bash', { restart: true }],
    );
    expect(ok).toEqual({ text: 'out\nerr', error: false });
    expect(failed.text).toMatch(/No such file or directory\n\(exit code 2\)$/);
    expect(restarted).toEqual({ text: 'tool has been restarted.', error: false });
  });

  it('bash is one persistent shell: cd carries across two tool_use blocks, restart starts it fresh', async () => {
    const [moved, here] = await use(
      ['bash', { command: 'cd pkg && export MARK=kept' }],
      ['bash', { command: 'ls; echo "$MARK"' }],
    );
    expect(moved).toEqual({ text: '', error: false });
    expect(here).toEqual({ text: 'mod.py\nkept', error: false });
    const [, fresh] = await use(['bash', { restart: true }], ['bash', { command: 'ls; echo "[$MARK]"' }]);
    expect(fresh.text).toMatch(/^calc\.py\n[\s\S]*\[\]$/);
  });

  it('audits each call as the tool that ran, naming the built-in and its command', async () => {
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&limit=200`)).expect(200);
    const seen = new Set(
      audit.body.entries.map((e: { tool: string; wireTool: string | null }) => `${e.wireTool} → ${e.tool}`),
    );
    for (const pair of [
      'anthropic:str_replace_based_edit_tool.view → read_file',
      'anthropic:str_replace_based_edit_tool.view → list_directory',
      'anthropic:str_replace_based_edit_tool.str_replace → edit_file',
      'anthropic:str_replace_based_edit_tool.create → write_file',
      'anthropic:str_replace_based_edit_tool.insert → apply_patch',
      'anthropic:str_replace_editor.undo_edit → undo_edit',
      'anthropic:bash → shell_exec',
      'anthropic:bash.restart → shell_restart',
    ]) {
      expect(seen, pair).toContain(pair);
    }
  });

  it('a read-only session may view but not edit: the documented permission error', async () => {
    const reader = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a\n' } });
    const res = await t.http
      .post(`/v1/sessions/${reader.id}/calls`)
      .set('authorization', `Bearer ${reader.token}`)
      .send({
        content: [
          {
            type: 'tool_use',
            id: 'v',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: 'a.txt' },
          },
          {
            type: 'tool_use',
            id: 'c',
            name: 'str_replace_based_edit_tool',
            input: { command: 'create', path: 'b.txt', file_text: 'b' },
          },
        ],
      })
      .expect(200);
    expect(res.body.content.map((b: { is_error: boolean }) => b.is_error)).toEqual([false, true]);
    expect(res.body.content[1].content).toMatch(/^Error: Permission denied\. Cannot write to file\.\n/);
  });
});
