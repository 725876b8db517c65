// The event-loop monitor behind /readyz's eventLoop check: a loop that stays blocked (stalls adding up to
// over half the window) counts as blocked; a busy loop that still takes its timers, and a blocked one
// once the window has passed, do not.
import { describe, expect, it } from 'vitest';
import { EventLoopMonitor } from '../../src/ops/event-loop.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the loop is held: no timer runs
  }
};

describe('EventLoopMonitor', () => {
  it('says blocked after the loop stayed blocked, and not once the window has passed', async () => {
    const monitor = new EventLoopMonitor({ stallMs: 100, windowMs: 3000, blockedShare: 0.5 });
    monitor.start();
    try {
      await sleep(1100);
      expect(monitor.state().blocked).toBe(false);
      spin(2500);
      await sleep(50);
      expect(monitor.state().blocked).toBe(true);
      expect(monitor.state().maxStallMs).toBeGreaterThan(1000);
      await sleep(4000);
      expect(monitor.state().blocked).toBe(false);
    } finally {
      monitor.stop();
    }
  }, 15_000);

  it('does not call a busy loop that still takes its timers blocked', async () => {
    const monitor = new EventLoopMonitor({ stallMs: 100, windowMs: 3000, blockedShare: 0.5 });
    monitor.start();
    try {
      // 3 s of work in 20 ms slices: the loop is busy nearly all the time, yet never late by much.
      const until = performance.now() + 3000;
      while (performance.now() < until) {
        spin(20);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const state = monitor.state();
      expect(state.utilization).toBeGreaterThan(0.5);
      expect(state.blocked).toBe(false);
    } finally {
      monitor.stop();
    }
  }, 15_000);
});
