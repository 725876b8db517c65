// The eval case format (one case per JSONL line or YAML list item): the workspace to start from, one call
// or a sequence of calls through any entry format, and what must hold afterwards. Published as the
// EvalCase component of the OpenAPI document; datasets are checked against it when they are loaded.
import { Type, type Static } from 'typebox';

/** The entry formats a call can go through; each reaches the same pipeline by its own route. */
export const VIAS = ['rest', 'toolgate', 'openai', 'anthropic', 'gemini', 'mcp'] as const;
export type Via = (typeof VIAS)[number];

const Pattern = Type.String({ description: 'A regular expression (JavaScript syntax, flag "s")' });

const PathAssertion = Type.Object(
  {
    path: Type.String({ description: 'RFC 9535 JSONPath into data, e.g. $.matches[0].path' }),
    equals: Type.Optional(Type.Unknown({ description: 'The first value found equals this (deeply)' })),
    matches: Type.Optional(Pattern),
    exists: Type.Optional(Type.Boolean({ description: 'Whether the path finds anything' })),
    count: Type.Optional(Type.Integer({ minimum: 0, description: 'How many values the path finds' })),
    length: Type.Optional(Type.Integer({ minimum: 0, description: 'Length of the first value found' })),
  },
  { additionalProperties: false },
);

export const CallExpectSchema = Type.Object(
  {
    ok: Type.Optional(Type.Boolean({ description: 'The call succeeded (default: true unless code is set)' })),
    status: Type.Optional(
      Type.Integer({ description: 'HTTP status; for batch and MCP the one the error code maps to' }),
    ),
    code: Type.Optional(Type.String({ description: 'The error code, e.g. EDIT_AMBIGUOUS' })),
    data: Type.Optional(Type.Unknown({ description: 'A JSON subset of data: objects match by member' })),
    paths: Type.Optional(Type.Array(PathAssertion)),
    error: Type.Optional(
      Type.Unknown({ description: 'A JSON subset of the error body (message, suggestion, details)' }),
    ),
    text: Type.Optional(Pattern),
    stdout: Type.Optional(Pattern),
    stderr: Type.Optional(Pattern),
    maxDurationMs: Type.Optional(Type.Number({ minimum: 0, description: 'Bound on this call' })),
  },
  { additionalProperties: false },
);

const FileExpect = Type.Union([
  Type.String({ description: 'The exact content' }),
  Type.Null({ description: 'The file must not exist' }),
  Type.Object(
    {
      content: Type.Optional(Type.String()),
      contains: Type.Optional(Type.String()),
      matches: Type.Optional(Pattern),
      sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
      absent: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
]);

export const CaseExpectSchema = Type.Object(
  {
    ...CallExpectSchema.properties,
    files: Type.Optional(Type.Record(Type.String(), FileExpect, { description: 'Workspace files after' })),
    caseMaxDurationMs: Type.Optional(Type.Number({ minimum: 0, description: 'Bound on the whole case' })),
  },
  { additionalProperties: false, description: 'Call members apply to the last call; files to the end' },
);

const CallSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1 }),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    via: Type.Optional(Type.Enum([...VIAS])),
    expect: Type.Optional(CallExpectSchema),
  },
  { additionalProperties: false },
);

const SeedFile = Type.Union([
  Type.String(),
  Type.Object({ base64: Type.String() }, { additionalProperties: false }),
]);

export const EvalCaseSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String()),
    tool: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'The tool under test (the one call, or the label of a sequence; default its last tool)',
      }),
    ),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    via: Type.Optional(Type.Enum([...VIAS], { description: 'Entry format of the one call (default rest)' })),
    calls: Type.Optional(Type.Array(CallSchema, { minItems: 1, maxItems: 50 })),
    session: Type.Optional(
      Type.Object(
        {
          profile: Type.Optional(Type.String()),
          categories: Type.Optional(Type.Array(Type.String())),
          excludeTools: Type.Optional(Type.Array(Type.String())),
          template: Type.Optional(Type.String()),
          archive_base64: Type.Optional(Type.String()),
        },
        { additionalProperties: false, description: 'How the fresh session is made (default profile full)' },
      ),
    ),
    files: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), SeedFile, {
        description: 'Workspace files before the first call: text, or {base64} for bytes',
      }),
    ),
    expect: Type.Optional(CaseExpectSchema),
  },
  { $id: 'EvalCase', additionalProperties: false, description: 'One eval case (docs/evals.md)' },
);

export type EvalCase = Static<typeof EvalCaseSchema>;
export type CallExpect = Static<typeof CallExpectSchema>;
export type CaseExpect = Static<typeof CaseExpectSchema>;
export type FileExpectation = Static<typeof FileExpect>;

/** One call of a case, after the one-call shorthand is unfolded. */
export interface PlannedCall {
  tool: string;
  input: Record<string, unknown>;
  via: Via;
  expect: CallExpect;
}
