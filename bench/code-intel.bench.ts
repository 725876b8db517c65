// Code intelligence measured against compiler-grade oracles on real projects: TypeScript sources shipped
// in npm packages (ajv's lib/, openai's src/, from node_modules) against the TypeScript language
// service, and a Python package from the pip index (click, fetched with `pip download` into a temp dir)
// against pyright's language server. A fixed seeded sample of top-level symbols; per project:
// find_references precision and recall (all answers, and those marked `resolved`), resolve_symbol
// accuracy on a seeded sample of the oracle's use sites, and warm find_references latency.
// Each source is measured on its own service: `syntax` (language servers off) and `lsp` (on; the server
// is started and warmed first with a workspace-wide `diagnostics` call, whose time is the cold start;
// answers that fell back to the syntax index are counted). BENCH_SOURCE=syntax|lsp measures one.
// Goals (syntax fallback): Python recall >= 0.85 with precision >= 0.9 on `resolved`; TypeScript
// recall >= 0.97; with language servers: recall and precision >= 0.98. BENCH_VERBOSE=1 lists the
// misses and the wrong answers.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { typescriptOracle } from './code-intel/oracle-ts.js';
import { pythonOracle } from './code-intel/oracle-py.js';
import { sample, type OracleSymbol } from './code-intel/sample.js';
import { callTool, fmt, percentile, startServer } from './lib.js';

const SEED = 32;
const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 80);
const USE_SITES = Number(process.env.BENCH_USE_SITES ?? 120);
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const PYTHON_PACKAGE = process.env.BENCH_PY_PACKAGE ?? 'click==8.5.0';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const temp = mkdtempSync(path.join(tmpdir(), 'toolgate-code-intel-'));

interface Project {
  label: string;
  language: 'typescript' | 'python';
  /** Directory holding the sources (copied into a session workspace as they are). */
  root: string;
  files: string[];
}

function listFiles(root: string, keep: (file: string) => boolean): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter(keep)
    .sort();
}

function typescriptProject(pkg: string, dir: string): Project {
  const json = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8'));
  const root = path.join(temp, pkg);
  cpSync(path.join(repoRoot, 'node_modules', pkg, dir), path.join(root, dir), { recursive: true });
  const files = listFiles(root, (f) => /\.tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f));
  return { label: `${pkg}@${json.version} ${dir}/`, language: 'typescript', root, files };
}

function pythonProject(requirement: string): Project {
  const download = path.join(temp, 'wheels');
  const fetched = spawnSync(
    'python3',
    ['-m', 'pip', 'download', requirement, '--no-deps', '--only-binary=:all:', '-d', download, '-q'],
    { env: { ...process.env, PIP_RETRIES: '0', PIP_DISABLE_PIP_VERSION_CHECK: '1' }, encoding: 'utf8' },
  );
  const wheel = fetched.status === 0 ? readdirSync(download).find((f) => f.endsWith('.whl')) : undefined;
  if (!wheel) throw new Error(`pip download ${requirement} failed: ${fetched.stderr}`);
  const root = path.join(temp, 'py');
  const unpacked = spawnSync('python3', ['-m', 'zipfile', '-e', path.join(download, wheel), root]);
  if (unpacked.status !== 0) throw new Error(`unzip ${wheel} failed`);
  const files = listFiles(root, (f) => f.endsWith('.py') && !f.includes('.dist-info/'));
  return { label: wheel.replace(/-py3.*$/, ''), language: 'python', root, files };
}

const SOURCES = (process.env.BENCH_SOURCE ?? 'syntax,lsp').split(',') as ('syntax' | 'lsp')[];
type BenchServer = Awaited<ReturnType<typeof startServer>>;

interface Row {
  source: 'syntax' | 'lsp';
  /** Answers of find_references and resolve_symbol that came from a language server. */
  lspAnswers: number;
  answers: number;
  label: string;
  language: string;
  files: number;
  symbols: number;
  oracleUses: number;
  recallAll: number;
  recallResolved: number;
  precisionResolved: number;
  precisionAll: number;
  resolveAccuracy: number;
  resolveSites: number;
  coldMs: number;
  /** Resident memory of the session's language server processes after the run (lsp only). */
  serverRssMb?: number;
  /** write_file with diagnostics in its result, warm (lsp only). */
  edits?: { p50: number; p50Off: number; count: number; checked: number; caught: number };
  warmP50: number;
  oracleMs: number;
}

/** MiB resident of this checkout's language server processes (pyright, typescript-language-server, tsserver). */
function serverRss(): number {
  const scripts = [
    'pyright/langserver.index.js',
    'typescript-language-server/lib/cli.mjs',
    'typescript/lib/tsserver.js',
  ];
  let kb = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!scripts.some((script) => cmdline.includes(path.join(repoRoot, 'node_modules', script)))) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return kb / 1024;
}

type Truth = { symbols: OracleSymbol[]; oracleMs: number };

async function oracleFor(project: Project): Promise<Truth> {
  const oracleStarted = performance.now();
  let symbols: OracleSymbol[];
  if (project.language === 'typescript') {
    const oracle = typescriptOracle(project.root, project.files);
    symbols = sample(oracle.symbols(), SYMBOLS, SEED, (s) => `${s.path}:${s.line}:${s.name}`).map((s) => ({
      ...s,
      uses: oracle.uses(s),
    }));
  } else {
    const oracle = await pythonOracle(project.root, project.files);
    symbols = [];
    for (const s of sample(oracle.symbols(), SYMBOLS, SEED, (x) => `${x.path}:${x.line}:${x.name}`))
      symbols.push({ ...s, uses: await oracle.uses(s) });
    await oracle.close();
  }
  return { symbols, oracleMs: performance.now() - oracleStarted };
}

async function measure(
  project: Project,
  server: BenchServer,
  source: 'syntax' | 'lsp',
  { symbols, oracleMs }: Truth,
): Promise<Row> {
  const session = await server.session({ profile: 'read-write' });
  cpSync(project.root, server.app.services.workspaces.dirFor(session.id), { recursive: true });
  const cold = performance.now();
  if (source === 'lsp') await callTool(server.url, session, 'diagnostics', { path: '.', wait_ms: 60_000 });
  else await callTool(server.url, session, 'search_code', { query: 'x', limit: 1 });
  const coldMs = performance.now() - cold;
  let answers = 0;
  let lspAnswers = 0;
  const count = (data: Record<string, unknown>) => {
    answers++;
    if (data.source === 'lsp') lspAnswers++;
  };

  let truth = 0;
  let hitAll = 0;
  let hitResolved = 0;
  let answeredAll = 0;
  let answeredResolved = 0;
  const latencies: number[] = [];
  for (const symbol of symbols) {
    const started = performance.now();
    // A definition the index does not see (404 NOT_FOUND) is an answer with no uses.
    const answer = await callTool(server.url, session, 'find_references', {
      name: symbol.name,
      path: symbol.path,
      limit: 2000,
    }).catch((err: Error) => {
      if (err.message.includes('NOT_FOUND')) return { data: { references: [] } };
      throw err;
    });
    latencies.push(performance.now() - started);
    count(answer.data);
    const refs = answer.data.references as {
      path: string;
      line: number;
      column: number;
      confidence: string;
    }[];
    const expected = new Set(symbol.uses);
    const all = new Set(refs.map((r) => `${r.path}:${r.line}:${r.column}`));
    const resolved = new Set(
      refs.filter((r) => r.confidence === 'resolved').map((r) => `${r.path}:${r.line}:${r.column}`),
    );
    truth += expected.size;
    answeredAll += all.size;
    answeredResolved += resolved.size;
    for (const use of all) if (expected.has(use)) hitAll++;
    for (const use of resolved) if (expected.has(use)) hitResolved++;
    if (VERBOSE) {
      for (const use of expected)
        if (!resolved.has(use))
          console.log(`  miss ${symbol.name}: ${use}${all.has(use) ? ' (name only)' : ''}`);
      for (const use of resolved)
        if (!expected.has(use)) console.log(`  extra ${symbol.name} (${symbol.path}:${symbol.line}): ${use}`);
    }
  }

  // resolve_symbol on the oracle's use sites: the name as written there (with its qualifier), its line.
  const sites = sample(
    symbols.flatMap((s) => s.uses.map((use) => ({ symbol: s, use }))),
    USE_SITES,
    SEED,
    (x) => `${x.use}:${x.symbol.name}`,
  );
  let correct = 0;
  for (const { symbol, use } of sites) {
    const [file, line, column] = use.split(':');
    const text = readFileSync(path.join(project.root, file), 'utf8').split('\n')[Number(line) - 1];
    const written = /^[\p{L}\p{N}_$.]*/u.exec(text.slice(Number(column) - 1))![0].split('.')[0];
    const before = /(?:[\p{L}_$][\p{L}\p{N}_$]*\.)*$/u.exec(text.slice(0, Number(column) - 1))![0];
    const { data } = await callTool(server.url, session, 'resolve_symbol', {
      name: `${before}${written}`,
      path: file,
      line: Number(line),
    });
    count(data);
    const definitions = data.definitions as { path: string; line: number }[];
    const ok =
      (data.resolution === 'local' || data.resolution === 'import') &&
      definitions.some((d) => d.path === symbol.path && d.line === symbol.line);
    if (ok) correct++;
    else if (VERBOSE)
      console.log(
        `  resolve ${before}${written} at ${use}: ${data.resolution} ${definitions.map((d) => `${d.path}:${d.line}`).join(' ')} (want ${symbol.path}:${symbol.line})`,
      );
  }

  const edits = source === 'lsp' ? await editDiagnostics(project, server, session) : undefined;
  const serverRssMb = source === 'lsp' ? serverRss() : undefined;
  server.app.services.lsp?.manager.forget(session.id);
  return {
    source,
    ...(serverRssMb !== undefined ? { serverRssMb } : {}),
    ...(edits ? { edits } : {}),
    answers,
    lspAnswers,
    label: project.label,
    language: project.language,
    files: project.files.length,
    symbols: symbols.length,
    oracleUses: truth,
    recallAll: hitAll / Math.max(truth, 1),
    recallResolved: hitResolved / Math.max(truth, 1),
    precisionResolved: hitResolved / Math.max(answeredResolved, 1),
    precisionAll: hitAll / Math.max(answeredAll, 1),
    resolveAccuracy: correct / Math.max(sites.length, 1),
    resolveSites: sites.length,
    coldMs,
    warmP50: percentile(latencies.slice(1), 50),
    oracleMs,
  };
}

const EDITS = 20;

/**
 * Diagnostics in an edit's result, warm: write_file of a sampled file alternately with a new type error
 * appended and back, timed whole (the write and the server's new diagnostics). `caught`: the edits that
 * added the error and got it back as a new problem.
 */
async function editDiagnostics(
  project: Project,
  server: BenchServer,
  session: { id: string; token: string },
) {
  const [file] = sample(project.files, 1, SEED, (f) => f);
  const original = readFileSync(path.join(project.root, file), 'utf8');
  const broken =
    original +
    (project.language === 'python' ? '\n__bench: int = "x"\n' : '\nexport const __bench: number = "x";\n');
  await callTool(server.url, session, 'read_file', { path: file });
  const latencies: number[] = [];
  let checked = 0;
  let caught = 0;
  for (let i = 0; i < EDITS; i++) {
    const started = performance.now();
    const { data } = await callTool(server.url, session, 'write_file', {
      path: file,
      content: i % 2 === 0 ? broken : original,
    });
    latencies.push(performance.now() - started);
    const diagnostics = data.diagnostics as { state: string; problems: { line: number }[] } | undefined;
    if (diagnostics?.state === 'checked') checked++;
    // The error is on the appended lines, after every line of the original.
    const firstNew = original.split('\n').length;
    if (i % 2 === 0 && diagnostics?.problems.some((p) => p.line >= firstNew)) caught++;
  }
  // The baseline: the same writes with diagnostics switched off for the call.
  const plain: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const started = performance.now();
    await callTool(server.url, session, 'write_file', {
      path: file,
      content: i % 2 === 0 ? broken : original,
      diagnostics: false,
    });
    plain.push(performance.now() - started);
  }
  return { p50: percentile(latencies, 50), p50Off: percentile(plain, 50), count: EDITS, checked, caught };
}

const servers: BenchServer[] = [];
try {
  const projects = [
    typescriptProject('ajv', 'lib'),
    typescriptProject('openai', 'src'),
    pythonProject(PYTHON_PACKAGE),
  ];
  const truths = new Map<Project, Truth>();
  for (const project of projects) truths.set(project, await oracleFor(project));
  const rows: Row[] = [];
  for (const source of SOURCES) {
    const server = await startServer({ TOOLGATE_LSP: source === 'lsp' ? 'on' : 'off' });
    servers.push(server);
    for (const project of projects) rows.push(await measure(project, server, source, truths.get(project)!));
    await server.close();
    servers.pop();
  }
  console.log(`seed ${SEED}, ${SYMBOLS} top-level symbols per project, ${USE_SITES} use sites`);
  for (const r of rows) {
    console.log(
      `${r.language.padEnd(10)} ${r.label.padEnd(24)} source ${r.source.padEnd(6)} ${String(r.files).padStart(4)} files, ${r.symbols} symbols, ${r.oracleUses} oracle uses (oracle ${fmt(r.oracleMs / 1000, 1)} s)`,
    );
    console.log(
      `  find_references  recall ${fmt(r.recallAll)} (resolved ${fmt(r.recallResolved)})  precision resolved ${fmt(r.precisionResolved)} (all ${fmt(r.precisionAll)})`,
    );
    console.log(
      `  resolve_symbol   accuracy ${fmt(r.resolveAccuracy)} on ${r.resolveSites} use sites; ${r.source === 'lsp' ? 'server cold start (diagnostics of the workspace)' : 'index cold'} ${fmt(r.coldMs, 0)} ms, warm find_references p50 ${fmt(r.warmP50, 0)} ms`,
    );
    if (r.source === 'lsp')
      console.log(
        `  answered by the server: ${r.lspAnswers} of ${r.answers} (the rest fell back); server memory ${fmt(r.serverRssMb ?? 0, 0)} MiB resident`,
      );
    if (r.edits)
      console.log(
        `  write_file with diagnostics, warm: p50 ${fmt(r.edits.p50, 0)} ms (without: ${fmt(r.edits.p50Off, 0)} ms, ratio ${fmt(r.edits.p50 / r.edits.p50Off, 1)}) over ${r.edits.count} edits; ${r.edits.checked} checked, ${r.edits.caught} of ${r.edits.count / 2} introduced errors reported`,
      );
  }
  const goal = (ok: boolean, text: string) => console.log(`${ok ? 'met   ' : 'MISSED'} ${text}`);
  for (const r of rows) {
    if (r.edits)
      goal(
        r.edits.p50 <= 1500,
        `${r.label}: diagnostics in an edit's result p50 ${fmt(r.edits.p50, 0)} ms <= 1500`,
      );
    if (r.source === 'lsp')
      goal(
        r.recallAll >= 0.98 && r.precisionAll >= 0.98,
        `${r.label} (lsp): recall ${fmt(r.recallAll)} >= 0.98, precision ${fmt(r.precisionAll)} >= 0.98`,
      );
    else if (r.language === 'python')
      goal(
        r.recallResolved >= 0.85 && r.precisionResolved >= 0.9,
        `${r.label}: resolved recall ${fmt(r.recallResolved)} >= 0.85, precision ${fmt(r.precisionResolved)} >= 0.9`,
      );
    else goal(r.recallAll >= 0.97, `${r.label}: recall ${fmt(r.recallAll)} >= 0.97`);
  }
} finally {
  for (const server of servers) await server.close();
  rmSync(temp, { recursive: true, force: true });
}
