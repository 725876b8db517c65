// The ranked repository map: files ordered by how much the rest of the code refers to them (PageRank over
// the reference graph, as aider's repo map), each with its definitions' signatures, cut to a token budget.
// Focus files and symbols raise their neighbourhood by personalising the rank.
import { pageRank, type WeightedGraph } from './pagerank.js';
import type { Definition, FileSummary } from './schema.js';
import type { IndexSnapshot } from './snapshot.js';

export interface RepoMapOptions {
  /** Names the scope `include` accepts (part of the memo key). */
  scope: string;
  include: (path: string) => boolean;
  focusFiles: string[];
  focusSymbols: string[];
  maxTokens: number;
  /** Definitions listed per file at most; the rest are counted. */
  maxDefinitionsPerFile: number;
}

export interface RepoMapFile {
  path: string;
  rank: number;
  definitions: Pick<Definition, 'name' | 'kind' | 'line' | 'signature' | 'container'>[];
  omittedDefinitions: number;
}

export interface RepoMap {
  files: RepoMapFile[];
  totalFiles: number;
  tokens: number;
  truncated: boolean;
}

// Kinds that make up the outline; variables and fields only when the rest of the code uses them.
const DATA_KINDS = new Set<Definition['kind']>(['constant', 'variable', 'field']);
const isOutlineKind = (kind: Definition['kind']) => !DATA_KINDS.has(kind);

const MAX_DEFINERS = 20;

const isDescriptive = (name: string) =>
  name.length >= 8 && (/[a-z][A-Z]/.test(name) || name.includes('_') || name.includes('-'));

/** Edges referencing file → defining file, weighted as aider weighs identifiers. */
function referenceGraph(files: readonly FileSummary[], focusSymbols: Set<string>, focusFiles: Set<string>) {
  const definers = new Map<string, Set<string>>();
  for (const file of files) {
    for (const def of file.definitions) {
      let set = definers.get(def.name);
      if (!set) definers.set(def.name, (set = new Set()));
      set.add(file.path);
    }
  }
  const graph: WeightedGraph = new Map();
  const usedNames = new Map<string, Set<string>>();
  for (const file of files) {
    const counts = new Map<string, number>();
    for (const ref of file.references) {
      if (definers.has(ref.name)) counts.set(ref.name, (counts.get(ref.name) ?? 0) + 1);
    }
    for (const [name, count] of counts) {
      const targets = definers.get(name)!;
      // A name defined in this many files (`constructor`, `create`, `list`) says nothing about which one
      // is meant, and would tie every user to every definer.
      if (targets.size > MAX_DEFINERS) continue;
      let weight = 1;
      if (focusSymbols.has(name)) weight *= 10;
      if (isDescriptive(name)) weight *= 10;
      if (name.startsWith('_')) weight *= 0.1;
      if (targets.size > 5) weight *= 0.1;
      if (focusFiles.has(file.path)) weight *= 50;
      weight *= Math.sqrt(count);
      for (const target of targets) {
        if (target === file.path) continue;
        let edges = graph.get(file.path);
        if (!edges) graph.set(file.path, (edges = new Map()));
        edges.set(target, (edges.get(target) ?? 0) + weight);
        let used = usedNames.get(target);
        if (!used) usedNames.set(target, (used = new Set()));
        used.add(name);
      }
    }
  }
  return { graph, usedNames };
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export function renderMapFile(file: RepoMapFile): string {
  const lines = [`${file.path}:`];
  for (const def of file.definitions) {
    lines.push(
      `${String(def.line).padStart(5)}│ ${def.container ? '  ' : ''}${def.signature || `${def.kind} ${def.name}`}`,
    );
  }
  if (file.omittedDefinitions) lines.push(`     │ … ${file.omittedDefinitions} more`);
  return lines.join('\n');
}

export function buildRepoMap(snapshot: IndexSnapshot, options: RepoMapOptions): RepoMap {
  const focusFiles = new Set(options.focusFiles);
  const focusSymbols = new Set(options.focusSymbols);
  // The ranking depends only on the files, the scope and the focus: the same question on an unchanged
  // workspace is answered from the snapshot's memo.
  const key = `repo-map:${options.scope}:${[...focusFiles].sort().join(',')}:${[...focusSymbols].sort().join(',')}`;
  const { files, ordered, rank, usedNames } = snapshot.memo(key, () => {
    const files = snapshot.files.filter((f) => options.include(f.path));
    const { graph, usedNames } = referenceGraph(files, focusSymbols, focusFiles);
    const personalization = new Map<string, number>();
    for (const path of focusFiles) personalization.set(path, 1);
    for (const symbol of focusSymbols) {
      for (const { file } of snapshot.definitionsOf(symbol)) personalization.set(file.path, 1);
    }
    const rank = pageRank(
      files.map((f) => f.path),
      graph,
      { personalization },
    );
    const ordered = [...files].sort(
      (a, b) => rank.get(b.path)! - rank.get(a.path)! || a.path.localeCompare(b.path),
    );
    return { files, ordered, rank, usedNames };
  });

  const out: RepoMapFile[] = [];
  let tokens = 0;
  let truncated = false;
  for (const file of ordered) {
    const used = usedNames.get(file.path) ?? new Set<string>();
    const outline = file.definitions.filter(
      (d) => isOutlineKind(d.kind) || used.has(d.name) || focusSymbols.has(d.name),
    );
    // Names the rest of the code uses come first when a file has more than fits.
    const chosen = [...outline]
      .sort((a, b) => Number(used.has(b.name)) - Number(used.has(a.name)) || a.line - b.line)
      .slice(0, options.maxDefinitionsPerFile)
      .sort((a, b) => a.line - b.line);
    // A file with nothing to outline (a bare re-export, a script) costs tokens and says nothing.
    if (!outline.length && !focusFiles.has(file.path)) continue;
    const entry: RepoMapFile = {
      path: file.path,
      rank: Number((rank.get(file.path) ?? 0).toFixed(6)),
      definitions: chosen.map(({ name, kind, line, signature, container }) => ({
        name,
        kind,
        line,
        signature,
        ...(container ? { container } : {}),
      })),
      omittedDefinitions: outline.length - chosen.length,
    };
    const cost = estimateTokens(renderMapFile(entry)) + 1;
    if (tokens + cost > options.maxTokens) {
      truncated = true;
      // A file whose outline alone is too big still gets its name in, when that fits.
      const nameOnly = { ...entry, definitions: [], omittedDefinitions: outline.length };
      const nameCost = estimateTokens(renderMapFile(nameOnly)) + 1;
      if (out.length === 0 && nameCost <= options.maxTokens) {
        out.push(nameOnly);
        tokens += nameCost;
      }
      break;
    }
    out.push(entry);
    tokens += cost;
  }
  return { files: out, totalFiles: files.length, tokens, truncated };
}
