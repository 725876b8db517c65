// The answers to calls of Anthropic's built-in text editor and bash (anthropic-builtin.ts maps the calls),
// in the words those models were trained on: `cat -n` numbered lines for view, the directory listing
// line, "File created successfully at: …", the documented errors ("No match found for replacement…",
// "Found N matches for replacement text…", "File not found", "Permission denied…") followed by ours,
// and a command's output with its exit code when it failed.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { CallOutcome } from '../contract/call.js';
import { editDiagnosticsText } from '../code/lsp/edit-diagnostics.js';
import { readEditor, type EditorCommand } from './anthropic-builtin.js';
import { outcomeText } from './result-text.js';

const FileWindow = Compile(
  Type.Object({
    content: Type.String(),
    startLine: Type.Integer(),
    truncated: Type.Boolean(),
    nextOffset: Type.Optional(Type.Integer()),
  }),
);
const CommandResult = Compile(
  Type.Object({
    stdout: Type.String(),
    stderr: Type.String(),
    exitCode: Type.Union([Type.Integer(), Type.Null()]),
    timedOut: Type.Boolean(),
  }),
);

/**
 * The most characters a view answers when the request's tools list sets no max_characters: what
 * Anthropic's reference implementation of the text editor cuts at (MAX_RESPONSE_LEN, 16,000), the size
 * those models were trained to expect; a 4,000-line file would otherwise fill a context with ~290,000.
 */
export const DEFAULT_VIEW_CHARACTERS = 16_000;

/** The cut for views of the text editor `name`: its tools entry's max_characters, else the default. */
export function viewLimit(
  tools: readonly { name: string; max_characters?: number | null }[] | undefined,
  name: string,
): number {
  return tools?.find((tool) => tool.name === name)?.max_characters ?? DEFAULT_VIEW_CHARACTERS;
}

/**
 * A view's text cut to `limit` characters at a line's end (or mid-line when one line alone is longer),
 * with a note that says what was left out and how to see it: the note is not counted in the limit.
 */
function clipped(text: string, limit: number, nextLine: (shown: string) => number | undefined): string {
  if (text.length <= limit) return text;
  const lineEnd = text.lastIndexOf('\n', limit);
  const shown = lineEnd > 0 ? text.slice(0, lineEnd) : text.slice(0, limit);
  const next = nextLine(shown);
  return (
    `${shown}\n<response clipped: ${shown.length} of ${text.length} characters shown>` +
    (next !== undefined
      ? `\n(to see more, view with view_range [${next}, -1], or a narrower range; grep -n finds the lines you need)`
      : '\n(view a subdirectory to see more)')
  );
}

/** `cat -n`: each line with its number, right-aligned in six columns, and a tab. */
const numbered = (content: string, first: number) =>
  content === ''
    ? ''
    : content
        .split('\n')
        .map((line, i) => `${String(first + i).padStart(6)}\t${line}`)
        .join('\n');

/** The answer to a failed call: the documented error line for the cases those models know, then ours. */
function failureText(outcome: Extract<CallOutcome, { ok: false }>): string {
  const { error } = outcome;
  const detail = outcomeText(outcome);
  switch (error.code) {
    case 'EDIT_NOT_FOUND':
      return `Error: No match found for replacement. Please check your text and try again.\n${detail}`;
    case 'EDIT_AMBIGUOUS': {
      const count = Array.isArray(error.details?.lines) ? error.details.lines.length : 2;
      return `Error: Found ${count} matches for replacement text. Please provide more context to make a unique match.\n${detail}`;
    }
    case 'FILE_NOT_FOUND':
      return `Error: File not found\n${detail}`;
    case 'PERMISSION_DENIED':
      return `Error: Permission denied. Cannot write to file.\n${detail}`;
    default:
      return detail;
  }
}

function bashText(outcome: CallOutcome & { ok: true }): { text: string; isError: boolean } {
  if (!CommandResult.Check(outcome.data)) return { text: outcome.text(), isError: false };
  const { stdout, stderr, exitCode, timedOut } = outcome.data;
  if (timedOut) return { text: `Error: the command timed out.\n${stdout}${stderr}`, isError: true };
  const parts = [stdout.replace(/\n$/, ''), stderr.replace(/\n$/, '')].filter(Boolean);
  if (exitCode !== 0) parts.push(`(exit code ${exitCode ?? 'none: killed by a signal'})`);
  return { text: parts.join('\n'), isError: false };
}

function editorText(input: EditorCommand, outcome: CallOutcome & { ok: true }, limit: number): string {
  switch (input.command) {
    case 'view':
      if (outcome.metadata.tool === 'read_file' && FileWindow.Check(outcome.data)) {
        const { content, startLine, truncated, nextOffset } = outcome.data;
        const more = truncated
          ? `\n(more lines follow: view_range [${nextOffset ?? startLine}, -1] shows them)`
          : '';
        // The next line after what is shown: the last shown line's number, plus one.
        const nextLine = (shown: string) => Number(/(\d+)\t[^\n]*$/.exec(shown)?.[1] ?? startLine - 1) + 1;
        const text = numbered(content, startLine);
        return text.length > limit ? clipped(text, limit, nextLine) : text + more;
      }
      return clipped(
        `Here's the files and directories up to 2 levels deep in ${input.path}, excluding hidden items:\n${outcome.text()}`,
        limit,
        () => undefined,
      );
    // The edits end with the problems they introduced, as our own renderings do.
    case 'create':
      return `File created successfully at: ${input.path}` + editDiagnosticsText(outcome.data);
    case 'str_replace':
      return 'Successfully replaced text at exactly one location.' + editDiagnosticsText(outcome.data);
    case 'insert':
      return (
        `Text inserted after line ${input.insert_line} of ${input.path}.` + editDiagnosticsText(outcome.data)
      );
    case 'undo_edit':
      return `Last edit to ${input.path} undone successfully.`;
  }
}

/** The answer text of a built-in tool's call (read by builtinCall before), and whether it is an error. */
export function builtinAnswer(
  block: { name: string; input: unknown },
  outcome: CallOutcome,
  viewCharacters = DEFAULT_VIEW_CHARACTERS,
): { text: string; isError: boolean } {
  if (!outcome.ok) return { text: failureText(outcome), isError: true };
  if (block.name === 'bash') {
    const restart = typeof block.input === 'object' && block.input !== null && 'restart' in block.input;
    return restart ? { text: 'tool has been restarted.', isError: false } : bashText(outcome);
  }
  return { text: editorText(readEditor(block.input), outcome, viewCharacters), isError: false };
}
