// Execution statistics, computed from the audit log: totals, success/error counts and mean/p50/p95
// duration, overall, by tool and by category.
import { auditFilter, type AuditStore } from './audit.js';
import type { Db } from './db.js';

export interface StatsQuery {
  sessionId?: string;
  tool?: string;
  since?: number;
}

export interface StatsBucket {
  total: number;
  success: number;
  error: number;
  refused: number;
  /** Parked for approval (each approved call is counted again when it runs). */
  pending: number;
  /** Answered from an identical earlier call of the same batch or turn (also counted as success). */
  duplicates: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

export interface StatsReport {
  totals: StatsBucket;
  byTool: Record<string, StatsBucket>;
  byCategory: Record<string, StatsBucket>;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

class BucketBuilder {
  private readonly durations: number[] = [];
  private success = 0;
  private error = 0;
  private refused = 0;
  private pending = 0;
  private duplicates = 0;

  add(status: string, durationMs: number, duplicate: boolean): void {
    this.durations.push(durationMs);
    if (duplicate) this.duplicates++;
    if (status === 'success') this.success++;
    else if (status === 'refused') this.refused++;
    else if (status === 'pending') this.pending++;
    else this.error++;
  }

  build(): StatsBucket {
    const sorted = this.durations.sort((a, b) => a - b);
    const sum = sorted.reduce((acc, d) => acc + d, 0);
    const round = (n: number) => Math.round(n * 1000) / 1000;
    return {
      total: sorted.length,
      success: this.success,
      error: this.error,
      refused: this.refused,
      pending: this.pending,
      duplicates: this.duplicates,
      meanMs: round(sorted.length ? sum / sorted.length : 0),
      p50Ms: round(percentile(sorted, 50)),
      p95Ms: round(percentile(sorted, 95)),
    };
  }
}

export class StatsStore {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditStore,
  ) {}

  report(query: StatsQuery): StatsReport {
    this.audit.flush();
    const { where, params } = auditFilter(query);
    const totals = new BucketBuilder();
    const byTool = new Map<string, BucketBuilder>();
    const byCategory = new Map<string, BucketBuilder>();
    const bucket = (map: Map<string, BucketBuilder>, key: string) => {
      let found = map.get(key);
      if (!found) map.set(key, (found = new BucketBuilder()));
      return found;
    };
    // iterate() streams rows so a large log is not materialised as objects all at once.
    const rows = this.db
      .prepare(`SELECT tool, category, status, duration_ms, entry_point, duplicate FROM audit ${where}`)
      .iterate(params) as IterableIterator<{
      tool: string;
      category: string | null;
      status: string;
      duration_ms: number;
      entry_point: string;
      duplicate: number;
    }>;
    for (const row of rows) {
      // Operator actions (enable/disable) are audited but are not calls.
      if (row.entry_point === 'admin') continue;
      const duplicate = row.duplicate === 1;
      totals.add(row.status, row.duration_ms, duplicate);
      bucket(byTool, row.tool).add(row.status, row.duration_ms, duplicate);
      bucket(byCategory, row.category ?? 'unknown').add(row.status, row.duration_ms, duplicate);
    }
    const built = (map: Map<string, BucketBuilder>) =>
      Object.fromEntries(
        [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, b]) => [k, b.build()]),
      );
    return { totals: totals.build(), byTool: built(byTool), byCategory: built(byCategory) };
  }
}
