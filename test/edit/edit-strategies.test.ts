// The edit engine without a workspace: each strategy of the cascade as a table (content, old_string,
// new_string → the strategy that applies and the result), then what each strategy alone matches, and
// the refusals (not found, ambiguous).
import { describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/edit/apply-edit.js';
import { STRATEGIES, STRATEGY_NAMES, type StrategyName } from '../../src/edit/edit-strategies.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { errorCodeOf as codeOf } from '../helpers/error-code.js';

interface Case {
  strategy: StrategyName;
  content: string;
  old: string;
  replacement: string;
  /** The text the strategy matches in `content`. */
  region: string;
  result: string;
}

const CASES: Case[] = [
  {
    strategy: 'exact',
    content: 'a\nb\nc\n',
    old: 'b',
    replacement: 'B',
    region: 'b',
    result: 'a\nB\nc\n',
  },
  {
    // Blank lines around old_string that the file does not have.
    strategy: 'trimmed_boundary',
    content: 'x = 1;\ny = 2;\n',
    old: '\ny = 2;\n\n',
    replacement: '\ny = 3;\n\n',
    region: 'y = 2;',
    result: 'x = 1;\ny = 3;\n',
  },
  {
    // The whole block indented differently: the replacement is shifted to the file's indentation.
    strategy: 'indentation_flexible',
    content: 'function f() {\n  if (a) {\n    go();\n  }\n}\n',
    old: 'if (a) {\n  go();\n}',
    replacement: 'if (b) {\n  stop();\n}',
    region: '  if (a) {\n    go();\n  }',
    result: 'function f() {\n  if (b) {\n    stop();\n  }\n}\n',
  },
  {
    // Each line equal once trimmed, though the relative indentation differs.
    strategy: 'line_trimmed',
    content: 'function f() {\n  return 1;\n}\n',
    old: 'function f() {\nreturn 1;\n}',
    replacement: 'function f() {\nreturn 2;\n}',
    region: 'function f() {\n  return 1;\n}',
    result: 'function f() {\nreturn 2;\n}\n',
  },
  {
    strategy: 'whitespace_normalized',
    content: 'const x =   foo(a,  b);\n',
    old: 'const x = foo(a, b);',
    replacement: 'const x = bar(a, b);',
    region: 'const x =   foo(a,  b);',
    result: 'const x = bar(a, b);\n',
  },
  {
    // old_string escaped once too often: "\n" written as backslash-n.
    strategy: 'escape_normalized',
    content: 'say("a");\nsay("b");\n',
    old: 'say(\\"a\\");\\nsay',
    replacement: 'say(\\"A\\");\\nsay',
    region: 'say("a");\nsay',
    result: 'say("A");\nsay("b");\n',
  },
  {
    // First and last lines match and the block is similar enough.
    strategy: 'block_anchor',
    content: 'function f() {\n  const total = compute(a, b);\n  return total;\n}\n',
    old: 'function f() {\n  const total = compute(a, c);\n  return total;\n}',
    replacement: 'function f() {\n  return 0;\n}',
    region: 'function f() {\n  const total = compute(a, b);\n  return total;\n}',
    result: 'function f() {\n  return 0;\n}\n',
  },
];

const strategy = (name: StrategyName) => STRATEGIES.find((s) => s.name === name)!;

describe('the edit strategy cascade', () => {
  it('has a case for every strategy, in cascade order', () => {
    expect(CASES.map((c) => c.strategy)).toEqual([...STRATEGY_NAMES]);
    expect(STRATEGIES.map((s) => s.name)).toEqual([...STRATEGY_NAMES]);
  });

  it.each(CASES)('$strategy: applies first and gives the expected text', (c) => {
    expect(applyEdit(c.content, { old_string: c.old, new_string: c.replacement }, 'f')).toEqual({
      text: c.result,
      replacements: 1,
      strategy: c.strategy,
    });
  });

  it.each(CASES)('$strategy: matches the expected region, and no stricter rule matches', (c) => {
    const regions = strategy(c.strategy).find(c.content, c.old);
    expect(regions.map((r) => c.content.slice(r.start, r.end))).toEqual([c.region]);
    for (const stricter of STRATEGY_NAMES.slice(0, STRATEGY_NAMES.indexOf(c.strategy))) {
      expect(strategy(stricter).find(c.content, c.old), stricter).toEqual([]);
    }
  });

  it('replaces every match with replace_all, but never by the similarity rule', () => {
    const text = '  a();\n  b();\n\n  a();\n  b();\n';
    expect(
      applyEdit(text, { old_string: 'a();\nb();', new_string: 'c();', replace_all: true }, 'f'),
    ).toMatchObject({ replacements: 2, strategy: 'indentation_flexible', text: '  c();\n\n  c();\n' });
    const blocks = 'f() {\n  x = 1;\n}\nf() {\n  x = 1;\n}\n';
    expect(strategy('block_anchor').allowsMany).toBe(false);
    expect(
      codeOf(() =>
        applyEdit(blocks, { old_string: 'f() {\n  x = 2;\n}', new_string: 'g', replace_all: true }, 'f'),
      ),
    ).toBe('EDIT_AMBIGUOUS');
  });

  it('refuses what no strategy finds, an empty old_string on content, and an edit that changes nothing', () => {
    expect(codeOf(() => applyEdit('abc\n', { old_string: 'zzz', new_string: 'y' }, 'f'))).toBe(
      'EDIT_NOT_FOUND',
    );
    expect(codeOf(() => applyEdit('abc\n', { old_string: '', new_string: 'y' }, 'f'))).toBe('BAD_REQUEST');
    expect(applyEdit('', { old_string: '', new_string: 'new\n' }, 'f')).toMatchObject({ text: 'new\n' });
    expect(codeOf(() => applyEdit('a\n', { old_string: 'a', new_string: 'a' }, 'f'))).toBe('NO_CHANGES');
    expect(codeOf(() => applyEdit('x  y\n', { old_string: 'x y', new_string: 'x  y' }, 'f'))).toBe(
      'NO_CHANGES',
    );
  });

  it('names the closest text when nothing matches', () => {
    try {
      applyEdit('alpha\nbeta\ngamma\n', { old_string: 'betx', new_string: 'b' }, 'f');
      expect.unreachable();
    } catch (err) {
      expect(isToolgateError(err) && err.details).toMatchObject({ closest: { startLine: 2, endLine: 2 } });
    }
  });
});
