// build_dependency_graph: the file-level import graph of a directory, with import cycles reported.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { buildDependencyGraph } from '../../code/dependency-graph.js';
import {
  codeSnapshot,
  IndexInfoSchema,
  indexInfo,
  moduleResolver,
  resolveScope,
} from '../../code/tool-shared.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, default: '.', description: 'Directory whose files form the graph' }),
    include_external: Type.Boolean({
      default: false,
      description: 'Also list imports that leave the workspace (packages, standard library), with counts',
    }),
    max_edges: Type.Integer({
      minimum: 1,
      maximum: 20_000,
      default: 2000,
      description: 'Edges returned at most',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  files: Type.Array(Type.String()),
  edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), line: Type.Integer() })),
  cycles: Type.Array(Type.Array(Type.String()), {
    description: 'Each import cycle as a path a → … → a (first file repeated at the end)',
  }),
  external: Type.Optional(Type.Array(Type.Object({ source: Type.String(), count: Type.Integer() }))),
  totalEdges: Type.Integer(),
  truncated: Type.Boolean(),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'build_dependency_graph',
  category: 'code',
  description:
    'Which files import which, for the source files under a directory (imports resolved to workspace ' +
    'files: relative TS/JS, Python modules, Go packages, Rust modules, Java classes), and every import ' +
    'cycle among them. Use it to see a module’s dependants before changing it, or to untangle cycles.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: 'src', include_external: false, max_edges: 500 }],
  async execute(input, ctx) {
    const scope = await resolveScope(ctx, input.path);
    const snapshot = await codeSnapshot(ctx);
    const graph = buildDependencyGraph(snapshot, await moduleResolver(ctx, snapshot), scope.include);
    const external = [...graph.external]
      .map(([source, count]) => ({ source, count }))
      .sort((a, b) => b.count - a.count || a.source.localeCompare(b.source));
    return {
      path: scope.relative,
      files: graph.files,
      edges: graph.edges.slice(0, input.max_edges),
      cycles: graph.cycles,
      ...(input.include_external ? { external } : {}),
      totalEdges: graph.edges.length,
      truncated: graph.edges.length > input.max_edges,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    const out = new Map<string, string[]>();
    for (const e of data.edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
    const lines = [`${data.files.length} files, ${data.totalEdges} import edges under ${data.path}`];
    for (const file of data.files) if (out.has(file)) lines.push(`${file} → ${out.get(file)!.join(', ')}`);
    if (data.truncated) lines.push(`(edges cut at ${data.edges.length})`);
    lines.push(data.cycles.length ? `${data.cycles.length} cycle(s):` : 'No import cycles.');
    for (const cycle of data.cycles) lines.push(`  ${cycle.join(' → ')}`);
    if (data.external?.length) {
      lines.push(
        `external: ${data.external
          .slice(0, 30)
          .map((e) => `${e.source} (${e.count})`)
          .join(', ')}`,
      );
    }
    return lines.join('\n');
  },
});
