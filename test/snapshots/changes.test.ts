// GET /v1/sessions/{id}/changes and workspace_changes: the diff of everything since the start (tools and
// commands alike) applies with `git apply` to a pristine copy of the seed files and reproduces the
// workspace exactly: edits, a file changed only by a command, deletions, a rename, binary files, a mode
// change, a symlink, an empty file. The JSON summary says the same per file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { gitView, readTree } from './tree.js';

const SEED: Record<string, string> = {
  'a.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n',
  'b.txt': 'to be deleted\n',
  'c.txt': 'to be renamed\nwith a second line\n',
  'cmd.txt': 'changed only by a command\n',
  'script.sh': '#!/bin/sh\necho hi\n',
  'img.bin': 'PNG\u0000\u0001\u0002binary\u0000bytes',
  'no-newline.txt': 'last line without newline',
  'dir/nested.txt': 'nested\n',
};

describe('the session’s changes', () => {
  let t: InjectApp;
  let session: { id: string; token: string };
  const workspaceOf = (id: string) => path.join(t.dataDir, 'workspaces', id);

  beforeAll(async () => {
    t = await injectApp();
    session = await t.createSession({ files: SEED });
  });
  afterAll(() => t.close());

  const run = async (command: string) => {
    const res = await t.call(session, 'run_command', { command });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.exitCode, res.body.data.stderr).toBe(0);
  };

  it('is empty right after the start, and a diff of nothing is empty', async () => {
    const res = await t.http
      .get(`/v1/sessions/${session.id}/changes?format=json`)
      .set('authorization', `Bearer ${session.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ since: 'start', files: [], totals: { files: 0, additions: 0, deletions: 0 } });
  });

  // The changes the next tests look at, made by tools and by commands (apart from the git check, which
  // skips on a machine without git: the others must not depend on it).
  it('gives a diff of what tools and commands changed', async () => {
    // Tools…
    expect((await t.call(session, 'read_file', { path: 'a.txt' })).status).toBe(200);
    const edit = await t.call(session, 'edit_file', {
      path: 'a.txt',
      old_string: 'four\n',
      new_string: 'FOUR\n4\n',
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(
      (await t.call(session, 'write_file', { path: 'src/new.ts', content: 'export const x = 1;\n' })).status,
    ).toBe(200);
    // …and commands only.
    await run(
      [
        "printf 'appended by a command\\n' >> cmd.txt",
        'rm b.txt',
        'mv c.txt renamed.txt',
        'chmod +x script.sh',
        "printf '\\000\\001\\377more' >> img.bin",
        'head -c 5000 /dev/urandom > random.bin',
        'ln -s a.txt link-to-a',
        'touch empty.txt',
        "printf 'still no newline, changed' > no-newline.txt",
        "mkdir -p deep/er && printf 'x\\ny\\n' > deep/er/file.txt",
        "printf 'spaces\\n' > 'name with spaces.txt'",
        'printf \'q\\n\' > "$(printf \'tab\\there "quoted"\')"',
        "printf 'crlf\\r\\nlines\\r\\n' > crlf.txt",
      ].join(' && '),
    );

    const res = await t.http
      .get(`/v1/sessions/${session.id}/changes`)
      .set('authorization', `Bearer ${session.token}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/x-diff/);
    const diff = res.text;
    expect(diff).toContain('diff --git a/b.txt b/b.txt\ndeleted file mode 100644');
    expect(diff).toContain('rename from c.txt\nrename to renamed.txt');
    expect(diff).toContain('old mode 100644\nnew mode 100755');
    expect(diff).toContain('new file mode 120000');
    expect(diff).toContain('GIT binary patch');
  });

  it.skipIf(needs('git', 'the git apply check of the changes patch'))(
    'gives a diff that git apply turns a pristine copy into the workspace, byte for byte',
    async () => {
      const res = await t.http
        .get(`/v1/sessions/${session.id}/changes`)
        .set('authorization', `Bearer ${session.token}`);
      const diff = res.text;
      // A pristine copy of the seed files, patched by git, is the workspace.
      const pristine = tempDir('toolgate-pristine-');
      for (const [file, content] of Object.entries(SEED)) {
        mkdirSync(path.dirname(path.join(pristine, file)), { recursive: true });
        writeFileSync(path.join(pristine, file), content);
      }
      // The patch lives outside the tree it patches (and goes with its own temp dir).
      const patch = path.join(tempDir('toolgate-patch-'), 'changes.patch');
      writeFileSync(patch, diff);
      execFileSync('git', ['apply', '--whitespace=nowarn', patch], { cwd: pristine });
      expect(gitView(readTree(pristine))).toEqual(gitView(readTree(workspaceOf(session.id))));
    },
  );

  it('summarises the same changes as JSON, with statuses and line counts', async () => {
    const res = await t.http
      .get(`/v1/sessions/${session.id}/changes?format=json&since=start`)
      .set('authorization', `Bearer ${session.token}`);
    expect(res.status).toBe(200);
    const byPath = Object.fromEntries(res.body.files.map((f: { path: string }) => [f.path, f]));
    expect(byPath['a.txt']).toMatchObject({ status: 'modified', additions: 2, deletions: 1, binary: false });
    expect(byPath['cmd.txt']).toMatchObject({ status: 'modified', additions: 1, deletions: 0 });
    expect(byPath['b.txt']).toMatchObject({ status: 'deleted', deletions: 1 });
    expect(byPath['renamed.txt']).toMatchObject({ status: 'renamed', oldPath: 'c.txt', additions: 0 });
    expect(byPath['script.sh']).toMatchObject({ status: 'modified', oldMode: '100644', newMode: '100755' });
    expect(byPath['img.bin']).toMatchObject({ status: 'modified', binary: true });
    expect(byPath['random.bin']).toMatchObject({ status: 'added', binary: true });
    expect(byPath['link-to-a']).toMatchObject({ status: 'added', newMode: '120000' });
    expect(byPath['empty.txt']).toMatchObject({ status: 'added', additions: 0 });
    expect(byPath['src/new.ts']).toMatchObject({ status: 'added', additions: 1 });
    expect(res.body.totals.files).toBe(res.body.files.length);
  });

  it('gives the agent the same view through workspace_changes', async () => {
    const res = await t.call(session, 'workspace_changes', { format: 'diff' });
    expect(res.status).toBe(200);
    expect(res.body.data.files.map((f: { path: string }) => f.path)).toContain('renamed.txt');
    expect(res.body.data.diff).toContain('rename from c.txt');
    expect(res.body.data.truncated).toBe(false);
  });

  it('sees a same-size rewrite that puts the old mtime back (stat keys include the ctime)', async () => {
    const s = await t.createSession({ files: { 'same.txt': 'aaaa\n' } });
    const checkpoint = await t.call(s, 'checkpoint_create', {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Past the racy window, the next snapshot trusts the stat key taken now…
    expect(
      (await t.call(s, 'workspace_changes', { since: checkpoint.body.data.id })).body.data.files,
    ).toEqual([]);
    const cmd = await t.call(s, 'run_command', {
      command: "cp -p same.txt ref && printf 'bbbb\\n' > same.txt && touch -r ref same.txt && rm ref",
    });
    expect(cmd.body.data.exitCode).toBe(0);
    // …and a rewrite with the same size and mtime still changes it.
    const changes = await t.call(s, 'workspace_changes', { since: checkpoint.body.data.id, format: 'diff' });
    expect(changes.body.data.files).toMatchObject([{ path: 'same.txt', status: 'modified' }]);
    expect(changes.body.data.diff).toContain('-aaaa\n+bbbb');
  });

  it('answers 404 in the envelope for an unknown checkpoint', async () => {
    for (const since of ['cp_0000000000000000', 'nope', '../../etc']) {
      const res = await t.http
        .get(`/v1/sessions/${session.id}/changes`)
        .query({ since })
        .set('authorization', `Bearer ${session.token}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });
});
