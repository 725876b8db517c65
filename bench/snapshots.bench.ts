// Checkpoints and forks of a large tree (BENCH_SNAPSHOT_FILES, default 10,000 files of 20 KB: 200 MB of
// random, incompressible bytes in 100 folders), in one run, against baselines measured inside the same
// sandbox in the same run: a stat walk of the tree (`find -printf`, the floor for noticing that nothing
// changed) and `cp -a` of the tree (the floor for copying it on a filesystem without reflinks).
// Goals: checkpoint of an unchanged tree p50 ≤ 1 s and ≤ 5% of the tree in extra disk; fork p50 ≤ 1 s
// and ≤ 5% extra disk. A fork is copy-on-write (overlay) where the server can mount overlayfs, else a full
// copy; the line says which. Each fork is deleted before the next, so each builds its lower tree anew.
// Extra disk is `du` of the data dir before and after (hard-linked blobs counted once). Loopback only.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ADMIN_KEY, callTool, fmt, percentile, startServer } from './lib.js';

const FILES = Number(process.env.BENCH_SNAPSHOT_FILES ?? 10_000);
const FILE_BYTES = Number(process.env.BENCH_SNAPSHOT_FILE_BYTES ?? 20_480);
const ROUNDS = Number(process.env.BENCH_SNAPSHOT_ROUNDS ?? 5);
const FOLDERS = 100;
const MB = 1024 * 1024;

const server = await startServer();
const session = await server.session({ profile: 'full' });
const call = (tool: string, input: object) => callTool(server.url, session, tool, input);
const du = (dir: string) =>
  Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split('\t')[0]);
const timed = async <T>(work: () => Promise<T>): Promise<[number, T]> => {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
};
const commandMs = async (command: string) =>
  Number((await call('run_command', { command, timeout_ms: 600_000 })).data.durationMs);

const perFolder = Math.ceil(FILES / FOLDERS);
await call('run_command', {
  command: `for d in $(seq 1 ${FOLDERS}); do mkdir -p t/$d && head -c ${perFolder * FILE_BYTES} /dev/urandom | split -b ${FILE_BYTES} -d -a 4 - t/$d/f; done`,
  timeout_ms: 600_000,
});
const treeBytes = du(path.join(server.dataDir, 'workspaces', session.id));
const storeDir = path.join(server.dataDir, 'snapshots', session.id);

// Baselines, inside the same sandbox: a stat walk, and cp -a of the tree within the workspace (the same
// filesystem a fork writes to; no sync, as a fork does not sync either).
const statWalks: number[] = [];
const copies: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  statWalks.push(await commandMs("find t -printf '%s %T@ %C@ %i\\n' > /dev/null"));
  copies.push(await commandMs('cp -a t copy'));
  await commandMs('rm -rf copy');
}

const [firstMs, first] = await timed(() => call('checkpoint_create', { name: 'first' }));
const firstDisk = du(storeDir);

const unchanged: number[] = [];
const unchangedDisk: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const before = du(storeDir);
  const [ms, result] = await timed(() => call('checkpoint_create', { name: `unchanged ${i}` }));
  if (result.data.addedBytes !== 0)
    throw new Error(`an unchanged checkpoint added ${result.data.addedBytes} bytes`);
  unchanged.push(ms);
  unchangedDisk.push(du(storeDir) - before);
}

const forks: number[] = [];
const forkDisk: number[] = [];
const forkCopies: string[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const before = du(server.dataDir);
  const [ms, res] = await timed(() =>
    fetch(`${server.url}/v1/sessions/${session.id}/fork`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    }),
  );
  if (res.status !== 201) throw new Error(`fork: ${res.status} ${await res.text()}`);
  forks.push(ms);
  // An overlay fork's store links its blobs just after the fork answers: counted too.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  forkDisk.push(du(server.dataDir) - before);
  const child = (await res.json()) as { id: string; copy: string };
  forkCopies.push(child.copy);
  await fetch(`${server.url}/v1/sessions/${child.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
}

// Where the work of an overlay fork went: the fork's first checkpoint reads every file once (its start
// has no stat keys of the fork's own files); a full copy's first checkpoint reads none.
const forked = await fetch(`${server.url}/v1/sessions/${session.id}/fork`, {
  method: 'POST',
  headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
  body: '{}',
});
const forkSession = (await forked.json()) as { id: string; token: string };
const [forkFirstMs] = await timed(() => callTool(server.url, forkSession, 'checkpoint_create', {}));
const [forkSecondMs] = await timed(() => callTool(server.url, forkSession, 'checkpoint_create', {}));
await fetch(`${server.url}/v1/sessions/${forkSession.id}`, {
  method: 'DELETE',
  headers: { authorization: `Bearer ${ADMIN_KEY}` },
});

const restores: number[] = [];
const firstId = first.data.id as string;
for (let i = 0; i < ROUNDS; i++) {
  await call('run_command', {
    command: `for d in $(seq 1 10); do echo changed >> t/$d/f0000; done; rm -rf t/100`,
  });
  restores.push((await timed(() => call('checkpoint_restore', { checkpoint: firstId })))[0]);
}

const p50 = (values: number[]) => percentile(values, 50);
const pct = (bytes: number) => `${fmt((100 * bytes) / treeBytes, 2)}% of the tree`;
console.log(`${FILES} files, ${fmt(treeBytes / MB, 0)} MB on disk, ${ROUNDS} rounds, p50 (same run)`);
console.log(`baseline: stat walk (find -printf)          ${fmt(p50(statWalks), 0)} ms`);
console.log(`baseline: cp -a of the tree (same fs)       ${fmt(p50(copies), 0)} ms`);
console.log(
  `first checkpoint (reads and stores all)      ${fmt(firstMs, 0)} ms, store ${fmt(firstDisk / MB, 1)} MB`,
);
console.log(
  `checkpoint of the unchanged tree            ${fmt(p50(unchanged), 0)} ms (goal ≤ 1000; ${fmt(p50(unchanged) / p50(statWalks), 1)}× the stat walk), ` +
    `extra disk ${fmt(p50(unchangedDisk) / 1024, 0)} KB = ${pct(p50(unchangedDisk))} (goal ≤ 5%)`,
);
console.log(
  `fork                                        ${fmt(p50(forks), 0)} ms (goal ≤ 1000; ${fmt(p50(forks) / p50(copies), 2)}× cp -a), ` +
    `extra disk ${fmt(p50(forkDisk) / MB, 1)} MB = ${pct(p50(forkDisk))} (goal ≤ 5%; copy: ${[...new Set(forkCopies)].join(', ')})`,
);
console.log(
  `in a fork: first checkpoint ${fmt(forkFirstMs, 0)} ms (starts its runtime), next unchanged ${fmt(forkSecondMs, 0)} ms`,
);
console.log(`restore of a checkpoint after 10 edits, 1 folder removed  ${fmt(p50(restores), 0)} ms`);
await server.close();
