import { describe, expect, it } from 'vitest';
import { runMixedLoad } from './load-driver.js';

// The short form of bench/load.bench.ts (60 s, 100 sessions): same mix, same checks.
describe('load: mixed tool calls across many sessions', () => {
  it('answers every call with 200 or an intended 429, and memory stays bounded', async () => {
    const report = await runMixedLoad({ durationSeconds: 5, sessions: 20, connections: 20 });
    console.info(
      `load (5 s, 20 sessions): ${report.requests} calls, ${report.requestsPerSec.toFixed(0)} calls/s ` +
        `(healthz baseline ${report.baselineRequestsPerSec.toFixed(0)}/s), errors ${report.errors}, ` +
        `intended 429 ${report.intended429}, RSS ${report.rssBeforeMb.toFixed(0)} → ${report.rssAfterMb.toFixed(0)} MB`,
    );
    expect(report.samples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.requests).toBeGreaterThan(100);
    // Two of the twenty sessions have a 5-calls-per-minute limit: they must have been refused.
    expect(report.intended429).toBeGreaterThan(0);
    expect(report.rssAfterMb - report.rssBeforeMb).toBeLessThan(150);
  }, 90_000);
});
