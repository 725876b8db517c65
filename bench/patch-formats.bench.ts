// Patch formats: the same change to a 2,000-line file as a V4A patch and as a unified diff, applied
// through apply_patch over HTTP in the same run, interleaved (goal: V4A ≤ 1.2× unified), plus the two
// engines alone in-process (parse and place, no I/O); and a 50-file V4A patch (p50 over the API).
// Each forward patch is followed by its reverse, so every run starts from the same files.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff';
import { applyV4aChunks } from '../src/edit/v4a-apply.js';
import { parseV4aPatch } from '../src/edit/v4a-parse.js';
import { callTool, fmt, percentile, startServer } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const p50 = (times: number[]) => percentile(times, 50);

/** A source file of `count` lines, varied enough that 3 lines of context are unique. */
const sourceLines = (count: number, seed: string) =>
  Array.from({ length: count }, (_, i) =>
    i % 10 === 0
      ? `function ${seed}_f${i}(x) {`
      : i % 10 === 9
        ? '}'
        : `  const v${i} = x * ${i} + ${seed.length};`,
  );

/** The lines after changing every `every`-th line (a model's scattered edits). */
const changed = (lines: string[], every: number) =>
  lines.map((line, i) => (i % every === 5 ? line.replace('const', 'let') + ' // changed' : line));

/** A V4A update of `before` into `after` (same line count): one chunk per changed line, 3 lines of context. */
function v4aUpdate(file: string, before: string[], after: string[]): string {
  const out = [`*** Update File: ${file}`];
  for (let i = 0; i < before.length; i++) {
    if (before[i] === after[i]) continue;
    out.push('@@');
    for (let c = Math.max(0, i - 3); c < i; c++) out.push(` ${before[c]}`);
    out.push(`-${before[i]}`, `+${after[i]}`);
    for (let c = i + 1; c < Math.min(before.length, i + 4); c++) out.push(` ${before[c]}`);
  }
  return out.join('\n');
}

const v4aPatch = (sections: string[]) => `*** Begin Patch\n${sections.join('\n')}\n*** End Patch\n`;
const unified = (file: string, before: string[], after: string[]) =>
  createTwoFilesPatch(`a/${file}`, `b/${file}`, `${before.join('\n')}\n`, `${after.join('\n')}\n`, '', '', {
    context: 3,
  })
    .split('\n')
    .slice(1)
    .join('\n');

async function interleaved(runs: number, tasks: (() => Promise<unknown>)[]): Promise<number[][]> {
  for (const task of tasks) await task();
  const times = tasks.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, task] of tasks.entries()) {
      const start = performance.now();
      await task();
      times[index].push(performance.now() - start);
    }
  }
  return times;
}

const line = (label: string, times: number[]) =>
  console.log(
    `  ${label.padEnd(48)} p50 ${fmt(p50(times)).padStart(8)} ms   p95 ${fmt(percentile(times, 95)).padStart(8)} ms`,
  );

const server = await startServer();
try {
  const session = await server.session({ profile: 'read-write' });
  const workspace = path.join(server.dataDir, 'workspaces', session.id);
  const call = (input: unknown) => callTool(server.url, session, 'apply_patch', input);

  // --- one file, V4A vs unified -----------------------------------------------------------------
  const before = sourceLines(2000, 'big');
  const after = changed(before, 100);
  writeFileSync(path.join(workspace, 'big.js'), `${before.join('\n')}\n`);
  const v4aForward = v4aPatch([v4aUpdate('big.js', before, after)]);
  const v4aBack = v4aPatch([v4aUpdate('big.js', after, before)]);
  const uniForward = unified('big.js', before, after);
  const uniBack = unified('big.js', after, before);
  console.log(
    `one file: 2,000 lines, 20 changed lines (${RUNS} runs of each patch and its reverse, interleaved)`,
  );
  const [v4aFwd, v4aRev, uniFwd, uniRev] = await interleaved(RUNS, [
    () => call({ patch: v4aForward }),
    () => call({ patch: v4aBack }),
    () => call({ patch: uniForward }),
    () => call({ patch: uniBack }),
  ]);
  const v4aApi = v4aFwd.map((t, i) => t + v4aRev[i]);
  const uniApi = uniFwd.map((t, i) => t + uniRev[i]);
  line('API apply_patch V4A (forward + reverse)', v4aApi);
  line('API apply_patch unified diff (forward + reverse)', uniApi);
  console.log(`  ratio V4A/unified via the API: ${fmt(p50(v4aApi) / p50(uniApi))} (goal <= 1.2)`);

  // The engines alone: parse the patch and compute the new text, no I/O, no HTTP.
  const text = `${before.join('\n')}\n`;
  const engine = (task: () => unknown) => async () => {
    for (let i = 0; i < 20; i++) task();
  };
  const [v4aEngine, uniEngine] = await interleaved(RUNS, [
    engine(() => {
      const [op] = parseV4aPatch(v4aForward);
      if (op.kind === 'update') applyV4aChunks(text, op.chunks, 'big.js');
    }),
    engine(() => applyPatch(text, parsePatch(uniForward)[0])),
  ]);
  line('engine V4A: parse + place + apply (x20)', v4aEngine);
  line('engine unified (jsdiff parsePatch + applyPatch) (x20)', uniEngine);
  console.log(`  ratio V4A/unified, engines alone: ${fmt(p50(v4aEngine) / p50(uniEngine))}`);

  // --- 50 files in one V4A patch ----------------------------------------------------------------
  const files = Array.from({ length: 50 }, (_, i) => `pkg${i % 5}/mod${i}.js`);
  const forward: string[] = [];
  const back: string[] = [];
  for (const [i, file] of files.entries()) {
    const lines = sourceLines(200, `m${i}`);
    const next = changed(lines, 50);
    mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    writeFileSync(path.join(workspace, file), `${lines.join('\n')}\n`);
    forward.push(v4aUpdate(file, lines, next));
    back.push(v4aUpdate(file, next, lines));
  }
  const fiftyForward = v4aPatch(forward);
  const fiftyBack = v4aPatch(back);
  console.log(
    `\n50 files x 200 lines, 4 chunks each, one V4A patch (${fmt(fiftyForward.length / 1024, 1)} KiB; ${RUNS} runs)`,
  );
  const [fifty, fiftyRev] = await interleaved(RUNS, [
    () => call({ patch: fiftyForward }),
    () => call({ patch: fiftyBack }),
  ]);
  line('API apply_patch, 50-file V4A patch', fifty);
  line('API apply_patch, its reverse', fiftyRev);
} finally {
  await server.close();
}
