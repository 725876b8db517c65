// The code index parses a large source file in the CPU pool (src/code/parse-jobs.ts), as its session and
// under the job deadline, never on the service's thread: 1 MiB of TypeScript costs seconds of synchronous
// wasm work, which on the loop would stall every session (issue 38). A file that passes the deadline is
// left out of the index like an unparsable one, and the call is answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_PARSE_CHARS } from '../../src/code/code-index.js';
import type { TestApp } from '../helpers/app.js';
import { startAppWithConfig } from '../ops/with-config.js';

/** TypeScript of about `bytes` bytes: many small functions, then `export function <last>()`. */
const sourceOf = (bytes: number, last: string) => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `export function filler${i}(a: number): number { return a + ${i}; }`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\nexport function ${last}(): string { return 'found'; }\n`;
};

const jobsOf = async (t: TestApp, outcome: string) => {
  const metrics = await t.admin(t.http.get('/metrics'));
  const line = new RegExp(
    `^toolgate_cpu_jobs_total\\{job="Parsing a source file",outcome="${outcome}"\\} (\\d+)`,
    'm',
  );
  return Number(line.exec(metrics.text)?.[1] ?? 0);
};

describe('the code index parses large files in the CPU pool', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startAppWithConfig({ limits: { cpuJobMs: 10_000 } });
    await t.app.services.cpu.warm(30_000);
  });
  afterAll(() => t?.close());

  it('finds a symbol of a file larger than the inline size, parsed by a pool job', async () => {
    const s = await t.createSession({
      files: {
        'src/big.ts': sourceOf(4 * INLINE_PARSE_CHARS, 'needleInBig'),
        'src/small.ts': 'export function needleInSmall(): number { return 1; }\n',
      },
    });
    const before = await jobsOf(t, 'ok');
    for (const name of ['needleInBig', 'needleInSmall']) {
      const res = await t.call(s, 'get_symbol_info', { name });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.symbols.map((x: { path: string }) => x.path)).toEqual([
        name === 'needleInBig' ? 'src/big.ts' : 'src/small.ts',
      ]);
    }
    // One job: the big file (the small one is parsed inline, and nothing changed for the second call).
    expect((await jobsOf(t, 'ok')) - before).toBe(1);
  });
});

describe('a file whose parse passes the job deadline', () => {
  let t: TestApp;
  beforeAll(async () => {
    // 1 MiB of TypeScript takes a second or more to parse; the deadline is a tenth of that.
    t = await startAppWithConfig({ limits: { cpuJobMs: 100 } });
    await t.app.services.cpu.warm(30_000);
  });
  afterAll(() => t?.close());

  it('is left out of the index, and the call is answered with the rest', async () => {
    const s = await t.createSession({
      files: {
        'src/huge.ts': sourceOf(1000 * 1024, 'needleInHuge'),
        'src/small.ts': 'export function needleInSmall(): number { return 1; }\n',
      },
    });
    const small = await t.call(s, 'get_symbol_info', { name: 'needleInSmall' });
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body.data.symbols).toHaveLength(1);
    expect(await jobsOf(t, 'timeout')).toBeGreaterThan(0);
    // Not parsed again while it is unchanged: the next call starts no job.
    const timeouts = await jobsOf(t, 'timeout');
    const huge = await t.call(s, 'get_symbol_info', { name: 'needleInHuge' });
    expect(huge.status).toBe(404);
    expect(await jobsOf(t, 'timeout')).toBe(timeouts);
  });
});
