// Test-only tools for the batch and MCP tests: they sleep, then report when they ran, so a test can
// see which calls overlapped. They touch no files.
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import { defineTool } from '../../src/contract/tool.js';

const Input = Type.Object(
  {
    ms: Type.Integer({ minimum: 0, maximum: 5000, default: 200, description: 'How long to sleep' }),
    label: Type.String({ default: '', description: 'Echoed back' }),
  },
  { additionalProperties: false },
);
const Output = Type.Object({ label: Type.String(), startedAt: Type.Number(), endedAt: Type.Number() });

const timed = (name: string, capabilities: { readsFiles?: boolean; writesFiles?: boolean }) =>
  defineTool({
    name,
    category: 'testing',
    description: `Test tool: sleeps for ms milliseconds (${name}).`,
    capabilities,
    input: Input,
    output: Output,
    async execute(input, ctx) {
      const startedAt = performance.now();
      await sleep(input.ms, undefined, { signal: ctx.signal });
      return { label: input.label, startedAt, endedAt: performance.now() };
    },
    render: (data) => `${name} ${data.label} done`,
  });

export const slowRead = timed('slow_read', { readsFiles: true });
export const slowWrite = timed('slow_write', { readsFiles: true, writesFiles: true });
