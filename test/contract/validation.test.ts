// Defaults of tool inputs (src/contract/validation.ts): the top-level fast path gives, for every built-in
// tool and for inputs with fields missing, present, null or of the wrong shape, exactly what TypeBox's
// Value.Default followed by the compiled check gives.
import { describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { compileValidator } from '../../src/contract/validation.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';

const outcome = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch {
    return { refused: true };
  }
};

describe('input defaults', () => {
  it('match Value.Default for every built-in tool', () => {
    for (const tool of BUILTIN_TOOLS) {
      const schema = tool.input as TSchema;
      const check = Compile(schema);
      const inputs: unknown[] = [
        {},
        ...(tool.examples ?? []),
        { offset: null, limit: 5 },
        { path: 'a.txt', limit: undefined },
        [],
        'text',
      ];
      const validator = compileValidator(tool);
      for (const input of inputs) {
        const expected = outcome(() => {
          const value = Value.Default(schema, structuredClone(input));
          if (!check.Check(value)) throw new Error('invalid');
          return value;
        });
        expect(
          outcome(() => validator.validate(structuredClone(input))),
          `${tool.name} ${JSON.stringify(input)}`,
        ).toEqual(expected);
      }
    }
  });
});
