// One consistent view of a workspace's index: every file's summary plus lookups built on first use.
import type { Definition, FileSummary } from './schema.js';

export interface LocatedDefinition {
  readonly file: FileSummary;
  readonly definition: Definition;
}

export interface IndexStats {
  files: number;
  parsed: number;
  reused: number;
  /** Files left out: too large, binary, or unreadable. */
  skipped: number;
  /** The walk stopped at the file cap. */
  truncated: boolean;
  durationMs: number;
}

const MAX_MEMOS = 32;

export class IndexSnapshot {
  readonly byPath: ReadonlyMap<string, FileSummary>;
  private definitionsByName?: Map<string, LocatedDefinition[]>;
  private lowerNames?: string[];

  constructor(
    readonly files: readonly FileSummary[],
    /** The refresh that produced (or last confirmed) this snapshot. */
    public stats: IndexStats,
  ) {
    this.byPath = new Map(files.map((f) => [f.path, f]));
  }

  private readonly memos = new Map<string, unknown>();

  /**
   * A value derived from this snapshot, computed once: a snapshot never changes (a refresh that finds
   * changes makes a new one), so whatever is built from it stays valid as long as it is in use.
   */
  memo<T>(key: string, compute: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = compute();
    // Callers vary keys (e.g. focus sets); a small cap keeps one busy snapshot from growing without bound.
    if (this.memos.size >= MAX_MEMOS) this.memos.clear();
    this.memos.set(key, value);
    return value;
  }

  /** Every definition of a name, across the workspace, in path order. */
  definitionsOf(name: string): LocatedDefinition[] {
    return this.nameIndex().get(name) ?? [];
  }

  /** Distinct definition names (for fuzzy search). */
  names(): string[] {
    this.lowerNames ??= [...this.nameIndex().keys()];
    return this.lowerNames;
  }

  private nameIndex(): Map<string, LocatedDefinition[]> {
    if (!this.definitionsByName) {
      const index = new Map<string, LocatedDefinition[]>();
      for (const file of this.files) {
        for (const definition of file.definitions) {
          const list = index.get(definition.name);
          if (list) list.push({ file, definition });
          else index.set(definition.name, [{ file, definition }]);
        }
      }
      this.definitionsByName = index;
    }
    return this.definitionsByName;
  }
}
