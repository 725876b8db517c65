// npm run eval -- <dataset file or folder…> [--tool name]… [--concurrency N] [--compare report.json]
//   [--out report.json] [--junit report.xml] [--variants variants.json] [--tools-dir dir] [--url URL --key KEY]
// Runs eval datasets through a toolgate app of its own (built from the environment like `npm start`, on a
// temporary data dir that is removed afterwards) or a running server (--url). Prints a table per
// variant and tool and every failure; exits 1 when a case fails (with --compare: when one regressed).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { listDatasetFiles, loadDatasetFile, type Dataset } from '../src/evals/dataset.js';
import { junitXml } from '../src/evals/junit.js';
import type { EvalReport } from '../src/evals/report-schema.js';
import { runEvals, type EvalTarget } from '../src/evals/runner.js';
import { fetchTransport, injectTransport } from '../src/evals/transport.js';
import { DEFAULT_VARIANT, type Variant } from '../src/evals/variant.js';
import { printReport } from './eval-print.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    tool: { type: 'string', multiple: true },
    concurrency: { type: 'string' },
    compare: { type: 'string' },
    out: { type: 'string' },
    junit: { type: 'string' },
    variants: { type: 'string' },
    'tools-dir': { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
  },
});
if (positionals.length === 0) {
  console.error(
    'usage: npm run eval -- <dataset file or folder…> [--tool name] [--concurrency N] [--compare report.json]',
  );
  process.exit(2);
}

async function datasetsOf(args: string[]): Promise<Dataset[]> {
  const files = (
    await Promise.all(args.map(async (arg) => (statSync(arg).isDirectory() ? listDatasetFiles(arg) : [arg])))
  ).flat();
  return Promise.all(files.map((file) => loadDatasetFile(file)));
}

type VariantSpec = Variant & { env?: Record<string, string> };

const datasets = await datasetsOf(positionals);
const specs: VariantSpec[] = values.variants
  ? (JSON.parse(readFileSync(values.variants, 'utf8')) as VariantSpec[])
  : [DEFAULT_VARIANT];
const previous = values.compare
  ? (JSON.parse(readFileSync(values.compare, 'utf8')) as EvalReport)
  : undefined;

const cleanups: (() => Promise<void>)[] = [];
async function localTarget(variant: Variant, env: Record<string, string> = {}): Promise<EvalTarget> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-eval-'));
  const adminToken = `tga_eval_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    ...(values['tools-dir'] ? { TOOLGATE_TOOLS_DIR: path.resolve(values['tools-dir']) } : {}),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...env,
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_API_KEY: adminToken,
  });
  const app = await buildApp(config, { logger: false });
  await app.ready();
  cleanups.push(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { variant, transport: injectTransport(app), adminToken };
}

let report: EvalReport;
try {
  const targets: EvalTarget[] = [];
  // Variants without an environment of their own share one app.
  let shared: EvalTarget | undefined;
  for (const { env, ...variant } of specs) {
    if (values.url) {
      targets.push({
        variant,
        transport: fetchTransport(values.url),
        adminToken: values.key ?? process.env.TOOLGATE_API_KEY ?? '',
      });
    } else if (env) {
      targets.push(await localTarget(variant, env));
    } else {
      shared ??= await localTarget(variant);
      targets.push({ ...shared, variant });
    }
  }
  let lastShown = 0;
  report = await runEvals(datasets, targets, {
    concurrency: values.concurrency ? Number(values.concurrency) : undefined,
    tools: values.tool,
    previous,
    onProgress(progress) {
      const now = Date.now();
      if (process.stderr.isTTY && (now - lastShown > 200 || progress.done === progress.total)) {
        lastShown = now;
        process.stderr.write(`\r${progress.done}/${progress.total} cases, ${progress.failed} failed `);
      }
    },
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
} finally {
  for (const cleanup of cleanups) await cleanup();
}

printReport(report);
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
if (values.junit) writeFileSync(values.junit, junitXml(report));
const failed = previous
  ? (report.comparison?.regressions.length ?? 0) > 0
  : report.variants.some((v) => v.passed < v.total);
process.exit(failed ? 1 : 0);
