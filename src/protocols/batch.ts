// POST /v1/sessions/{id}/calls in every wire format: picks the format of a body by its top-level member
// — toolgate `{calls}`, OpenAI `{tool_calls}` (an assistant message may be posted as is), OpenAI Responses
// `{output}` (a response may be posted as is), Anthropic
// `{content}` (tool_use blocks), Gemini `{parts}` (functionCall parts) — reads it into one call list with
// that format's module, and answers in the same format. A call whose arguments cannot be parsed keeps its
// place with the error, so the others still run.
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { anthropicBatch } from './anthropic.js';
import type { BatchFormat, BatchResult, BatchWire, ParsedBatch } from './batch-call.js';
import { geminiBatch } from './gemini.js';
import { openaiBatch } from './openai.js';
import { responsesBatch } from './openai-responses.js';
import type { ToolRegistry } from '../contract/registry.js';
import { toolgateBatch } from './toolgate.js';

export type { BatchCall, BatchFormat, BatchResult, ParsedBatch } from './batch-call.js';

/** More calls than this in one request are refused: a batch is one model turn, not a bulk job. */
export const MAX_BATCH_CALLS = 100;

const WIRES: Record<BatchFormat, BatchWire> = {
  toolgate: toolgateBatch,
  openai: openaiBatch,
  'openai-responses': responsesBatch,
  anthropic: anthropicBatch,
  gemini: geminiBatch,
};

const FORMAT_KEYS: Record<string, BatchFormat> = Object.fromEntries(
  Object.values(WIRES).map((wire) => [wire.key, wire.format]),
);

export const BatchBodySchema = Type.Union(Object.values(WIRES).map((wire) => wire.body));
export const BatchAnswerSchema = Type.Union(Object.values(WIRES).map((wire) => wire.answer));

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
        ? 'A batch body needs one of "calls", "tool_calls" (OpenAI), "output" (OpenAI Responses), "content" (Anthropic) or "parts" (Gemini)'
        : `A batch body may use only one format, got ${keys.join(' and ')}`,
      { suggestion: 'Send {"calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]}.' },
    );
  }
  return FORMAT_KEYS[keys[0]];
}

export function parseBatch(body: unknown, tools: ToolRegistry): ParsedBatch {
  const format = detectFormat(body);
  const wire = WIRES[format];
  const items = wire.items(body);
  // Counted before any per-call work (argument parsing), so an oversized batch costs nothing.
  if (items.length === 0) {
    throw toolgateError('VALIDATION_FAILED', 'The batch has no tool calls', {
      suggestion: wire.emptySuggestion,
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
  const calls = items.flatMap((item, index) => {
    const made = wire.call(item, index, tools);
    return (Array.isArray(made) ? made : [made]).map((call) => ({ ...call, item: index }));
  });
  // An item may hold several calls (a shell_call's commands): the limit is on what runs.
  if (calls.length > MAX_BATCH_CALLS) {
    throw toolgateError(
      'BODY_TOO_LARGE',
      `The batch holds ${calls.length} calls (its items' commands counted); at most ${MAX_BATCH_CALLS} are allowed`,
      {
        suggestion: `Split it into batches of ${MAX_BATCH_CALLS} calls or fewer.`,
        details: { calls: calls.length, limit: MAX_BATCH_CALLS },
      },
    );
  }
  return { format, calls, items, body };
}

/** The answer in the format the batch came in, ready to append to the conversation as is. */
export const renderBatch = (batch: ParsedBatch, results: BatchResult[]): unknown =>
  WIRES[batch.format].render(results, batch.items ?? [], batch.body);
