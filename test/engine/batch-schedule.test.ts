// runScheduled: ordering around exclusive tasks and the cap on concurrent reads.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runScheduled } from '../../src/engine/batch/schedule.js';

describe('runScheduled', () => {
  it('never runs more parallel tasks at once than the limit, and keeps input order', async () => {
    let running = 0;
    let peak = 0;
    const tasks = Array.from({ length: 10 }, (_, i) => ({
      parallel: true,
      async run() {
        running++;
        peak = Math.max(peak, running);
        await sleep(10);
        running--;
        return i;
      },
    }));
    expect(await runScheduled(tasks, 3)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
  });

  it('starts an exclusive task only after everything before it, even when an earlier task failed', async () => {
    const log: string[] = [];
    const step = (name: string, parallel: boolean, fail = false) => ({
      parallel,
      async run() {
        log.push(`start ${name}`);
        await sleep(5);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      },
    });
    const results = runScheduled([step('r1', true, true), step('w', false), step('r2', true)]);
    await expect(results).rejects.toThrow('r1');
    await sleep(30);
    expect(log).toEqual(['start r1', 'end r1', 'start w', 'end w', 'start r2', 'end r2']);
  });
});
