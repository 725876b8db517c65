// File-level import graph: which workspace files each file loads, and the import cycles among them
// (strongly connected components, each reported with one concrete cycle path through it).
import { ModuleResolver } from './module-resolver.js';
import type { IndexSnapshot } from './snapshot.js';

export interface DependencyEdge {
  from: string;
  to: string;
  line: number;
}

export interface DependencyGraph {
  files: string[];
  edges: DependencyEdge[];
  /** Imports that resolve to nothing in the workspace (packages, standard library), by specifier. */
  external: Map<string, number>;
  /** Each cycle as a path a → b → … → a (first file repeated at the end), smallest component first. */
  cycles: string[][];
}

export function buildDependencyGraph(
  snapshot: IndexSnapshot,
  resolver: ModuleResolver,
  include: (path: string) => boolean,
): DependencyGraph {
  const files = snapshot.files.filter((f) => include(f.path));
  const edges: DependencyEdge[] = [];
  const external = new Map<string, number>();
  const seen = new Set<string>();
  for (const file of files) {
    for (const record of file.imports) {
      const targets = resolver.resolve(file, record.source);
      if (!targets.length) external.set(record.source, (external.get(record.source) ?? 0) + 1);
      for (const to of targets) {
        const key = `${file.path}\0${to}`;
        if (to === file.path || seen.has(key) || !include(to)) continue;
        seen.add(key);
        edges.push({ from: file.path, to, line: record.line });
      }
    }
  }
  const names = files.map((f) => f.path);
  return { files: names, edges, external, cycles: findCycles(names, edges) };
}

/** Tarjan's strongly connected components (iterative, so deep graphs cannot overflow the stack). */
export function stronglyConnected(nodes: string[], adjacency: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const out = adjacency.get(frame.node) ?? [];
      if (frame.next < out.length) {
        const to = out[frame.next++];
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** A shortest cycle through `start` inside its component (breadth-first back to start). */
function cycleThrough(start: string, members: Set<string>, adjacency: Map<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    for (const to of adjacency.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

export function findCycles(nodes: string[], edges: { from: string; to: string }[]): string[][] {
  const adjacency = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const list = adjacency.get(from);
    if (list) list.push(to);
    else adjacency.set(from, [to]);
  }
  for (const list of adjacency.values()) list.sort();
  const cycles = stronglyConnected([...nodes].sort(), adjacency)
    .filter((c) => c.length > 1)
    .map((component) => {
      const members = new Set(component);
      const start = [...component].sort()[0];
      return cycleThrough(start, members, adjacency);
    });
  return cycles.sort((a, b) => a.length - b.length || a[0].localeCompare(b[0]));
}
