// Load: mixed tool calls (read_file, list_directory, write_file) for 60 s across 100 sessions, ten of
// them rate-limited on purpose, against a toolgate child process. Baseline: GET /healthz in the same run.
// Fails (exit 1) on any response other than 200 or an intended 429. LOAD_SECONDS shortens it.
import { fmt } from './lib.js';
import { runMixedLoad } from '../test/system/load-driver.js';

const durationSeconds = Number(process.env.LOAD_SECONDS ?? 60);
const report = await runMixedLoad({ durationSeconds, sessions: 100, connections: 100 });

console.log(`mixed tool calls, ${durationSeconds} s, 100 sessions, 100 connections (loopback)`);
console.log(`  calls:            ${report.requests} (${fmt(report.requestsPerSec, 0)}/s)`);
console.log(`  latency:          p50 ${report.p50Ms} ms, p99 ${report.p99Ms} ms`);
console.log(`  baseline healthz: ${fmt(report.baselineRequestsPerSec, 0)}/s`);
console.log(`  ratio:            ${fmt(report.requestsPerSec / report.baselineRequestsPerSec)} of baseline`);
console.log(`  by status:        ${JSON.stringify(report.byStatus)}`);
console.log(`  intended 429:     ${report.intended429}`);
console.log(
  `  errors:           ${report.errors}${report.samples.length ? ` e.g. ${report.samples.join(' | ')}` : ''}`,
);
console.log(
  `  server RSS:       ${fmt(report.rssBeforeMb, 0)} MB before, ${fmt(report.rssAfterMb, 0)} MB after`,
);
console.log(`  RSS during load:  ${report.rssSamplesMb.join(' ')} MB`);
console.log(
  `  V8 heap used:     ${fmt(report.heapUsedBeforeMb, 0)} MB before, ${fmt(report.heapUsedAfterMb, 0)} MB after`,
);
process.exit(report.errors === 0 ? 0 : 1);
