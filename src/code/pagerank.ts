// Weighted PageRank with an optional personalization vector (power iteration), as aider ranks its repo map.
// The graph is flattened into typed arrays first: thousands of files and tens of thousands of edges take
// milliseconds per ranking instead of the hundreds that Map lookups in the inner loop cost.

export type WeightedGraph = Map<string, Map<string, number>>;

export interface PageRankOptions {
  damping?: number;
  maxIterations?: number;
  tolerance?: number;
  /** Teleport weights (need not sum to 1); uniform over all nodes when absent or all zero. */
  personalization?: Map<string, number>;
}

export function pageRank(
  nodes: readonly string[],
  graph: WeightedGraph,
  options: PageRankOptions = {},
): Map<string, number> {
  const n = nodes.length;
  const result = new Map<string, number>();
  if (n === 0) return result;
  const damping = options.damping ?? 0.85;
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-10;
  const index = new Map(nodes.map((node, i) => [node, i]));

  const teleport = new Float64Array(n);
  let teleportTotal = 0;
  nodes.forEach((node, i) => {
    teleport[i] = Math.max(0, options.personalization?.get(node) ?? 0);
    teleportTotal += teleport[i];
  });
  for (let i = 0; i < n; i++) teleport[i] = teleportTotal > 0 ? teleport[i] / teleportTotal : 1 / n;

  // Edges as parallel arrays, each weight already divided by its source's total out-weight.
  const from: number[] = [];
  const to: number[] = [];
  const share: number[] = [];
  const hasOut = new Uint8Array(n);
  for (const [source, edges] of graph) {
    const s = index.get(source);
    if (s === undefined) continue;
    let total = 0;
    for (const [target, w] of edges) if (index.has(target)) total += w;
    if (total <= 0) continue;
    hasOut[s] = 1;
    for (const [target, w] of edges) {
      const t = index.get(target);
      if (t === undefined) continue;
      from.push(s);
      to.push(t);
      share.push(w / total);
    }
  }
  const edgeFrom = Int32Array.from(from);
  const edgeTo = Int32Array.from(to);
  const edgeShare = Float64Array.from(share);

  let rank = Float64Array.from(teleport);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    // Rank held by nodes without out-edges is handed back through the teleport vector.
    let dangling = 0;
    for (let i = 0; i < n; i++) if (!hasOut[i]) dangling += rank[i];
    next.fill(0);
    for (let e = 0; e < edgeFrom.length; e++) next[edgeTo[e]] += damping * rank[edgeFrom[e]] * edgeShare[e];
    let delta = 0;
    const base = damping * dangling + (1 - damping);
    for (let i = 0; i < n; i++) {
      next[i] += base * teleport[i];
      delta += Math.abs(next[i] - rank[i]);
    }
    [rank, next] = [next, rank];
    if (delta < tolerance) break;
  }
  nodes.forEach((node, i) => result.set(node, rank[i]));
  return result;
}
