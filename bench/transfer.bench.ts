// Transfers in one run: (1) archive download throughput, GET /v1/sessions/{id}/archive?format=tar.gz of
// a tree vs `tar czf` of the same tree (target >= 0.7); (2) a 100 MB upload, PUT /v1/sessions/{id}/files
// vs a bare Fastify stream-to-disk route in its own process (target >= 0.8). The client is curl, a
// process of its own, for both sides: an in-process fetch would spend the service's own CPU (undici
// copies a 100 MB body) and penalise only toolgate. Rounds alternate between the two sides and each
// side's median is taken, with the load average printed, since the machine is shared.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus as cpuList, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeCpuSeconds } from './child.js';
import { fmt, startServer } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 100);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpus = cpuList().length;
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

const server = await startServer({ TOOLGATE_CONFIG: '' });
const session = await server.session();
const auth = { authorization: `Bearer ${session.token}` };

// A source-like tree: 2,000 files, text (compresses) and some binary (does not), about 40 MB.
const root = server.app.services.workspaces.dirFor(session.id);
const line = 'export function handler(request, reply) { return reply.send({ ok: true, at: Date.now() }); }\n';
for (let i = 0; i < 2000; i++) {
  const dir = path.join(root, `pkg${i % 40}`, `mod${i % 7}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `f${i}.ts`), i % 10 === 0 ? randomBytes(60_000) : line.repeat(180 + (i % 50)));
}

/** Runs a command to the end (asynchronously: the service under test shares this process). */
function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { maxBuffer: 1 << 20, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file}: ${err.message} ${stderr}`)) : resolve(stdout),
    ),
  );
}

/** Times `once`, alternating with `other` round by round; the medians of both, and each round's values. */
async function alternate(once: () => Promise<number>, other: () => Promise<number>) {
  await once();
  await other();
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await once());
    theirs.push(await other());
  }
  return { ours: median(ours), theirs: median(theirs), all: { ours, theirs } };
}

const scratch = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-transfer-'));
const curl = (args: string[]) => run('curl', ['-sS', '--fail', '-H', 'Expect:', ...args]);

/** Seconds to download the archive (curl writes it to a file, as `tar czf` below does). */
async function downloadArchive(): Promise<number> {
  const started = process.hrtime.bigint();
  await curl([
    '-o',
    path.join(scratch, 'ours.tar.gz'),
    '-H',
    `authorization: ${auth.authorization}`,
    `${server.url}/v1/sessions/${session.id}/archive?format=tar.gz`,
  ]);
  return seconds(started);
}

async function tarCzf(): Promise<number> {
  const started = process.hrtime.bigint();
  await run('tar', ['czf', path.join(scratch, 'theirs.tar.gz'), '-C', root, '.']);
  return seconds(started);
}

const loadBefore = loadavg()[0];
const archive = await alternate(downloadArchive, tarCzf);
const archiveBytes = {
  ours: (await run('stat', ['-c', '%s', path.join(scratch, 'ours.tar.gz')])).trim(),
  theirs: (await run('stat', ['-c', '%s', path.join(scratch, 'theirs.tar.gz')])).trim(),
};

// The upload baseline runs in its own process, like the service under test would.
const here = path.dirname(fileURLToPath(import.meta.url));
const bare = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bare-upload-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const barePort = await new Promise<number>((resolve) =>
  bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
);
const payloadFile = path.join(scratch, 'payload.bin');
writeFileSync(payloadFile, randomBytes(UPLOAD_MB * 1024 * 1024));

/** Server CPU seconds of each upload (service and its runtime, or the bare server's process), by side. */
const uploadCpu: Record<'ours' | 'theirs', number[]> = { ours: [], theirs: [] };

async function upload(url: string, headers: string[], side: 'ours' | 'theirs', pid: number): Promise<number> {
  const cpuBefore = treeCpuSeconds(pid);
  const started = process.hrtime.bigint();
  await curl([
    '-o',
    '/dev/null',
    '-T',
    payloadFile,
    '-H',
    'content-type: application/octet-stream',
    ...headers.flatMap((h) => ['-H', h]),
    url,
  ]);
  const elapsed = seconds(started);
  uploadCpu[side].push(treeCpuSeconds(pid) - cpuBefore);
  return elapsed;
}
const uploads = await alternate(
  () =>
    upload(
      `${server.url}/v1/sessions/${session.id}/files/upload/big.bin`,
      [`authorization: ${auth.authorization}`],
      'ours',
      // This process (the service; curl runs as a child that has exited by then) and its runtime.
      process.pid,
    ),
  () => upload(`http://127.0.0.1:${barePort}/upload`, [], 'theirs', bare.pid!),
);
const loadAfter = loadavg()[0];
bare.kill();
await server.close();
rmSync(scratch, { recursive: true, force: true });

const rounds = (values: number[]) => values.map((v) => fmt(v, 3)).join(' ');
const mb = (bytes: number, s: number) => bytes / 1024 / 1024 / s;
const megabytes = (bytes: string | number) => fmt(Number(bytes) / 1024 / 1024, 1);
console.log(`load average (1 min) ${fmt(loadBefore)} before, ${fmt(loadAfter)} after, on ${cpus} CPUs`);
console.log(`archive download (2,000 files; median of ${ROUNDS}, client curl)`);
console.log(`  toolgate GET archive : ${fmt(archive.ours, 3)} s (${megabytes(archiveBytes.ours)} MB)`);
console.log(`  tar czf              : ${fmt(archive.theirs, 3)} s (${megabytes(archiveBytes.theirs)} MB)`);
console.log(`  rounds (s)           : ours ${rounds(archive.all.ours)}; tar ${rounds(archive.all.theirs)}`);
console.log(`  ratio (throughput)   : ${fmt(archive.theirs / archive.ours)} (target >= 0.7)`);
const size = UPLOAD_MB * 1024 * 1024;
console.log(`upload of ${UPLOAD_MB} MB (median of ${ROUNDS}, client curl)`);
console.log(`  toolgate PUT files   : ${fmt(uploads.ours, 3)} s (${fmt(mb(size, uploads.ours), 0)} MB/s)`);
console.log(
  `  bare Fastify to disk : ${fmt(uploads.theirs, 3)} s (${fmt(mb(size, uploads.theirs), 0)} MB/s)`,
);
console.log(`  rounds (s)           : ours ${rounds(uploads.all.ours)}; bare ${rounds(uploads.all.theirs)}`);
console.log(`  ratio                : ${fmt(uploads.theirs / uploads.ours)} (target >= 0.8)`);
// CPU time is the stable number on a busy machine (the wall-clock ratio moves with whatever else runs).
const cpuMs = (side: 'ours' | 'theirs') => median(uploadCpu[side].slice(1)) * 1000;
console.log(
  `  server CPU (median) : toolgate ${fmt(cpuMs('ours'), 0)} ms, bare ${fmt(cpuMs('theirs'), 0)} ms per upload; ` +
    `bare/toolgate ${fmt(cpuMs('theirs') / cpuMs('ours'))}`,
);
