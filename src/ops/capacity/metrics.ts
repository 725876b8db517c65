// The capacity gauges of /metrics: each limit's use and its limit (same unit, full when used >= limit), a
// 0/1 full flag, and the refusals so far, all read from one report per scrape.
import { Gauge, type Registry } from 'prom-client';
import type { Capacity, CapacityLimitName, CapacityReport } from './capacity.js';

export function registerCapacityMetrics(registry: Registry, capacity: Capacity): void {
  let latest: Promise<CapacityReport> | null = null;
  // The gauges share one reading per scrape.
  const read = () => (latest ??= capacity.report().finally(() => setImmediate(() => (latest = null))));
  const gauge = (
    name: string,
    help: string,
    value: (report: CapacityReport, limit: CapacityLimitName) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['limit'],
      registers: [registry],
      async collect() {
        const report = await read().catch(() => undefined);
        if (!report) return;
        for (const limit of Object.keys(report) as CapacityLimitName[])
          this.set({ limit }, value(report, limit));
      },
    });
  gauge(
    'toolgate_capacity_used',
    'Use of each capacity limit (sessions, runtimes, host memory bytes, host tasks, data disk bytes)',
    (report, limit) => report[limit].used,
  );
  gauge(
    'toolgate_capacity_limit',
    'Each capacity limit in the unit of toolgate_capacity_used: new sessions are refused at it',
    (report, limit) => report[limit].limit,
  );
  gauge('toolgate_capacity_full', '1 while the limit refuses new sessions (see /readyz)', (report, limit) =>
    report[limit].full ? 1 : 0,
  );
  new Gauge({
    name: 'toolgate_capacity_refusals_total',
    help: 'Session creates and runtime starts refused with CAPACITY_EXHAUSTED, by limit',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      for (const [limit, count] of Object.entries(capacity.refusals)) this.set({ limit }, count);
    },
  });
}
