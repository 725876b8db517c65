// Weighted PageRank with an optional personalization vector (power iteration), as aider ranks its repo map.

export type WeightedGraph = Map<string, Map<string, number>>;

export interface PageRankOptions {
  damping?: number;
  maxIterations?: number;
  tolerance?: number;
  /** Teleport weights (need not sum to 1); uniform over all nodes when absent or empty. */
  personalization?: Map<string, number>;
}

export function pageRank(
  nodes: readonly string[],
  graph: WeightedGraph,
  options: PageRankOptions = {},
): Map<string, number> {
  const n = nodes.length;
  const rank = new Map<string, number>();
  if (n === 0) return rank;
  const damping = options.damping ?? 0.85;
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-9;

  const teleport = new Map<string, number>();
  let teleportTotal = 0;
  for (const node of nodes) teleportTotal += Math.max(0, options.personalization?.get(node) ?? 0);
  for (const node of nodes) {
    const weight = Math.max(0, options.personalization?.get(node) ?? 0);
    teleport.set(node, teleportTotal > 0 ? weight / teleportTotal : 1 / n);
  }

  const outWeight = new Map<string, number>();
  for (const [from, edges] of graph) {
    let total = 0;
    for (const w of edges.values()) total += w;
    outWeight.set(from, total);
  }
  for (const node of nodes) rank.set(node, teleport.get(node)!);

  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const next = new Map<string, number>();
    // Rank held by nodes without out-edges is handed back through the teleport vector.
    let dangling = 0;
    for (const node of nodes) {
      if (!outWeight.get(node)) dangling += rank.get(node)!;
      next.set(node, 0);
    }
    for (const [from, edges] of graph) {
      const total = outWeight.get(from)!;
      const share = rank.get(from);
      if (!total || share === undefined) continue;
      for (const [to, w] of edges)
        if (next.has(to)) next.set(to, next.get(to)! + (damping * share * w) / total);
    }
    let delta = 0;
    for (const node of nodes) {
      const value = next.get(node)! + (damping * dangling + (1 - damping)) * teleport.get(node)!;
      delta += Math.abs(value - rank.get(node)!);
      next.set(node, value);
    }
    for (const [node, value] of next) rank.set(node, value);
    if (delta < tolerance * n) break;
  }
  return rank;
}
