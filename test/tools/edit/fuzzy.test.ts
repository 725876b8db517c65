import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext, type ToolHarness, type ToolSession } from '../../helpers/tool-context.js';

// The cascade runs edit_file's execute directly (no HTTP). A refusal is the ToolgateError itself; its
// statusCode is the one the error catalog gives it, which is the status the route answers with.
let t: ToolHarness;
let s: ToolSession;
let n = 0;
beforeAll(async () => {
  t = await toolContext();
  s = await t.session();
});
afterAll(() => t.close());

/** Writes `content` to a fresh file, applies the edit, returns `{ data }` or `{ error }` and the file afterwards. */
async function tryEdit(
  content: string,
  old_string: string,
  new_string: string,
  extra: Record<string, unknown> = {},
) {
  const file = `case${++n}.ts`;
  s.put(file, content);
  const res = await s.attempt('edit_file', { path: file, old_string, new_string, ...extra });
  return { res, after: s.text(file) };
}

const calc =
  'function calc(a, b) {\n  const sum = a + b;\n  const product = a * b;\n  return sum + product;\n}\n';

describe('edit_file fuzzy strategies', () => {
  it('trimmed_boundary: ignores blank lines and spaces around old_string', async () => {
    const { res, after } = await tryEdit('a\n  foo(1);\nb\n', '\n\n  foo(1);  \n\n', '\n\n  foo(2);  \n\n');
    expect(res.data.strategy).toBe('trimmed_boundary');
    expect(after).toBe('a\n  foo(2);\nb\n');
  });

  it('trimmed_boundary: refuses when the trimmed text occurs twice', async () => {
    const { res, after } = await tryEdit('foo(1);\nfoo(1);\n', '\nfoo(1);\n\n', 'bar();');
    expect(res.error?.statusCode).toBe(409);
    expect(res.error).toMatchObject({
      code: 'EDIT_AMBIGUOUS',
      details: { lines: [1, 2], strategy: 'trimmed_boundary' },
    });
    expect(after).toBe('foo(1);\nfoo(1);\n');
  });

  it('indentation_flexible: matches a block indented differently and re-indents new_string', async () => {
    const content = 'class A {\n    if (x) {\n        go();\n    }\n}\n';
    const { res, after } = await tryEdit(content, 'if (x) {\n    go();\n}', 'if (y) {\n    stop();\n}');
    expect(res.data.strategy).toBe('indentation_flexible');
    expect(after).toBe('class A {\n    if (y) {\n        stop();\n    }\n}\n');
  });

  it('indentation_flexible: refuses two blocks that differ only by indentation', async () => {
    const content = 'if (x) {\n  go();\n}\n  if (x) {\n    go();\n  }\n';
    const { res } = await tryEdit(content, '    if (x) {\n      go();\n    }', 'nope');
    expect(res.error?.statusCode).toBe(409);
    expect(res.error.details.strategy).toBe('indentation_flexible');
  });

  it('line_trimmed: matches lines whose surrounding whitespace differs unevenly', async () => {
    const { res, after } = await tryEdit(
      '  a = 1;  \n\tb = 2;\nc = 3;\n',
      'a = 1;\n  b = 2;',
      'a = 10;\nb = 20;',
    );
    expect(res.data.strategy).toBe('line_trimmed');
    expect(after).toBe('  a = 10;\n  b = 20;\nc = 3;\n');
  });

  it('line_trimmed: does not match when a line differs in content', async () => {
    const { res } = await tryEdit('  a = 1;\n  b = 2;\n', 'a = 1;\nb = 3;', 'x');
    expect(res.error?.statusCode).toBe(422);
    expect(res.error.code).toBe('EDIT_NOT_FOUND');
  });

  it('whitespace_normalized: matches text whose whitespace runs and line breaks differ', async () => {
    const { res, after } = await tryEdit(
      'const  x =   foo(a,\n    b);\n',
      'const x = foo(a, b);',
      'const x = foo(a, c);',
    );
    expect(res.data.strategy).toBe('whitespace_normalized');
    expect(after).toBe('const x = foo(a, c);\n');
  });

  it('whitespace_normalized: does not join split tokens', async () => {
    const { res } = await tryEdit('const x = foo(a, b);\n', 'const x = fo o(a, b);', 'y');
    expect(res.error?.statusCode).toBe(422);
  });

  it('escape_normalized: accepts an over-escaped old_string and unescapes new_string', async () => {
    const { res, after } = await tryEdit(
      'line one\nline "two"\n',
      'line one\\nline \\"two\\"',
      'line 1\\nline \\"2\\"',
    );
    expect(res.data.strategy).toBe('escape_normalized');
    expect(after).toBe('line 1\nline "2"\n');
  });

  it('escape_normalized: leaves real backslash sequences to the exact match', async () => {
    const { res, after } = await tryEdit('print("a\\nb")\n', 'print("a\\nb")', 'print("c\\nd")');
    expect(res.data.strategy).toBe('exact');
    expect(after).toBe('print("c\\nd")\n');
  });

  it('block_anchor: matches a block whose first and last lines match and whole is at least 80% similar', async () => {
    const old =
      'function calc(a, b) {\n  const sum = a + b;\n  const prod = a * b;\n  return sum + product;\n}';
    const { res, after } = await tryEdit(calc, old, 'function calc(a, b) {\n  return a + b + a * b;\n}');
    expect(res.data.strategy).toBe('block_anchor');
    expect(after).toBe('function calc(a, b) {\n  return a + b + a * b;\n}\n');
  });

  it('block_anchor: refuses a block that is not similar enough and suggests the closest region', async () => {
    const old =
      'function calc(a, b) {\n  throw new Error("completely different body here");\n  log();\n  return sum + product;\n}';
    const { res, after } = await tryEdit(calc, old, 'x');
    expect(res.error?.statusCode).toBe(422);
    expect(res.error.code).toBe('EDIT_NOT_FOUND');
    expect(res.error.suggestion).toContain('function calc(a, b) {');
    expect(res.error.details.closest).toMatchObject({ startLine: 1, endLine: 5 });
    expect(res.error.details.closest.similarity).toBeLessThan(0.8);
    expect(after).toBe(calc);
  });

  it('block_anchor: refuses when two blocks are similar enough', async () => {
    const twice = calc + calc.replace('product;\n}', 'product ;\n}');
    const old =
      'function calc(a, b) {\n  const sum = a + b;\n  const prod = a * b;\n  return sum + product;\n}';
    const { res } = await tryEdit(twice, old, 'x');
    expect(res.error?.statusCode).toBe(409);
  });

  it('with replace_all, a fuzzy rule replaces every match it finds', async () => {
    const { res, after } = await tryEdit('  x = 1;\n  y;\n  x = 1;\n', 'x = 1;  ', 'x = 2;', {
      replace_all: true,
    });
    expect(res.data).toMatchObject({ strategy: 'trimmed_boundary', replacements: 2 });
    expect(after).toBe('  x = 2;\n  y;\n  x = 2;\n');
  });
});
