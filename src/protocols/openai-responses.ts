// The OpenAI Responses API wire format: declarations are the `tools` entries of a responses.create request
// ({type: "function", name, description, parameters, strict}), with the built-in tools (apply_patch,
// shell, and apply_patch as a grammar-constrained custom tool) listed beside them with the tool of ours
// each maps to; a batch is the response's `output` (or the whole response), whose function_call,
// custom_tool_call, apply_patch_call and shell_call items are run (messages and reasoning ignored); the
// answer is `{input}`: one output item per call item, to append to the next request's input as is.
import { Type, type Static } from 'typebox';
import type { RegisteredTool } from '../contract/registry.js';
import { batchReader, type BatchResult, type BatchWire } from './batch-call.js';
import { openaiParameters } from './openai.js';
import {
  CALL_ITEM_TYPES,
  callsOfItem,
  shellLimit,
  shellOutputOf,
  type ResponsesCallItem,
} from './openai-responses-items.js';
import { V4A_LARK_GRAMMAR } from './v4a-grammar.js';
import { outcomeText } from './result-text.js';

export const ResponsesToolSchema = Type.Object({
  type: Type.Literal('function'),
  name: Type.String(),
  description: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  strict: Type.Boolean(),
});

export const ResponsesBuiltinSchema = Type.Object({
  tool: Type.Union(
    [
      Type.Object({ type: Type.Literal('apply_patch') }),
      Type.Object({ type: Type.Literal('shell') }),
      Type.Object({
        type: Type.Literal('custom'),
        name: Type.String(),
        description: Type.String(),
        format: Type.Object({
          type: Type.Literal('grammar'),
          syntax: Type.Literal('lark'),
          definition: Type.String(),
        }),
      }),
    ],
    { description: "The entry for the request's tools list" },
  ),
  mapsTo: Type.Array(Type.String(), { description: 'The toolgate tools that run its calls' }),
  note: Type.String(),
});

export type ResponsesTool = Static<typeof ResponsesToolSchema>;
export type ResponsesBuiltin = Static<typeof ResponsesBuiltinSchema>;

/** A function tool for responses.create; `strict` declares strict mode's rewrite of the schema. */
export const responsesDeclaration = (entry: RegisteredTool, strict: boolean): ResponsesTool => ({
  type: 'function',
  name: entry.tool.name,
  description: entry.tool.description,
  parameters: openaiParameters(entry, strict),
  strict,
});

/**
 * OpenAI's built-in tools whose calls toolgate runs, for the tools the caller may use (`allowed`).
 * apply_patch as a custom tool is for models that call it with free-form V4A text (codex's way); it
 * replaces the apply_patch function, whose name it takes.
 */
export function responsesBuiltins(allowed: (tool: string) => boolean): ResponsesBuiltin[] {
  const builtins: ResponsesBuiltin[] = [];
  if (allowed('apply_patch')) {
    builtins.push(
      {
        tool: { type: 'apply_patch' },
        mapsTo: ['apply_patch'],
        note: 'apply_patch_call items (create_file, update_file, delete_file with V4A diffs) run as apply_patch',
      },
      {
        tool: {
          type: 'custom',
          name: 'apply_patch',
          description:
            'Edit files with a V4A patch: *** Begin Patch, then *** Add File / *** Delete File / *** Update File ' +
            'sections (@@ hints, " "/"-"/"+" lines), then *** End Patch. All files change or none.',
          format: { type: 'grammar', syntax: 'lark', definition: V4A_LARK_GRAMMAR },
        },
        mapsTo: ['apply_patch'],
        note: 'custom_tool_call items named apply_patch: their input is the patch (use instead of the function)',
      },
    );
  }
  if (allowed('run_command')) {
    builtins.push({
      tool: { type: 'shell' },
      mapsTo: ['run_command'],
      note: 'shell_call items: each command runs as run_command in the workspace root, in order',
    });
  }
  return builtins;
}

export const ResponsesBatchSchema = Type.Object(
  { output: Type.Array(Type.Object({ type: Type.String() })) },
  {
    description:
      'OpenAI Responses format: the response (or its `output`); function_call, custom_tool_call, ' +
      'apply_patch_call and shell_call items are run, others ignored',
  },
);

const ShellOutput = Type.Object({
  stdout: Type.String(),
  stderr: Type.String(),
  outcome: Type.Union([
    Type.Object({ type: Type.Literal('timeout') }),
    Type.Object({ type: Type.Literal('exit'), exit_code: Type.Integer() }),
  ]),
});

export const ResponsesAnswerSchema = Type.Object({
  input: Type.Array(
    Type.Union([
      Type.Object({
        type: Type.Literal('function_call_output'),
        call_id: Type.String(),
        output: Type.String(),
      }),
      Type.Object({
        type: Type.Literal('custom_tool_call_output'),
        call_id: Type.String(),
        output: Type.String(),
      }),
      Type.Object({
        type: Type.Literal('apply_patch_call_output'),
        call_id: Type.String(),
        status: Type.Enum(['completed', 'failed']),
        output: Type.String(),
      }),
      Type.Object({
        type: Type.Literal('shell_call_output'),
        call_id: Type.String(),
        output: Type.Array(ShellOutput),
        max_output_length: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ]),
    { description: 'One item per call item of the request, in order: append them to the next input' },
  ),
});

export type ResponsesAnswer = Static<typeof ResponsesAnswerSchema>;
type AnswerItem = ResponsesAnswer['input'][number];

const readBody = batchReader('openai-responses', ResponsesBatchSchema);

/** The input item answering one call item, from the outcomes of its calls (several for a shell_call). */
function answerItem(item: ResponsesCallItem, results: BatchResult[]): AnswerItem {
  const callId = results[0]?.call.id ?? '';
  const first = results[0]?.outcome;
  switch (item.type) {
    case 'shell_call': {
      const limit = shellLimit(item);
      return {
        type: 'shell_call_output',
        call_id: callId,
        output: results.map((r) => shellOutputOf(r.outcome, limit)),
        max_output_length: limit,
      };
    }
    case 'apply_patch_call':
      return {
        type: 'apply_patch_call_output',
        call_id: callId,
        status: first?.ok ? 'completed' : 'failed',
        output: first ? outcomeText(first) : '',
      };
    case 'custom_tool_call':
      return { type: 'custom_tool_call_output', call_id: callId, output: first ? outcomeText(first) : '' };
    default:
      return { type: 'function_call_output', call_id: callId, output: first ? outcomeText(first) : '' };
  }
}

export const responsesBatch: BatchWire<ResponsesCallItem> = {
  format: 'openai-responses',
  key: 'output',
  body: ResponsesBatchSchema,
  answer: ResponsesAnswerSchema,
  emptySuggestion:
    'Include the function_call, custom_tool_call, apply_patch_call or shell_call items of the response output.',
  items: (body) => readBody(body).output.filter((item) => CALL_ITEM_TYPES.includes(item.type)),
  call: (item, index, tools) => callsOfItem(item, index, tools),
  render: (results, items): ResponsesAnswer => ({
    input: items.map((item, index) =>
      answerItem(
        item,
        results.filter((r) => r.call.item === index),
      ),
    ),
  }),
};
