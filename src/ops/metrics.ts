// The Prometheus metrics of one app: its own prom-client Registry (no global default registry, so tests
// can build many apps), counters and histograms fed by the pipeline's onCallEnd hook, and gauges read
// from callbacks other services register (active sessions, running jobs).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ERROR_CODES, type ErrorCode } from '../lib/errors.js';

/** What the pipeline reports when a call ends. */
export interface CallEndMetric {
  /** A registered tool's name; undefined when the name was unknown (keeps label cardinality bounded). */
  tool: string | undefined;
  category: string | undefined;
  /** The error code, or undefined on success. */
  errorCode: string | undefined;
  durationMs: number;
}

type GaugeSource = () => number | Promise<number>;

/** What the runtime manager reports at scrape time. */
export interface RuntimeMetricsSource {
  live: number;
  starts: number;
  restarts: number;
  crashes: number;
}

/** One session's disk use, for the per-session gauges. */
export interface SessionUsageMetric {
  sessionId: string;
  workspaceBytes?: number;
  workspaceFiles?: number;
  logBytes: number;
}

// Tool calls are mostly milliseconds; commands can run for minutes.
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'category' | 'status' | 'code'>;
  private readonly durations: Histogram<'tool' | 'category'>;
  private readonly rateLimited: Counter<'tool' | 'category'>;
  private readonly sources = new Map<string, GaugeSource>();
  private readonly egressConnections: Counter<'decision' | 'via'>;
  private readonly egressBytes: Counter<'direction'>;
  private readonly previewRequests: Counter<'kind' | 'status'>;
  private readonly previewBytes: Counter<'direction'>;
  /** Label-bound children, so a call costs no label hashing: a handful of tools × outcomes. */
  private readonly children = new Map<
    string,
    {
      calls: Counter.Internal;
      durations: Histogram.Internal<'tool' | 'category'>;
    }
  >();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'toolgate_' });
    this.calls = new Counter({
      name: 'toolgate_tool_calls_total',
      help: 'Tool calls by tool, category, outcome (success, error, refused) and error code',
      labelNames: ['tool', 'category', 'status', 'code'],
      registers: [this.registry],
    });
    this.durations = new Histogram({
      name: 'toolgate_tool_call_duration_seconds',
      help: 'Tool call duration through the whole pipeline',
      labelNames: ['tool', 'category'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    this.rateLimited = new Counter({
      name: 'toolgate_rate_limit_rejections_total',
      help: 'Calls refused with 429 by a rate limit',
      labelNames: ['tool', 'category'],
      registers: [this.registry],
    });
    this.egressConnections = new Counter({
      name: 'toolgate_egress_connections_total',
      help: 'Egress connections of sessions by decision (allowed, denied) and way (connect, http, web_fetch)',
      labelNames: ['decision', 'via'],
      registers: [this.registry],
    });
    this.previewRequests = new Counter({
      name: 'toolgate_preview_requests_total',
      help: "Requests and WebSocket connections to sessions' exposed ports, by kind (http, websocket) and status class (2xx…, refused)",
      labelNames: ['kind', 'status'],
      registers: [this.registry],
    });
    this.previewBytes = new Counter({
      name: 'toolgate_preview_bytes_total',
      help: "Bytes carried to (in) and from (out) sessions' servers through previews",
      labelNames: ['direction'],
      registers: [this.registry],
    });
    this.egressBytes = new Counter({
      name: 'toolgate_egress_bytes_total',
      help: 'Bytes moved by sessions through the egress proxy, by direction (up: sent, down: received)',
      labelNames: ['direction'],
      registers: [this.registry],
    });
    this.gaugeFromSource('toolgate_active_sessions', 'Sessions that have not expired');
    this.gaugeFromSource('toolgate_running_jobs', 'Running commands and background jobs');
    const runtimes = () => this.runtimeSource?.();
    new Gauge({
      name: 'toolgate_runtimes',
      help: 'Session runtimes currently running',
      registers: [this.registry],
      collect() {
        this.set(runtimes()?.live ?? 0);
      },
    });
    // Monotonic counts kept by the runtime manager; exposed as gauges read at scrape time.
    for (const [key, help] of [
      ['starts', 'Session runtime starts (first starts and restarts)'],
      ['restarts', 'Session runtime starts after the first for the same session (idle stop or crash)'],
      ['crashes', 'Session runtimes that exited without being stopped'],
    ] as const) {
      new Gauge({
        name: `toolgate_runtime_${key}_total`,
        help,
        registers: [this.registry],
        collect() {
          this.set(runtimes()?.[key] ?? 0);
        },
      });
    }
  }

  private cpuJobs?: Counter<'job' | 'outcome'>;

  /** The event loop's utilisation and stalls (event-loop.ts), read at scrape time. */
  setEventLoopSource(source: () => { utilization: number; maxStallMs: number; stalls: number }): void {
    new Gauge({
      name: 'toolgate_event_loop_utilization',
      help: 'Share of the last 10 s the event loop was busy (0..1; perf_hooks eventLoopUtilization)',
      registers: [this.registry],
      collect() {
        this.set(source().utilization);
      },
    });
    new Gauge({
      name: 'toolgate_event_loop_max_stall_seconds',
      help: 'Longest time in the last 10 s the event loop could not run a timer',
      registers: [this.registry],
      collect() {
        this.set(source().maxStallMs / 1000);
      },
    });
    new Gauge({
      name: 'toolgate_event_loop_stalls_total',
      help: 'Times the event loop was blocked longer than a second',
      registers: [this.registry],
      collect() {
        this.set(source().stalls);
      },
    });
  }

  /** The CPU worker pool's load (src/cpu/), read at scrape time, and its jobs as they end. */
  setCpuSource(source: () => { running: number; queued: number }): void {
    new Gauge({
      name: 'toolgate_cpu_jobs_running',
      help: "Calls' CPU-heavy jobs running in worker threads",
      registers: [this.registry],
      collect() {
        this.set(source().running);
      },
    });
    new Gauge({
      name: 'toolgate_cpu_jobs_queued',
      help: "Calls' CPU-heavy jobs waiting for a worker",
      registers: [this.registry],
      collect() {
        this.set(source().queued);
      },
    });
    this.cpuJobs = new Counter({
      name: 'toolgate_cpu_jobs_total',
      help: 'CPU-heavy jobs by job and outcome (ok, error, timeout, cancelled, too_large)',
      labelNames: ['job', 'outcome'],
      registers: [this.registry],
    });
  }

  cpuJobEnded(job: string, outcome: string): void {
    this.cpuJobs?.inc({ job, outcome });
  }

  private runtimeSource?: () => RuntimeMetricsSource;
  private diskSource?: () => Promise<{ freeBytes: number; freeInodes: number }>;

  /** Free bytes and inodes of the data filesystem, read at scrape time. */
  setDiskSource(source: () => Promise<{ freeBytes: number; freeInodes: number }>): void {
    this.diskSource = source;
    const read = () => this.diskSource?.().catch(() => undefined);
    new Gauge({
      name: 'toolgate_data_free_bytes',
      help: 'Free bytes on the filesystem of the data dir (workspaces, SQLite, logs)',
      registers: [this.registry],
      async collect() {
        const disk = await read();
        if (disk) this.set(disk.freeBytes);
      },
    });
    new Gauge({
      name: 'toolgate_data_free_inodes',
      help: 'Free inodes on the filesystem of the data dir',
      registers: [this.registry],
      async collect() {
        const disk = await read();
        if (disk) this.set(disk.freeInodes);
      },
    });
  }

  /**
   * Disk used by each session, read at scrape time: its workspace (from sessions whose runtime is
   * running: a stopped one is not started for a scrape) and its kept command logs. One series per live
   * session, so the cardinality is bounded by the sessions the service holds.
   */
  setSessionUsageSource(source: () => Promise<SessionUsageMetric[]>): void {
    let latest: Promise<SessionUsageMetric[]> | null = null;
    // The three gauges share one reading per scrape.
    const read = () => (latest ??= source().finally(() => setImmediate(() => (latest = null))));
    const gauge = (name: string, help: string, value: (usage: SessionUsageMetric) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['session'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const usage of await read().catch(() => [])) {
            const v = value(usage);
            if (v !== undefined) this.set({ session: usage.sessionId }, v);
          }
        },
      });
    gauge(
      'toolgate_session_workspace_bytes',
      "Bytes in regular files of a session's workspace (sessions with a running runtime)",
      (usage) => usage.workspaceBytes,
    );
    gauge(
      'toolgate_session_workspace_files',
      "Regular files in a session's workspace (sessions with a running runtime)",
      (usage) => usage.workspaceFiles,
    );
    gauge('toolgate_session_log_bytes', "Bytes in a session's kept command logs", (usage) => usage.logBytes);
  }

  setRuntimeSource(source: () => RuntimeMetricsSource): void {
    this.runtimeSource = source;
  }

  /**
   * Sets the callback a gauge reads at scrape time, e.g. `setSource('toolgate_running_jobs', () => n)`.
   * Gauges without a source report 0.
   */
  setSource(name: 'toolgate_active_sessions' | 'toolgate_running_jobs', source: GaugeSource): void {
    this.sources.set(name, source);
  }

  /** One egress connection ended (or was refused). */
  egressConnection(info: {
    decision: 'allowed' | 'denied';
    via: string;
    bytesUp: number;
    bytesDown: number;
  }): void {
    this.egressConnections.inc({ decision: info.decision, via: info.via });
    if (info.bytesUp > 0) this.egressBytes.inc({ direction: 'up' }, info.bytesUp);
    if (info.bytesDown > 0) this.egressBytes.inc({ direction: 'down' }, info.bytesDown);
  }

  /** One preview request or WebSocket connection ended (or was refused). */
  previewRequest(info: { websocket: boolean; status: number; bytesIn: number; bytesOut: number }): void {
    const status = info.status === 0 ? 'failed' : `${Math.floor(info.status / 100)}xx`;
    this.previewRequests.inc({ kind: info.websocket ? 'websocket' : 'http', status });
    if (info.bytesIn > 0) this.previewBytes.inc({ direction: 'in' }, info.bytesIn);
    if (info.bytesOut > 0) this.previewBytes.inc({ direction: 'out' }, info.bytesOut);
  }

  callEnded(info: CallEndMetric): void {
    const tool = info.tool ?? 'unknown';
    const category = info.category ?? 'unknown';
    const code = info.errorCode ?? '';
    // The same split as the audit log: permission and rate-limit refusals are not failures.
    const type = code ? ERROR_CODES[code as ErrorCode]?.type : undefined;
    const status = !code
      ? 'success'
      : type === 'permission_error' || type === 'rate_limited'
        ? 'refused'
        : 'error';
    const key = `${tool}\0${category}\0${status}\0${code}`;
    let child = this.children.get(key);
    if (!child) {
      child = {
        calls: this.calls.labels({ tool, category, status, code }),
        durations: this.durations.labels({ tool, category }),
      };
      this.children.set(key, child);
    }
    child.calls.inc();
    child.durations.observe(info.durationMs / 1000);
    if (code === 'RATE_LIMITED') this.rateLimited.inc({ tool, category });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private gaugeFromSource(name: 'toolgate_active_sessions' | 'toolgate_running_jobs', help: string): void {
    const sources = this.sources;
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set((await sources.get(name)?.()) ?? 0);
      },
    });
  }
}
