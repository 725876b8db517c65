// Anthropic's built-in tools, run by our own: the text editor (`str_replace_based_edit_tool`, types
// text_editor_20250728 and _20250429; `str_replace_editor`, text_editor_20250124, which adds undo_edit)
// and `bash` (bash_20250124). A tool_use block of theirs becomes a call of read_file / list_directory
// (view), write_file (create), edit_file (str_replace), apply_patch (insert: a zero-context hunk at the
// line), undo_edit, or shell_exec and shell_restart (bash: one persistent shell per session) — so permissions, rate limits, approvals and audit are the usual
// ones. The outcome is answered in the words those models were trained on (anthropic-builtin-answer.ts).
import { Type, type Static } from 'typebox';
import type { ToolRegistry } from '../contract/registry.js';
import { toolgateError } from '../lib/errors.js';
import { batchReader, type BatchCall } from './batch-call.js';

/** The session's shell Anthropic's bash runs in: persistent, as Anthropic documents bash_20250124. */
export const ANTHROPIC_SHELL = 'main';

export const TEXT_EDITOR_NAMES = ['str_replace_based_edit_tool', 'str_replace_editor'] as const;
export const BUILTIN_NAMES: readonly string[] = [...TEXT_EDITOR_NAMES, 'bash'];

export const AnthropicBuiltinSchema = Type.Object({
  tool: Type.Union(
    [
      Type.Object({
        type: Type.Enum(['text_editor_20250728', 'text_editor_20250429']),
        name: Type.Literal('str_replace_based_edit_tool'),
      }),
      Type.Object({ type: Type.Literal('text_editor_20250124'), name: Type.Literal('str_replace_editor') }),
      Type.Object({ type: Type.Literal('bash_20250124'), name: Type.Literal('bash') }),
    ],
    { description: "The entry for the Messages request's tools list" },
  ),
  mapsTo: Type.Array(Type.String(), { description: 'The toolgate tools that run its calls' }),
  note: Type.String(),
});
export type AnthropicBuiltin = Static<typeof AnthropicBuiltinSchema>;

const EDITOR_TOOLS = ['read_file', 'list_directory', 'write_file', 'edit_file', 'apply_patch'];

/** The built-in tools toolgate runs, for a caller that may use `allowed` tools. */
export function anthropicBuiltins(allowed: (tool: string) => boolean): AnthropicBuiltin[] {
  const builtins: AnthropicBuiltin[] = [];
  if (allowed('read_file')) {
    const note = 'view, create, str_replace, insert; edits need the write permission';
    builtins.push(
      {
        tool: { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
        mapsTo: EDITOR_TOOLS,
        note,
      },
      {
        tool: { type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' },
        mapsTo: EDITOR_TOOLS,
        note,
      },
      {
        tool: { type: 'text_editor_20250124', name: 'str_replace_editor' },
        mapsTo: [...EDITOR_TOOLS, 'undo_edit'],
        note: `${note}; undo_edit (this version only)`,
      },
    );
  }
  if (allowed('shell_exec')) {
    builtins.push({
      tool: { type: 'bash_20250124', name: 'bash' },
      mapsTo: ['shell_exec', 'shell_restart'],
      note: `one persistent bash per session (the shell "${ANTHROPIC_SHELL}"): cd, variables and functions carry over between calls; restart starts it fresh`,
    });
  }
  return builtins;
}

const Path = Type.String({ minLength: 1 });
const EditorInput = Type.Union([
  Type.Object({
    command: Type.Literal('view'),
    path: Path,
    view_range: Type.Optional(Type.Tuple([Type.Integer({ minimum: 1 }), Type.Integer({ minimum: -1 })])),
  }),
  Type.Object({ command: Type.Literal('create'), path: Path, file_text: Type.String() }),
  Type.Object({
    command: Type.Literal('str_replace'),
    path: Path,
    old_str: Type.String(),
    new_str: Type.Optional(Type.String()),
  }),
  Type.Object({
    command: Type.Literal('insert'),
    path: Path,
    insert_line: Type.Integer({ minimum: 0 }),
    // text_editor_20250728 says insert_text; the earlier versions new_str.
    insert_text: Type.Optional(Type.String()),
    new_str: Type.Optional(Type.String()),
  }),
  Type.Object({ command: Type.Literal('undo_edit'), path: Path }),
]);
const BashInput = Type.Union([
  Type.Object({ command: Type.String({ minLength: 1 }) }),
  Type.Object({ restart: Type.Literal(true) }),
]);
export const readEditor = batchReader('anthropic', EditorInput);
const readBash = batchReader('anthropic', BashInput);
export type EditorCommand = Static<typeof EditorInput>;

/** Our tool and arguments for one text editor command. */
function editorCall(input: EditorCommand): {
  name: string;
  arguments: unknown;
  orElse?: BatchCall['orElse'];
} {
  switch (input.command) {
    case 'view': {
      const [start, end] = input.view_range ?? [1, -1];
      const limit = end === -1 ? 100_000 : Math.max(1, end - start + 1);
      return {
        name: 'read_file',
        arguments: { path: input.path, offset: start, limit },
        // A directory: list it two levels deep, hidden entries left out, as the tool's reference does.
        orElse: {
          codes: ['NOT_A_FILE'],
          name: 'list_directory',
          arguments: { path: input.path, depth: 2, ignore: ['.*'] },
        },
      };
    }
    case 'create':
      return { name: 'write_file', arguments: { path: input.path, content: input.file_text } };
    case 'str_replace':
      return {
        name: 'edit_file',
        arguments: { path: input.path, old_string: input.old_str, new_string: input.new_str ?? '' },
      };
    case 'insert': {
      const text = input.insert_text ?? input.new_str ?? '';
      const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
      const at = input.insert_line;
      // A hunk without context at the line: the text goes exactly after line `at` (0: at the top).
      const patch = `--- a/${input.path}\n+++ b/${input.path}\n@@ -${at},0 +${at + 1},${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
      return { name: 'apply_patch', arguments: { patch } };
    }
    case 'undo_edit':
      return { name: 'undo_edit', arguments: { path: input.path } };
  }
}

/** The call of a tool_use block of a built-in tool; undefined when `name` is not one (or a tool of ours has it). */
export function builtinCall(
  block: { id: string; name: string; input: unknown },
  at: string,
  tools: ToolRegistry,
): BatchCall | undefined {
  if (!BUILTIN_NAMES.includes(block.name) || tools.get(block.name)) return undefined;
  const bytesIn = Buffer.byteLength(JSON.stringify(block.input) ?? '');
  if (block.name === 'bash') {
    const input = readBash(block.input, `${at}/input`);
    if ('restart' in input) {
      return {
        id: block.id,
        name: 'shell_restart',
        arguments: { shell: ANTHROPIC_SHELL },
        bytesIn,
        wireTool: 'anthropic:bash.restart',
      };
    }
    return {
      id: block.id,
      name: 'shell_exec',
      arguments: { shell: ANTHROPIC_SHELL, command: input.command },
      bytesIn,
      wireTool: 'anthropic:bash',
    };
  }
  const input = readEditor(block.input, `${at}/input`);
  if (input.command === 'undo_edit' && block.name !== 'str_replace_editor') {
    return {
      id: block.id,
      name: 'undo_edit',
      arguments: input,
      bytesIn,
      argumentsError: toolgateError(
        'VALIDATION_FAILED',
        'undo_edit is a command of text_editor_20250124 (str_replace_editor) only',
      ),
    };
  }
  return {
    id: block.id,
    bytesIn,
    wireTool: `anthropic:${block.name}.${input.command}`,
    ...editorCall(input),
  };
}
