// write_stdin: sends characters and named keys to a terminal, or polls it with nothing to send.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import {
  afterTerminalCall,
  KeyName,
  KEYS,
  readInputs,
  renderTerminal,
  terminalData,
  TerminalIdInput,
  terminalRead,
  TerminalStateSchema,
} from '../../jobs/terminal-view.js';

const DEFAULT_YIELD_MS = 250;

const Input = Type.Object(
  {
    session_id: TerminalIdInput,
    chars: Type.String({
      maxLength: 1_000_000,
      default: '',
      description:
        'Characters to type, control characters included ("\\n" is Enter, "\\u0003" Ctrl-C, "\\u0004" Ctrl-D); empty to poll',
    }),
    keys: Type.Optional(
      Type.Array(KeyName, {
        maxItems: 200,
        description: 'Named keys typed after chars, e.g. ["ctrl-c"], ["up", "enter"]',
      }),
    ),
    ...readInputs(DEFAULT_YIELD_MS),
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'write_stdin',
  category: 'execution',
  description:
    'Type into a terminal started by exec_command: characters (control characters included) and named keys ' +
    '(ctrl-c, ctrl-d, up, down, enter, escape…), then wait up to yield_time_ms and return the new output. ' +
    'With nothing to type, it polls. screen: true returns the rendered screen.',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Input,
  output: TerminalStateSchema,
  examples: [
    { session_id: 'term_1', chars: 'print(1 + 1)\n', yield_time_ms: 500 },
    { session_id: 'term_1', chars: '', keys: ['ctrl-c'] },
  ],
  timeoutMs: (input) => (input.yield_time_ms ?? DEFAULT_YIELD_MS) + 30_000,
  async execute(input, ctx) {
    const typed = input.chars + (input.keys ?? []).map((key) => KEYS[key]).join('');
    if (typed.length > 1_000_000)
      throw toolgateError('VALIDATION_FAILED', 'At most 1000000 characters per call');
    const { result } = await ctx.workspace.call(
      'terminalWrite',
      { id: input.session_id, ...terminalRead(input, DEFAULT_YIELD_MS) },
      Buffer.from(typed, 'utf8'),
    );
    return afterTerminalCall(ctx, terminalData(result));
  },
  render: renderTerminal,
});
