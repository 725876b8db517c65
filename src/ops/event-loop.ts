// How the service's one event loop is doing: its utilisation (perf_hooks eventLoopUtilization) and its
// stalls, sampled once a second. A sample that arrives late by more than stallMs means the loop was
// blocked that long; /readyz reports a loop that stays blocked (stalls add up to over half the last
// window: a busy loop that still takes its timers is not blocked, nor is one long garbage collection),
// and /metrics shows utilisation and stalls beside prom-client's lag percentiles.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

const SAMPLE_MS = 1000;

interface Sample {
  at: number;
  /** Share of the sample's wall time the loop was busy (0..1). */
  utilization: number;
  /** How much later than due the sample ran: time the loop could not take a timer. */
  lateMs: number;
}

export interface EventLoopState {
  /** Utilisation over the window (0..1). */
  utilization: number;
  /** The longest stall seen in the window, the one under way included. */
  maxStallMs: number;
  /** Stalls longer than stallMs since the start. */
  stalls: number;
  /** Stalls within the window, the one under way included, add up to more than blockedShare of it. */
  blocked: boolean;
}

export interface EventLoopOptions {
  /** A sample late by more than this is a stall. */
  stallMs: number;
  /** How far back /readyz looks. */
  windowMs: number;
  /** The share of the window the loop must have spent stalled to count as blocked (0..1). */
  blockedShare: number;
}

export class EventLoopMonitor {
  private readonly samples: Sample[] = [];
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private lastAt = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private stallCount = 0;

  constructor(
    private readonly options: EventLoopOptions = { stallMs: 1000, windowMs: 10_000, blockedShare: 0.5 },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  private sample(): void {
    const now = performance.now();
    const current = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(current, this.last);
    const lateMs = Math.max(0, now - this.lastAt - SAMPLE_MS);
    if (lateMs > this.options.stallMs) this.stallCount++;
    this.samples.push({ at: now, utilization: delta.utilization, lateMs });
    this.last = current;
    this.lastAt = now;
    while (this.samples.length && this.samples[0].at < now - this.options.windowMs) this.samples.shift();
  }

  state(): EventLoopState {
    const now = performance.now();
    const ongoing = Math.max(0, now - this.lastAt - SAMPLE_MS);
    const window = this.samples.filter((s) => s.at >= now - this.options.windowMs);
    // Weighted by each sample's length (a stalled sample covers more wall time than a punctual one).
    let busy = 0;
    let total = 0;
    for (const s of window) {
      busy += s.utilization * (SAMPLE_MS + s.lateMs);
      total += SAMPLE_MS + s.lateMs;
    }
    const utilization = total ? busy / total : 0;
    const maxStallMs = Math.max(ongoing, ...window.map((s) => s.lateMs));
    const stalledMs = ongoing + window.reduce((sum, s) => sum + s.lateMs, 0);
    return {
      utilization,
      maxStallMs,
      stalls: this.stallCount,
      blocked: stalledMs > this.options.windowMs * this.options.blockedShare,
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
