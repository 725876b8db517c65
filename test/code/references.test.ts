import { describe, expect, it } from 'vitest';
import { extractFile } from '../../src/code/extract.js';
import { languageOf } from '../../src/code/languages.js';
import { ModuleResolver } from '../../src/code/module-resolver.js';
import { GrammarLoader } from '../../src/code/parser.js';
import { findUses, targetKey } from '../../src/code/references.js';
import { IndexSnapshot } from '../../src/code/snapshot.js';
import { SymbolResolver } from '../../src/code/symbol-resolver.js';

// The syntax fallback's answers on small multi-file projects, one row per case of issue 32: each row
// names a symbol by the file that defines it and lists the uses (path:line:column) that must be found
// `resolved`; rows with `not` list places that must not be reported at all.

const grammars = new GrammarLoader();

async function project(files: Record<string, string>) {
  const summaries = [];
  for (const [path, source] of Object.entries(files)) {
    summaries.push(extractFile(path, source, await grammars.load(languageOf(path)!)));
  }
  const snapshot = new IndexSnapshot(summaries, {
    files: summaries.length,
    parsed: summaries.length,
    reused: 0,
    skipped: 0,
    truncated: false,
    durationMs: 0,
  });
  return { snapshot, resolver: new SymbolResolver(snapshot, new ModuleResolver(snapshot.byPath)) };
}

/** Resolved uses of `name` as defined at top level in `definedIn`, as `path:line:column`. */
async function resolvedUses(files: Record<string, string>, name: string, definedIn: string) {
  const { snapshot, resolver } = await project(files);
  const definition = snapshot.byPath.get(definedIn)!.definitions.find((d) => d.name === name && !d.container);
  expect(definition, `${name} defined in ${definedIn}`).toBeDefined();
  return findUses(snapshot, resolver, {
    name,
    targets: new Set([targetKey(definedIn, definition!.line)]),
    include: () => true,
    includeUnresolved: true,
  })
    .filter((u) => u.confidence === 'resolved')
    .map((u) => `${u.path}:${u.line}:${u.column}`);
}

const PY_CORE = `class Context:
    pass

class ParamType:
    pass

class Exit(Exception):
    pass

F = object()

def handler():
    pass

class Holder(ParamType):
    def handler(self):
        pass
`;

const PY_TYPES = `class BoolParamType:
    pass
`;

describe('find_references, syntax fallback, Python', () => {
  const cases: { case: string; use: string; name: string; definedIn?: string; expected: string[] }[] = [
    {
      case: 'a type annotation with a union',
      use: 'from .core import Context\n\ndef f(parent: Context | None = None) -> None:\n    pass\n',
      name: 'Context',
      expected: ['pkg/use.py:3:15'],
    },
    {
      case: 'a generic through a module import',
      use: 'import typing as t\nfrom . import types\n\nx: types.BoolParamType[t.Any] = None\n',
      name: 'BoolParamType',
      definedIn: 'pkg/types.py',
      expected: ['pkg/use.py:4:10'],
    },
    {
      case: 'both places inside t.Callable[[F], F]',
      use: 'import typing as t\nfrom .core import F\n\ndef deco(f) -> t.Callable[[F], F]:\n    pass\n',
      name: 'F',
      expected: ['pkg/use.py:4:28', 'pkg/use.py:4:32'],
    },
    {
      case: 'a subscripted base class',
      use: 'from .core import ParamType\n\nclass Choice(ParamType[str]):\n    pass\n',
      name: 'ParamType',
      expected: ['pkg/use.py:3:14'],
    },
    {
      case: 'an except clause with as',
      use: 'from .core import Exit\n\ntry:\n    pass\nexcept Exit as e:\n    raise e\n',
      name: 'Exit',
      expected: ['pkg/use.py:5:8'],
    },
    {
      case: 'values in a return and a dict',
      use: 'from .core import handler\n\ndef table():\n    return {"h": handler}\n\ndef get():\n    return handler\n',
      name: 'handler',
      expected: ['pkg/use.py:4:18', 'pkg/use.py:7:12'],
    },
    {
      case: 'a module-qualified call',
      use: 'from . import types\n\nvalue = types.BoolParamType()\n',
      name: 'BoolParamType',
      definedIn: 'pkg/types.py',
      expected: ['pkg/use.py:3:15'],
    },
    {
      case: 'a renamed import',
      use: 'from .core import handler as on_event\n\non_event()\n',
      name: 'handler',
      expected: ['pkg/use.py:3:1'],
    },
    {
      case: 'forward references in strings (annotations, TypeVar bound, cast)',
      use: 'import typing as t\nfrom . import core\nfrom .core import Context\n\ndef f(a: "Context", b: t.Optional["core.Context"]) -> t.Literal["Context"]:\n    return t.cast("Context", a)\n\nT = t.TypeVar("T", bound="Context")\n',
      name: 'Context',
      expected: ['pkg/use.py:5:11', 'pkg/use.py:5:41', 'pkg/use.py:6:20', 'pkg/use.py:8:27'],
    },
    {
      case: 'no local variable or parameter of the same name',
      use: 'from .core import handler\n\ndef f(handler):\n    return handler\n\ndef g():\n    handler = 1\n    return handler\n\nhandler()\n',
      name: 'handler',
      expected: ['pkg/use.py:10:1'],
    },
  ];
  it.each(cases)('finds $case', async ({ use, name, definedIn, expected }) => {
    const files = {
      'pkg/__init__.py': '',
      'pkg/core.py': PY_CORE,
      'pkg/types.py': PY_TYPES,
      'pkg/use.py': use,
    };
    const uses = await resolvedUses(files, name, definedIn ?? 'pkg/core.py');
    expect(uses.filter((u) => u.startsWith('pkg/use.py'))).toEqual(expected);
  });
});

describe('resolve_symbol, syntax fallback, Python', () => {
  const files = {
    'pkg/__init__.py': '',
    'pkg/core.py': PY_CORE,
    'pkg/shell.py': 'def handler():\n    pass\n',
    'pkg/use.py': [
      'import typing as t',
      'from .core import Holder',
      'if t.TYPE_CHECKING:',
      '    Alias = Holder',
      '',
      'def handler():',
      '    pass',
      '',
      'def complete():',
      '    from .shell import handler',
      '    return handler()',
      '',
      'def other():',
      '    return handler()',
      '',
    ].join('\n'),
    'pkg/bare.py': 'from .core import Holder\n\ndef run(h: Holder):\n    return h\n',
  };
  const cases: { case: string; path: string; name: string; line?: number; expected: string }[] = [
    {
      case: 'a function-level import shadows the module definition',
      path: 'pkg/use.py',
      name: 'handler',
      line: 11,
      expected: 'import pkg/shell.py:1',
    },
    {
      case: 'the module definition elsewhere in the file',
      path: 'pkg/use.py',
      name: 'handler',
      line: 14,
      expected: 'local pkg/use.py:6',
    },
    {
      case: 'a definition inside if TYPE_CHECKING',
      path: 'pkg/use.py',
      name: 'Alias',
      expected: 'local pkg/use.py:4',
    },
    {
      case: 'never a class member for a bare name',
      path: 'pkg/bare.py',
      name: 'handler',
      expected: 'name-match pkg/core.py:12 pkg/shell.py:1 pkg/use.py:6',
    },
  ];
  it.each(cases)('answers $case', async ({ path, name, line, expected }) => {
    const { snapshot, resolver } = await project(files);
    const result = resolver.resolve(snapshot.byPath.get(path)!, name, line);
    const targets = result.targets.map((t) => `${t.path}:${t.definition?.line}`).sort();
    expect([result.resolution, ...targets].join(' ')).toBe(expected);
  });
});

const TS_UTIL = `export const EMPTY = [];
export function noop() {}
export class Thing {}
export const KEY = 'k';
declare const ambient: number;
export declare const declared: string;
export { ambient };
`;

describe('find_references and resolve_symbol, syntax fallback, TypeScript', () => {
  const cases: { case: string; use: string; name: string; expected: string[] }[] = [
    {
      case: 'a returned value',
      use: "import { EMPTY } from './util';\nexport function f() {\n  return EMPTY;\n}\n",
      name: 'EMPTY',
      expected: ['src/use.ts:3:10'],
    },
    {
      case: 'the right side of instanceof',
      use: "import { Thing } from './util';\nexport const is = (x: unknown) => x instanceof Thing;\n",
      name: 'Thing',
      expected: ['src/use.ts:2:48'],
    },
    {
      case: 'a property value',
      use: "import { noop } from './util';\nexport const o = { next: noop };\n",
      name: 'noop',
      expected: ['src/use.ts:2:26'],
    },
    {
      case: 'a shorthand property',
      use: "import { noop } from './util';\nexport const o = { noop };\n",
      name: 'noop',
      expected: ['src/use.ts:2:20'],
    },
    {
      case: 'a computed key',
      use: "import { KEY } from './util';\nexport const o = { [KEY]: 1 };\n",
      name: 'KEY',
      expected: ['src/use.ts:2:21'],
    },
    {
      case: 'the value of export const',
      use: "import { noop } from './util';\nexport const alias = noop;\n",
      name: 'noop',
      expected: ['src/use.ts:2:22'],
    },
    {
      case: 'uses under a renamed import',
      use: "import { noop as nothing } from './util';\nnothing();\nexport const o = { next: nothing };\n",
      name: 'noop',
      expected: ['src/use.ts:2:1', 'src/use.ts:3:26'],
    },
    {
      case: 'a declare const definition',
      use: "import { declared, ambient } from './util';\nexport const n = declared.length + ambient;\n",
      name: 'declared',
      expected: ['src/use.ts:2:18'],
    },
    {
      case: 'not the name of a function expression',
      use: "import { noop } from './util';\nexport const make = () => function noop() {\n  return noop;\n};\nnoop();\n",
      name: 'noop',
      expected: ['src/use.ts:5:1'],
    },
    {
      case: 'no shadowing parameter or local',
      use: "import { noop } from './util';\nexport function f(noop: number) {\n  return noop;\n}\nexport function g() {\n  const noop = 1;\n  return noop;\n}\nnoop();\n",
      name: 'noop',
      expected: ['src/use.ts:9:1'],
    },
  ];
  it.each(cases)('finds $case', async ({ use, name, expected }) => {
    const uses = await resolvedUses({ 'src/util.ts': TS_UTIL, 'src/use.ts': use }, name, 'src/util.ts');
    expect(uses.filter((u) => u.startsWith('src/use.ts'))).toEqual(expected);
  });

  it('resolves names defined by declare const, exported or not', async () => {
    const { snapshot, resolver } = await project({
      'src/util.ts': TS_UTIL,
      'src/use.ts': "import { declared, ambient } from './util';\n",
    });
    const use = snapshot.byPath.get('src/use.ts')!;
    for (const [name, line] of [
      ['declared', 6],
      ['ambient', 5],
    ] as const) {
      const result = resolver.resolve(use, name);
      expect([result.resolution, result.targets.map((t) => `${t.path}:${t.definition?.line}`)]).toEqual([
        'import',
        [`src/util.ts:${line}`],
      ]);
    }
  });
});
