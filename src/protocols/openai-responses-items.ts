// The tool-call items of an OpenAI Responses output and how each becomes calls of our tools:
// function_call → the named tool (JSON arguments, strict or not); custom_tool_call → the named tool with
// its free-form input; apply_patch_call → apply_patch with the operation as a V4A patch; shell_call →
// one run_command per command. And back: each item's outcome as the input item the API expects next.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ToolRegistry } from '../contract/registry.js';
import type { CallOutcome } from '../contract/call.js';
import { toolgateError } from '../lib/errors.js';
import { batchReader, type BatchCall } from './batch-call.js';
import { llmInputSchema } from './llm-schema.js';
import { jsonArgumentsCall } from './openai.js';
import { outcomeText } from './result-text.js';

const CallId = Type.String({ minLength: 1, maxLength: 200 });
const ToolName = Type.String({ minLength: 1, maxLength: 100 });
/** Commands of one shell_call, at most: each is a run_command call of the batch. */
export const MAX_SHELL_COMMANDS = 20;

const FunctionCallItem = Type.Object({
  type: Type.Literal('function_call'),
  call_id: CallId,
  name: ToolName,
  arguments: Type.String({ description: 'JSON-encoded tool input' }),
});
const CustomToolCallItem = Type.Object({
  type: Type.Literal('custom_tool_call'),
  call_id: CallId,
  name: ToolName,
  input: Type.String({ description: 'Free-form input: a patch for apply_patch, a command for run_command…' }),
});
const PatchPath = Type.String({ minLength: 1 });
const ApplyPatchCallItem = Type.Object({
  type: Type.Literal('apply_patch_call'),
  call_id: CallId,
  operation: Type.Union([
    Type.Object({ type: Type.Literal('create_file'), path: PatchPath, diff: Type.String() }),
    Type.Object({ type: Type.Literal('update_file'), path: PatchPath, diff: Type.String() }),
    Type.Object({ type: Type.Literal('delete_file'), path: PatchPath }),
  ]),
});
const ShellCallItem = Type.Object({
  type: Type.Literal('shell_call'),
  call_id: CallId,
  action: Type.Object({
    commands: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_SHELL_COMMANDS }),
    timeout_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    max_output_length: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  }),
});

export const CALL_ITEM_TYPES = ['function_call', 'custom_tool_call', 'apply_patch_call', 'shell_call'];

export type ResponsesCallItem = { type: string };

const readers = {
  function_call: batchReader('openai-responses', FunctionCallItem),
  custom_tool_call: batchReader('openai-responses', CustomToolCallItem),
  apply_patch_call: batchReader('openai-responses', ApplyPatchCallItem),
  shell_call: batchReader('openai-responses', ShellCallItem),
};

/** The operation of an apply_patch_call as a V4A patch for apply_patch. */
export function v4aPatchOf(operation: Static<typeof ApplyPatchCallItem>['operation']): string {
  const diff = 'diff' in operation ? operation.diff.replace(/\r\n/g, '\n').replace(/\n$/, '') : '';
  switch (operation.type) {
    case 'delete_file':
      return `*** Begin Patch\n*** Delete File: ${operation.path}\n*** End Patch\n`;
    case 'create_file': {
      // The diff of a new file is its "+" lines; a model that sent the bare content is taken at its word.
      const lines = diff === '' ? [] : diff.split('\n');
      const body = lines.every((l) => l.startsWith('+') || l === '') ? lines : lines.map((l) => `+${l}`);
      return `*** Begin Patch\n*** Add File: ${operation.path}\n${body.join('\n')}\n*** End Patch\n`;
    }
    case 'update_file':
      return `*** Begin Patch\n*** Update File: ${operation.path}\n${diff}\n*** End Patch\n`;
  }
}

/** A custom tool's free-form input as our tool's arguments: a JSON object, or the one required string. */
function customArguments(
  input: string,
  name: string,
  tools: ToolRegistry,
): { args?: unknown; error?: string } {
  const trimmed = input.trim();
  if (trimmed.startsWith('{')) {
    try {
      return { args: JSON.parse(trimmed) as unknown };
    } catch {
      // Not JSON after all: free text for a single string parameter, below.
    }
  }
  const entry = tools.get(name);
  if (!entry) return { args: {} };
  const schema = llmInputSchema(entry.tool);
  const strings = (schema.required ?? []).filter((key) => schema.properties[key]?.type === 'string');
  if (strings.length === 1 && (schema.required ?? []).length === 1) return { args: { [strings[0]]: input } };
  return {
    error: `${name} takes a JSON object of arguments as its custom tool input (it has no single text parameter)`,
  };
}

/** The calls of one item (shell_call: one per command); `index` places it in the body for errors. */
export function callsOfItem(item: ResponsesCallItem, index: number, tools: ToolRegistry): BatchCall[] {
  const at = `/output[${index}]`;
  switch (item.type) {
    case 'function_call': {
      const call = readers.function_call(item, at);
      return [jsonArgumentsCall(call.call_id, call.name, call.arguments, tools)];
    }
    case 'custom_tool_call': {
      const call = readers.custom_tool_call(item, at);
      const { args, error } = customArguments(call.input, call.name, tools);
      const base = { id: call.call_id, name: call.name, bytesIn: Buffer.byteLength(call.input) };
      if (error === undefined)
        return [{ ...base, arguments: args, wireTool: 'openai-responses:custom_tool_call' }];
      return [
        {
          ...base,
          arguments: call.input,
          argumentsError: toolgateError('VALIDATION_FAILED', error, {
            suggestion: 'Declare it as a function tool (GET /v1/tools?format=openai-responses) instead.',
          }),
        },
      ];
    }
    case 'apply_patch_call': {
      const call = readers.apply_patch_call(item, at);
      const patch = v4aPatchOf(call.operation);
      return [
        {
          id: call.call_id,
          name: 'apply_patch',
          arguments: { patch },
          bytesIn: Buffer.byteLength(patch),
          wireTool: `openai-responses:apply_patch_call.${call.operation.type}`,
        },
      ];
    }
    case 'shell_call': {
      const call = readers.shell_call(item, at);
      const timeout = call.action.timeout_ms ?? undefined;
      return call.action.commands.map((command) => ({
        id: call.call_id,
        name: 'run_command',
        arguments: { command, ...(timeout !== undefined ? { timeout_ms: timeout } : {}) },
        bytesIn: Buffer.byteLength(command),
        wireTool: 'openai-responses:shell_call',
      }));
    }
    default:
      throw new Error(`not a call item: ${item.type}`);
  }
}

const CommandData = Compile(
  Type.Object({
    stdout: Type.String(),
    stderr: Type.String(),
    exitCode: Type.Union([Type.Integer(), Type.Null()]),
    timedOut: Type.Boolean(),
  }),
);

/** The max_output_length of a shell_call item (already read by callsOfItem), null without one. */
export const shellLimit = (item: ResponsesCallItem): number | null =>
  readers.shell_call(item).action.max_output_length ?? null;

/** Keeps the first `limit` characters of a command's output (stdout first), as the shell tool specifies. */
function cut(stdout: string, stderr: string, limit: number | null | undefined) {
  if (limit === null || limit === undefined) return { stdout, stderr };
  const out = stdout.slice(0, limit);
  return { stdout: out, stderr: stderr.slice(0, Math.max(0, limit - out.length)) };
}

/** One command's entry of a shell_call_output; a call refused by toolgate reads as exit code 126. */
export function shellOutputOf(outcome: CallOutcome, limit: number | null | undefined) {
  if (outcome.ok && CommandData.Check(outcome.data)) {
    const { stdout, stderr, exitCode, timedOut } = outcome.data;
    return {
      ...cut(stdout, stderr, limit),
      outcome: timedOut ? { type: 'timeout' as const } : { type: 'exit' as const, exit_code: exitCode ?? 1 },
    };
  }
  return { ...cut('', outcomeText(outcome), limit), outcome: { type: 'exit' as const, exit_code: 126 } };
}
