// Transfers in one run: (1) archive download throughput, GET /v1/sessions/{id}/archive?format=tar.gz of
// a tree vs `tar czf` of the same tree (target >= 0.7); (2) a 100 MB upload, PUT /v1/sessions/{id}/files
// vs a bare Fastify stream-to-disk route in its own process (target >= 0.8). Rounds alternate between
// the two sides and each side's median is taken, since the machine is shared.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, startServer } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 100);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
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

async function downloadArchive(): Promise<{ s: number; bytes: number }> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${server.url}/v1/sessions/${session.id}/archive?format=tar.gz`, { headers: auth });
  let bytes = 0;
  for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
  if (res.status !== 200) throw new Error(`archive: ${res.status}`);
  return { s: seconds(started), bytes };
}

function tarCzf(): { s: number; bytes: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync('tar', ['czf', '-', '-C', root, '.'], { maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`tar: ${result.stderr}`);
  return { s: seconds(started), bytes: result.stdout.length };
}

await downloadArchive();
tarCzf();
const archive = { toolgate: [] as number[], tar: [] as number[], bytes: 0, tarBytes: 0 };
for (let round = 0; round < ROUNDS; round++) {
  const ours = await downloadArchive();
  const theirs = tarCzf();
  archive.toolgate.push(ours.s);
  archive.tar.push(theirs.s);
  archive.bytes = ours.bytes;
  archive.tarBytes = theirs.bytes;
}

// The upload baseline runs in its own process, like the service under test would.
const here = path.dirname(fileURLToPath(import.meta.url));
const bare = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'bare-upload-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const barePort = await new Promise<number>((resolve) =>
  bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
);
const payload = randomBytes(UPLOAD_MB * 1024 * 1024);

async function upload(url: string, headers: Record<string, string>): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(url, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    body: payload,
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`upload to ${url}: ${res.status}`);
  return seconds(started);
}
const ourUpload = () => upload(`${server.url}/v1/sessions/${session.id}/files/upload/big.bin`, auth);
const bareUpload = () => upload(`http://127.0.0.1:${barePort}/upload`, {});
await ourUpload();
await bareUpload();
const uploads = { toolgate: [] as number[], bare: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  uploads.toolgate.push(await ourUpload());
  uploads.bare.push(await bareUpload());
}
bare.kill();
await server.close();

const mb = (bytes: number, s: number) => bytes / 1024 / 1024 / s;
const ourArchive = median(archive.toolgate);
const tarArchive = median(archive.tar);
console.log(
  `archive download (2,000 files, ${fmt(archive.bytes / 1024 / 1024, 1)} MB tar.gz; median of ${ROUNDS})`,
);
console.log(`  toolgate GET archive : ${fmt(ourArchive, 3)} s`);
console.log(
  `  tar czf              : ${fmt(tarArchive, 3)} s (${fmt(archive.tarBytes / 1024 / 1024, 1)} MB)`,
);
console.log(`  ratio (throughput)   : ${fmt(tarArchive / ourArchive)} (target >= 0.7)`);
const ours = median(uploads.toolgate);
const theirs = median(uploads.bare);
console.log(`upload of ${UPLOAD_MB} MB (median of ${ROUNDS})`);
console.log(`  toolgate PUT files   : ${fmt(ours, 3)} s (${fmt(mb(payload.length, ours), 0)} MB/s)`);
console.log(`  bare Fastify to disk : ${fmt(theirs, 3)} s (${fmt(mb(payload.length, theirs), 0)} MB/s)`);
console.log(`  ratio                : ${fmt(theirs / ours)} (target >= 0.8)`);
