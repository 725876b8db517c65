// npm run eval -- <dataset file or folder…> [--tool name]… [--concurrency N] [--compare report.json]
//   [--out report.json] [--junit report.xml] [--variants variants.json] [--tools-dir dir] [--url URL --key KEY]
// Runs eval datasets through a toolgate app of its own (built from the environment like `npm start`, on a
// temporary data dir that is removed afterwards) or a running server (--url). Prints a table per
// variant and tool and every failure. Exit codes (docs/evals.md): 0 every case passed; 1 a case failed
// (with --compare: one regressed); 2 the run could not start from its inputs (usage, a dataset that is
// not one, a tool no target has, an unreadable --variants or --compare file), printed as one line.
import { mkdtempSync, promises as fs, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { listDatasetFiles, loadDatasetFile, type Dataset } from '../src/evals/dataset.js';
import { checkDatasetTools } from '../src/evals/tool-check.js';
import { isToolgateError } from '../src/lib/errors.js';
import { junitXml } from '../src/evals/junit.js';
import type { EvalReport } from '../src/evals/report-schema.js';
import { runEvals, type EvalTarget } from '../src/evals/runner.js';
import { fetchTransport, injectTransport } from '../src/evals/transport.js';
import { DEFAULT_VARIANT, VariantSchema, type Variant } from '../src/evals/variant.js';
import { jsonSyntaxProblem } from '../src/evals/dataset-location.js';
import { Value } from 'typebox/value';
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

/** Exit code of a run that could not start from its inputs (a case failing is 1). */
const INPUT_ERROR = 2;

/** A problem with the inputs: one line, no stack, exit 2. */
class InputError extends Error {}

async function datasetsOf(args: string[]): Promise<Dataset[]> {
  const files = (
    await Promise.all(
      args.map(async (arg) => {
        const stat = await fs.stat(arg).catch(() => undefined);
        if (!stat) throw new InputError(`Dataset ${arg}: no such file or folder`);
        if (!stat.isDirectory()) return [arg];
        const inFolder = await listDatasetFiles(arg);
        if (inFolder.length === 0)
          throw new InputError(`Dataset folder ${arg}: no .jsonl, .yaml or .json file`);
        return inFolder;
      }),
    )
  ).flat();
  return Promise.all(files.map((file) => loadDatasetFile(file)));
}

/** A JSON file given on the command line (--variants, --compare), its errors naming it and the line. */
function jsonFile<T>(option: string, file: string): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(
      `--${option} ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    const { line, message } = jsonSyntaxProblem(err, text);
    throw new InputError(`--${option} ${file}, line ${line}: cannot be read as JSON: ${message}`);
  }
}

type VariantSpec = Variant & { env?: Record<string, string> };

function variantsOf(file: string): VariantSpec[] {
  const specs = jsonFile<unknown>('variants', file);
  if (!Array.isArray(specs)) throw new InputError(`--variants ${file}: expected a list of variants`);
  specs.forEach((spec: unknown, i) => {
    const { env, ...variant } = (spec ?? {}) as Record<string, unknown>;
    const problem = Value.Errors(VariantSchema, variant)[0] as
      { instancePath: string; message: string } | undefined;
    const badEnv = env !== undefined && (typeof env !== 'object' || env === null || Array.isArray(env));
    if (problem || badEnv) {
      const [field, message] = problem
        ? [problem.instancePath || '/', problem.message]
        : ['/env', 'must be an object'];
      throw new InputError(`--variants ${file}, variant ${i + 1}: ${field}: ${message}`);
    }
  });
  return specs as VariantSpec[];
}

/** Runs `start`; an input problem ends the process with one line and exit 2 (after `cleanup`). */
async function inputs<T>(
  start: () => Promise<T> | T,
  cleanup: () => Promise<void> = async () => {},
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const isDatasetError = isToolgateError(err) && err.code === 'VALIDATION_FAILED';
    if (!(err instanceof InputError) && !isDatasetError) throw err;
    await cleanup();
    console.error(`eval: ${(err as Error).message}`);
    process.exit(INPUT_ERROR);
  }
}

const datasets = await inputs(() => datasetsOf(positionals));
const specs: VariantSpec[] = await inputs(() =>
  values.variants ? variantsOf(values.variants) : [DEFAULT_VARIANT],
);
const previous = await inputs(() =>
  values.compare ? jsonFile<EvalReport>('compare', values.compare) : undefined,
);

const cleanups: (() => Promise<void>)[] = [];
const closeAll = async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
};
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
  // A tool no target has is a broken dataset: said before any case runs, with the apps closed first.
  await inputs(
    () => checkDatasetTools(datasets, targets, values.tool),
    () => closeAll(),
  );
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
  await closeAll();
}

printReport(report);
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
if (values.junit) writeFileSync(values.junit, junitXml(report));
const failed = previous
  ? (report.comparison?.regressions.length ?? 0) > 0
  : report.variants.some((v) => v.passed < v.total);
process.exit(failed ? 1 : 0);
