// What every batch format shares: the call list a body is read into, the result list a body is answered
// from, and the contract each wire format module (toolgate, openai, anthropic, gemini) fulfils for
// POST /v1/sessions/{id}/calls. batch.ts picks the format; the vendor modules read and write it.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { toolgateError } from '../lib/errors.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { BatchCall, BatchFormat, BatchResult } from '../engine/batch/types.js';

export type { BatchCall, BatchFormat, BatchResult, ParsedBatch } from '../engine/batch/types.js';

/**
 * One batch wire format. Reading is in two steps so an oversized batch is refused before any per-call
 * work: `items` picks the tool calls out of a body that passed `body`, `call` reads one of them.
 */
export interface BatchWire<Item = unknown> {
  readonly format: BatchFormat;
  /** The top-level member that marks a body as this format. */
  readonly key: string;
  /** The request body, for validation and the OpenAPI document. */
  readonly body: TSchema;
  /** The 200 answer, for the OpenAPI document. */
  readonly answer: TSchema;
  /** What to say when the body holds no tool call. */
  readonly emptySuggestion?: string;
  items(body: unknown): Item[];
  /**
   * The call (or calls: an OpenAI shell_call runs each of its commands) of one item; an item that is no
   * valid call throws VALIDATION_FAILED (see batchReader). `tools` is for formats whose arguments
   * depend on the tool's schema (OpenAI strict mode).
   */
  call(item: Item, index: number, tools: ToolRegistry): BatchCall | BatchCall[];
  /**
   * The answer, ready to append to that vendor's conversation as is; `items` are the body's, in order,
   * and `body` the body itself (Anthropic's `tools` set how a view is cut).
   */
  render(results: BatchResult[], items: readonly Item[], body: unknown): unknown;
}

/** VALIDATION_FAILED naming the first few problems of a body in `format`. */
const invalidBatch = (format: BatchFormat, errors: Iterable<{ instancePath: string; message: string }>) => {
  const first = [...errors].slice(0, 3);
  return toolgateError(
    'VALIDATION_FAILED',
    `Invalid ${format} batch: ${first.map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ')}`,
    { suggestion: 'See POST /v1/sessions/{id}/calls in /docs for the accepted body shapes.' },
  );
};

/**
 * A reader for one part of a `format` body: returns the value, typed, when it matches `schema`, and
 * otherwise throws invalidBatch with the problems' paths under `at` (e.g. `/tool_use[2]`).
 */
export function batchReader<T extends TSchema>(format: BatchFormat, schema: T) {
  const compiled = Compile(schema);
  return (value: unknown, at = ''): Static<T> => {
    if (compiled.Check(value)) return value;
    throw invalidBatch(
      format,
      [...compiled.Errors(value)].map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` })),
    );
  };
}

/** Size of arguments that arrived as parsed JSON, for the audit log. */
export const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');
