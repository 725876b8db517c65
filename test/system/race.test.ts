// Confinement by construction, tried as an attacker would: a background command keeps swapping a
// workspace directory `d` for a symlink to a directory OUTSIDE the workspace (a host path, and the
// sandbox's own /etc and /tmp) while every path-taking tool works under d/. Tools run in the session
// runtime, whose namespace has nothing of the host: however the race falls, no call may read the
// outside canary, and nothing outside may be created, changed, moved or deleted. The same holds for the
// routes that take paths without being tools (raw file PUT/GET, archive extract and download) and for
// the snapshot tools (changes, checkpoint, restore), which walk and rewrite the whole tree, and for
// commands in persistent shells kept open through the soak.
// CI-sized by default; the long run: TOOLGATE_RACE_CALLS=2000 npx vitest run test/sandbox/race.test.ts
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app.js';
import { asBytes } from '../helpers/bytes.js';
import { tarOf } from '../transfer/archive-helpers.js';
import { needs } from '../helpers/requires.js';

const CALLS = Number(process.env.TOOLGATE_RACE_CALLS ?? 120);
const CONCURRENCY = 8;
const TAG = `tgrace${process.pid}`;
const SECRET = `canary-${TAG}-0123456789`;
// A line of the host's /etc/passwd that the sandbox's generated one does not have.
const HOST_PASSWD_LINE = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .find((line) => line.startsWith('daemon:'));

type Input = (i: number) => Record<string, unknown>;

// Steps that make a new file or directory cycle through this many names (made, then replaced or
// removed): a new name per call would leave up to 2,000 of them in d/ for every later tool that walks
// it, and for GET archive to pack on every call (134 s of the soak, with nothing more tested).
const NAMES = 20;

const TOOLS: Array<[string, Input]> = [
  ['read_file', () => ({ path: 'd/a.txt' })],
  ['write_file', (i) => ({ path: `d/${TAG}-w${i}.txt`, content: 'x' })],
  [
    'edit_file',
    (i) => ({ path: 'd/e.txt', old_string: i % 2 ? 'one' : 'two', new_string: i % 2 ? 'two' : 'one' }),
  ],
  [
    'multi_edit',
    (i) => ({
      path: 'd/e.txt',
      edits: [{ old_string: i % 2 ? 'one' : 'two', new_string: i % 2 ? 'two' : 'one' }],
    }),
  ],
  // Made by one patch, removed by the next on its name.
  [
    'apply_patch',
    (i) => ({
      patch:
        Math.floor(i / NAMES) % 2 === 0
          ? `--- /dev/null\n+++ b/d/${TAG}-p${i % NAMES}.txt\n@@ -0,0 +1,1 @@\n+patched\n`
          : `--- a/d/${TAG}-p${i % NAMES}.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-patched\n`,
    }),
  ],
  ['delete_file', (i) => ({ path: i % 3 === 0 ? 'd/sub' : `d/${TAG}-w${i - 1}.txt`, recursive: true })],
  // Two persistent shells stay open through the whole soak (issue 40): each call cds into d/ as it is at
  // that moment and reads from there, in a subshell so the shell's own cwd stays at the root. A call on
  // a shell that is still busy gets 409 SHELL_BUSY, which is counted like any other refusal.
  ['shell_exec', (i) => ({ shell: `race${i % 2}`, command: '(cd d && cat a.txt passwd) 2>&1; pwd' })],
  [
    'move_file',
    (i) => ({
      source: i % 2 ? 'd/m.txt' : `d/${TAG}-m.txt`,
      destination: i % 2 ? `d/${TAG}-m.txt` : 'd/m.txt',
    }),
  ],
  ['move_file', (i) => ({ source: `d/${TAG}-w${i - 2}.txt`, destination: `outer-${i}.txt` })],
  ['move_file', (i) => ({ source: 'd/a.txt', destination: `d/../${TAG}-copy${i}.txt` })],
  ['create_directory', (i) => ({ path: `d/${TAG}-dir${i % NAMES}` })],
  ['list_directory', () => ({ path: 'd', depth: 3 })],
  ['glob', () => ({ pattern: '**/*', path: 'd' })],
  ['grep', () => ({ pattern: 'canary|daemon|root', path: 'd', engine: 'ripgrep' })],
  ['grep', () => ({ pattern: 'canary|daemon|root', path: 'd', engine: 'javascript' })],
  ['grep', () => ({ pattern: 'canary', path: 'd/passwd', engine: 'auto' })],
  ['file_info', () => ({ path: 'd/a.txt' })],
  ['file_info', () => ({ path: 'd/passwd' })],
  ['undo_edit', () => ({ path: 'd/e.txt' })],
  ['search_code', () => ({ query: 'secret', path: 'd' })],
  ['get_codebase_map', () => ({ path: 'd' })],
  ['get_symbol_info', () => ({ name: 'secret', path: 'd/code.ts' })],
  ['get_imports_exports', () => ({ path: 'd/code.ts' })],
  ['build_dependency_graph', () => ({ path: 'd' })],
  ['resolve_symbol', () => ({ name: 'secret', path: 'd/code.ts' })],
  ['find_references', () => ({ name: 'secret', scope: 'd' })],
  ['detect_project_type', () => ({})],
  ['extract_conventions', () => ({})],
  ['get_project_overview', () => ({})],
  ['read_file', () => ({ path: 'd/canary.txt' })],
  ['read_file', () => ({ path: 'd/passwd' })],
  ['workspace_changes', () => ({ since: 'start', format: 'diff' })],
  ['checkpoint_create', (i) => ({ name: `race-${i}` })],
];

type Session = { id: string; token: string };

/** Requests other than tool calls, by name; each answers with the body's text for the leak check. */
const ROUTES: Array<[string, (t: TestApp, s: Session, i: number, archive: Buffer) => Promise<Answer>]> = [
  [
    'PUT files',
    (t, s, i) =>
      answer(
        t.http
          .put(`/v1/sessions/${s.id}/files/d/${TAG}-u${i % NAMES}.txt`)
          .set('authorization', `Bearer ${s.token}`)
          .send(Buffer.from('uploaded')),
      ),
  ],
  ['GET files', (t, s) => answer(asBytes(auth(t.http.get(`/v1/sessions/${s.id}/files/d/a.txt`), s)))],
  ['GET files passwd', (t, s) => answer(asBytes(auth(t.http.get(`/v1/sessions/${s.id}/files/d/passwd`), s)))],
  [
    'POST archive',
    (t, s, _i, archive) =>
      answer(
        auth(t.http.post(`/v1/sessions/${s.id}/archive?path=d`), s)
          .set('content-type', 'application/octet-stream')
          .send(archive),
      ),
  ],
  [
    'GET archive',
    (t, s) => answer(asBytes(auth(t.http.get(`/v1/sessions/${s.id}/archive?path=d&format=tar.gz`), s)), true),
  ],
];

interface Answer {
  status: number;
  body: { error?: { code?: string } } | undefined;
  text: string;
}
const auth = (test: supertest.Test, s: Session) => test.set('authorization', `Bearer ${s.token}`);
async function answer(test: supertest.Test, gzipped = false): Promise<Answer> {
  const res = await test;
  const raw: unknown = res.body;
  if (!Buffer.isBuffer(raw)) return { status: res.status, body: res.body, text: res.text ?? '' };
  const plain = gzipped && res.status === 200 ? gunzipSync(raw) : raw;
  const text = plain.toString('latin1');
  const body = res.status >= 400 ? (JSON.parse(raw.toString('utf8')) as Answer['body']) : undefined;
  return { status: res.status, body, text };
}

/** Everything under a directory: relative path → content ('' for directories). */
function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? readFileSync(full, 'utf8') : '';
  }
  return out;
}

const tagged = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((name) => name.includes(TAG)) : [];

const missing = needs(['bwrap', 'ripgrep'], 'the symlink-swap race soak');

describe.skipIf(missing)('race: directory swapped for a symlink under every path-taking tool', () => {
  let t: TestApp;
  let outside: string;
  let before: Record<string, string>;
  let isolated = false;

  beforeAll(async () => {
    t = await startApp(
      { TOOLGATE_SANDBOX: 'auto', LOG_LEVEL: process.env.RACE_LOG ?? 'silent' },
      process.env.RACE_LOG ? { logger: true } : {},
    );
    isolated = t.app.services.runner.status.isolated;
    outside = tempDir('toolgate-race-outside-');
    writeFileSync(path.join(outside, 'canary.txt'), SECRET);
    writeFileSync(path.join(outside, 'passwd'), `${SECRET}\n`);
    writeFileSync(path.join(outside, 'a.txt'), SECRET);
    writeFileSync(path.join(outside, 'e.txt'), `${SECRET} one\n`);
    writeFileSync(path.join(outside, 'code.ts'), `export const secret = '${SECRET}';\n`);
    mkdirSync(path.join(outside, 'sub'));
    writeFileSync(path.join(outside, 'sub', 'keep.txt'), SECRET);
    before = snapshotTree(outside);
  });

  afterAll(async () => {
    await t.close();
    rmSync(outside, { recursive: true, force: true });
  });

  it(
    `leaks nothing and changes nothing outside in ${CALLS} calls per tool`,
    async (context) => {
      if (!isolated) {
        console.info(
          'race test skipped: bwrap is not available here, so there is no isolated runtime to test',
        );
        context.skip();
      }
      const s = await t.createSession({
        profile: 'full',
        files: {
          'd/a.txt': 'inside a\n',
          'd/e.txt': 'one\n',
          'd/m.txt': 'move me\n',
          'd/code.ts': 'export function secret() { return 1; }\n',
          'd/sub/x.txt': 'x\n',
          'package.json': '{"name":"race"}\n',
        },
      });
      // The swapper: the host path does not exist in the sandbox; /etc and /tmp are the sandbox's own.
      // A tool may recreate d/ while the real one is away (write_file makes parents): that d is thrown
      // away when the real one comes back, so the tree stays the same size however long the run.
      const swap = await t.call(s, 'run_command', {
        command:
          `while :; do for target in '${outside}' /etc /tmp; do ` +
          'mv -T d d.real 2>/dev/null && ln -s -T "$target" d 2>/dev/null; sleep 0.001; ' +
          'if [ -d d.real ]; then rm -f d 2>/dev/null || rm -rf d; mv -T d.real d; fi; done; done',
        background: true,
      });
      expect(swap.status).toBe(200);

      const statuses = new Map<number, number>();
      const leaks: string[] = [];
      const timings: string[] = [];
      // A checkpoint of the tree before the swapping starts: restoring it rewrites d/ while d may be a
      // symlink to the outside at that moment.
      const checkpoint = await t.call(s, 'checkpoint_create', { name: 'before' });
      expect(checkpoint.status).toBe(200);
      const restore = (): Record<string, unknown> => ({ checkpoint: checkpoint.body.data.id });
      const archive = await tarOf([
        { name: `${TAG}-arc.txt`, content: 'from an archive' },
        { name: `${TAG}-arcdir/`, type: 'directory' },
        { name: `${TAG}-arcdir/f.txt`, content: 'nested' },
      ]);
      const operations: Array<[string, (i: number) => Promise<Answer>]> = [
        ...TOOLS.map(([tool, input]): [string, (i: number) => Promise<Answer>] => [
          tool,
          async (i) => {
            const res = await t.call(s, tool, input(i));
            return { status: res.status, body: res.body, text: res.text };
          },
        ]),
        ['checkpoint_restore', () => t.call(s, 'checkpoint_restore', restore())],
        ...ROUTES.map(([name, run]): [string, (i: number) => Promise<Answer>] => [
          name,
          (i) => run(t, s, i, archive),
        ]),
      ];
      for (const [tool, operation] of operations) {
        const began = performance.now();
        let next = 0;
        const worker = async () => {
          while (next < CALLS) {
            const i = next++;
            const res = await operation(i);
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500 && res.body?.error?.code !== 'RUNTIME_UNAVAILABLE') {
              leaks.push(`${tool} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
            }
            if (res.text.includes(SECRET) || (HOST_PASSWD_LINE && res.text.includes(HOST_PASSWD_LINE))) {
              leaks.push(`${tool} (call ${i}) read outside: ${res.text.slice(0, 300)}`);
            }
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
        timings.push(`${tool} ${Math.round(performance.now() - began)} ms`);
        if (process.env.TOOLGATE_RACE_VERBOSE) console.info(timings.at(-1));
      }
      await t.call(s, 'job_kill', { job_id: swap.body.data.jobId });

      expect(leaks).toEqual([]);
      // Nothing outside was created, changed, moved or deleted.
      expect(snapshotTree(outside)).toEqual(before);
      for (const dir of ['/etc', tmpdir(), '/', path.dirname(outside)]) expect(tagged(dir), dir).toEqual([]);
      console.info(
        `race test: ${CALLS} calls × ${operations.length} operations; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
          timings.join(', '),
      );
    },
    Math.max(600_000, CALLS * (TOOLS.length + ROUTES.length + 1) * 20),
  );
});
