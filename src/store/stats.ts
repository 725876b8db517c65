// Execution statistics, computed from the audit log: totals, success/error counts and mean/p50/p95
// duration, overall, by tool, by category and by session; error counts by code; and calls over time in
// fixed buckets (the console's charts).
import { auditFilter, type AuditStore } from './audit.js';
import type { SqlDatabase } from './sql.js';

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
  /** Parked for approval and waiting now; a decided call counts by its final row (run, denied, expired). */
  pending: number;
  /** Answered from an identical earlier call of the same batch or turn (also counted as success). */
  duplicates: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  /** Epoch ms of the newest call in the bucket (null when empty). */
  lastCallAt: number | null;
}

export interface StatsReport {
  totals: StatsBucket;
  byTool: Record<string, StatsBucket>;
  byCategory: Record<string, StatsBucket>;
  bySession: Record<string, StatsBucket>;
  /** Failed and refused calls by error code. */
  byErrorCode: Record<string, number>;
}

export interface TimelineQuery extends StatsQuery {
  since: number;
  until: number;
  bucketMs: number;
}

/** Calls that started in [start, start + bucketMs), by outcome. */
export interface TimelineBucket {
  start: number;
  success: number;
  error: number;
  refused: number;
  pending: number;
  /** Refused with RATE_LIMITED (also counted in refused). */
  rateLimited: number;
}

/** Entry points of rows that are audited but are no session's calls: operator switches and reads. */
const NOT_CALLS = new Set(['admin', 'operator', 'network', 'preview']);

/**
 * 1 when an audit row's call is parked and waits now: its approval is still pending and not past its
 * deadline (the approvals table's key is the call id). A call decided since has a final row of its own.
 */
const WAITING = `(SELECT 1 FROM approvals AS parked WHERE parked.call_id = audit.call_id
  AND parked.status = 'pending' AND parked.expires_at > @now)`;

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
  private lastCallAt: number | null = null;
  private duplicates = 0;

  add(status: string, durationMs: number, ts: number, duplicate: boolean): void {
    this.durations.push(durationMs);
    if (this.lastCallAt === null || ts > this.lastCallAt) this.lastCallAt = ts;
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
      lastCallAt: this.lastCallAt,
    };
  }
}

export class StatsStore {
  constructor(
    private readonly db: SqlDatabase,
    private readonly audit: AuditStore,
  ) {}

  async report(query: StatsQuery): Promise<StatsReport> {
    await this.audit.flush();
    const { where, params } = auditFilter(query);
    const totals = new BucketBuilder();
    const byTool = new Map<string, BucketBuilder>();
    const byCategory = new Map<string, BucketBuilder>();
    const bySession = new Map<string, BucketBuilder>();
    const byErrorCode = new Map<string, number>();
    const bucket = (map: Map<string, BucketBuilder>, key: string) => {
      let found = map.get(key);
      if (!found) map.set(key, (found = new BucketBuilder()));
      return found;
    };
    const rows = await this.db.all<{
      ts: number;
      session_id: string | null;
      tool: string;
      category: string | null;
      status: string;
      error_code: string | null;
      duration_ms: number;
      entry_point: string;
      duplicate: number;
      waiting: number | null;
    }>(
      `SELECT ts, session_id, tool, category, status, error_code, duration_ms, entry_point, duplicate,
         CASE WHEN status = 'pending' THEN ${WAITING} END AS waiting
       FROM audit ${where}`,
      { ...params, now: Date.now() },
    );
    for (const row of rows) {
      // Operator actions (enable/disable), operator reads and egress connections are audited but are not calls.
      if (NOT_CALLS.has(row.entry_point)) continue;
      // A parked call that was decided counts by its final row, not as parked.
      if (row.status === 'pending' && row.waiting !== 1) continue;
      const duplicate = row.duplicate === 1;
      totals.add(row.status, row.duration_ms, row.ts, duplicate);
      bucket(byTool, row.tool).add(row.status, row.duration_ms, row.ts, duplicate);
      bucket(byCategory, row.category ?? 'unknown').add(row.status, row.duration_ms, row.ts, duplicate);
      if (row.session_id !== null) {
        bucket(bySession, row.session_id).add(row.status, row.duration_ms, row.ts, duplicate);
      }
      // Parked calls carry APPROVAL_PENDING: they wait, they did not fail.
      if (row.error_code !== null && row.status !== 'pending') {
        byErrorCode.set(row.error_code, (byErrorCode.get(row.error_code) ?? 0) + 1);
      }
    }
    const built = (map: Map<string, BucketBuilder>) =>
      Object.fromEntries(
        [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, b]) => [k, b.build()]),
      );
    return {
      totals: totals.build(),
      byTool: built(byTool),
      byCategory: built(byCategory),
      bySession: built(bySession),
      byErrorCode: Object.fromEntries([...byErrorCode.entries()].sort(([a], [b]) => a.localeCompare(b))),
    };
  }

  /** Every bucket of [since, until), empty ones included, so a chart's x axis has no gaps. */
  async timeline(query: TimelineQuery): Promise<TimelineBucket[]> {
    await this.audit.flush();
    const { since, until, bucketMs, ...filter } = query;
    const { where, params } = auditFilter({ ...filter, since, until });
    const buckets: TimelineBucket[] = [];
    for (let start = since; start < until; start += bucketMs) {
      buckets.push({ start, success: 0, error: 0, refused: 0, pending: 0, rateLimited: 0 });
    }
    // Operator actions (enable/disable) and reads are audited but are not calls, as in report().
    // The slot is floored explicitly (SQLite binds numbers as REAL); the rate-limited flag is 0/1, not a
    // boolean (PostgreSQL's comparison would be one). GROUP BY names the output columns: both engines take
    // that, and repeating the expressions would repeat their parameters.
    const slot = 'CAST((ts - @since) / @bucketMs AS INTEGER)';
    const rateLimited = "CASE WHEN error_code = 'RATE_LIMITED' THEN 1 ELSE 0 END";
    const rows = await this.db.all<{ slot: number; status: string; rate_limited: number; count: number }>(
      `SELECT ${slot} AS slot, status, ${rateLimited} AS rate_limited, COUNT(*) AS count
       FROM audit ${where ? `${where} AND` : 'WHERE'} entry_point NOT IN ('admin', 'operator', 'network', 'preview')
         AND (status != 'pending' OR ${WAITING} = 1)
       GROUP BY slot, status, rate_limited`,
      { ...params, bucketMs, now: Date.now() },
    );
    for (const row of rows) {
      const target = buckets[Number(row.slot)];
      if (!target) continue;
      const count = Number(row.count);
      if (row.status === 'success') target.success += count;
      else if (row.status === 'refused') target.refused += count;
      else if (row.status === 'pending') target.pending += count;
      else target.error += count;
      if (Number(row.rate_limited) === 1) target.rateLimited += count;
    }
    return buckets;
  }
}
