// Reads a batch body in any of its three formats — toolgate `{calls}`, OpenAI `{tool_calls}` (an
// assistant message may be posted as is) and Anthropic `{content}` (tool_use blocks) — into one call list.
// A call whose arguments cannot be parsed keeps its place with the error, so the others still run.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { toolgateError, type ToolgateError } from '../lib/errors.js';

/** More calls than this in one request are refused: a batch is one model turn, not a bulk job. */
export const MAX_BATCH_CALLS = 100;

export const NativeBatchSchema = Type.Object(
  {
    calls: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ maxLength: 200, description: 'Echoed in the result' })),
          name: Type.String({ minLength: 1, maxLength: 100, description: 'Tool name' }),
          arguments: Type.Optional(Type.Unknown({ description: 'The tool input (an object)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'toolgate format' },
);

export const OpenAiBatchSchema = Type.Object(
  {
    tool_calls: Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: 200 }),
        type: Type.Optional(Type.Literal('function')),
        function: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          arguments: Type.String({ description: 'JSON-encoded tool input' }),
        }),
      }),
    ),
  },
  { description: 'OpenAI chat-completions format: the assistant message, or just its tool_calls' },
);

const AnthropicToolUseSchema = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String({ minLength: 1, maxLength: 200 }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  input: Type.Unknown(),
});

export const AnthropicBatchSchema = Type.Object(
  { content: Type.Array(Type.Object({ type: Type.String() })) },
  { description: 'Anthropic format: the assistant message content; tool_use blocks are run, others ignored' },
);

export const BatchBodySchema = Type.Union([NativeBatchSchema, OpenAiBatchSchema, AnthropicBatchSchema]);

export type BatchFormat = 'toolgate' | 'openai' | 'anthropic';

export interface BatchCall {
  /** The caller's id for the call (tool_call_id, tool_use_id, or the toolgate call's optional id). */
  id?: string;
  name: string;
  arguments: unknown;
  /** Size of this call's arguments as sent, for the audit log. */
  bytesIn: number;
  /** Set when the arguments could not be read: the call is answered with this error and not run. */
  argumentsError?: ToolgateError;
}

export interface ParsedBatch {
  format: BatchFormat;
  calls: BatchCall[];
}

const checkers = {
  toolgate: Compile(NativeBatchSchema),
  openai: Compile(OpenAiBatchSchema),
  anthropic: Compile(AnthropicBatchSchema),
  toolUse: Compile(AnthropicToolUseSchema),
};

const FORMAT_KEYS: Record<string, BatchFormat> = {
  calls: 'toolgate',
  tool_calls: 'openai',
  content: 'anthropic',
};

const invalid = (format: BatchFormat, errors: Iterable<{ instancePath: string; message: string }>) => {
  const first = [...errors].slice(0, 3);
  return toolgateError(
    'VALIDATION_FAILED',
    `Invalid ${format} batch: ${first.map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ')}`,
    { suggestion: 'See POST /v1/sessions/{id}/calls in /docs for the three accepted body shapes.' },
  );
};

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');

function openAiCall(call: Static<typeof OpenAiBatchSchema>['tool_calls'][number]): BatchCall {
  const raw = call.function.arguments;
  const base = { id: call.id, name: call.function.name, bytesIn: Buffer.byteLength(raw) };
  // Models sometimes send an empty string for a call without arguments.
  if (raw.trim() === '') return { ...base, arguments: {} };
  try {
    return { ...base, arguments: JSON.parse(raw) as unknown };
  } catch (err) {
    return {
      ...base,
      arguments: raw,
      argumentsError: toolgateError(
        'INVALID_JSON',
        `The arguments of ${call.function.name} are not valid JSON: ${(err as Error).message}`,
        { suggestion: 'Send the arguments as one JSON object, e.g. {"path": "src/index.ts"}.' },
      ),
    };
  }
}

/** Which format a body is in; an OpenAI assistant message has `content` too, so `tool_calls` wins over it. */
function detectFormat(body: unknown): BatchFormat {
  const present =
    typeof body === 'object' && body !== null
      ? Object.keys(body).filter((k) => Object.hasOwn(FORMAT_KEYS, k))
      : [];
  const keys = present.includes('tool_calls') ? present.filter((k) => k !== 'content') : present;
  if (keys.length !== 1) {
    throw toolgateError(
      'VALIDATION_FAILED',
      keys.length === 0
        ? 'A batch body needs one of "calls", "tool_calls" (OpenAI) or "content" (Anthropic)'
        : `A batch body may use only one format, got ${keys.join(' and ')}`,
      { suggestion: 'Send {"calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]}.' },
    );
  }
  return FORMAT_KEYS[keys[0]];
}

export function parseBatch(body: unknown): ParsedBatch {
  const format = detectFormat(body);
  const checker = checkers[format];
  if (!checker.Check(body)) throw invalid(format, checker.Errors(body));

  const items =
    format === 'toolgate'
      ? (body as Static<typeof NativeBatchSchema>).calls
      : format === 'openai'
        ? (body as Static<typeof OpenAiBatchSchema>).tool_calls
        : (body as Static<typeof AnthropicBatchSchema>).content.filter((block) => block.type === 'tool_use');
  // Counted before any per-call work (argument parsing), so an oversized batch costs nothing.
  if (items.length === 0) {
    throw toolgateError('VALIDATION_FAILED', 'The batch has no tool calls', {
      suggestion:
        format === 'anthropic' ? 'Include the tool_use blocks of the assistant message.' : undefined,
    });
  }
  if (items.length > MAX_BATCH_CALLS) {
    throw toolgateError(
      'BODY_TOO_LARGE',
      `The batch has ${items.length} calls; at most ${MAX_BATCH_CALLS} are allowed`,
      {
        suggestion: `Split it into batches of ${MAX_BATCH_CALLS} calls or fewer.`,
        details: { calls: items.length, limit: MAX_BATCH_CALLS },
      },
    );
  }

  let calls: BatchCall[];
  if (format === 'toolgate') {
    calls = (body as Static<typeof NativeBatchSchema>).calls.map((call) => ({
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      arguments: call.arguments ?? {},
      bytesIn: jsonBytes(call.arguments ?? {}),
    }));
  } else if (format === 'openai') {
    calls = (body as Static<typeof OpenAiBatchSchema>).tool_calls.map(openAiCall);
  } else {
    calls = (items as Static<typeof AnthropicBatchSchema>['content']).map((block, index) => {
      if (!checkers.toolUse.Check(block)) {
        throw invalid(
          'anthropic',
          [...checkers.toolUse.Errors(block)].map((e) => ({
            ...e,
            instancePath: `/tool_use[${index}]${e.instancePath}`,
          })),
        );
      }
      return { id: block.id, name: block.name, arguments: block.input, bytesIn: jsonBytes(block.input) };
    });
  }
  return { format, calls };
}
