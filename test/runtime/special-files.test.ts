// What commands can leave in a workspace that is not a plain file: FIFOs, sockets and hard links. None
// may hang or harm the service; walks skip or describe them, reads refuse them at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { needs, sandboxesFor } from '../helpers/requires.js';

// grep's engines: ripgrep only where it is installed.
const engines = needs('ripgrep', 'grep with engine "ripgrep" on special files')
  ? ['javascript', 'auto']
  : ['ripgrep', 'javascript', 'auto'];

// The workspace's socket is made by python3 (bash cannot bind a Unix socket).
const noPython = needs('python3', 'the special-files tests');

describe.skipIf(noPython).each(sandboxesFor('the special-files tests'))(
  'special files (TOOLGATE_SANDBOX=%s)',
  (sandbox) => {
    let t: InjectApp;
    let s: { id: string; token: string };
    beforeAll(async () => {
      t = await injectApp({ TOOLGATE_SANDBOX: sandbox });
      s = await t.createSession({ profile: 'full', files: { 'src/a.ts': 'export const a = 1;\n' } });
      const made = await t.call(s, 'run_command', {
        command:
          'mkfifo pipe src/pipe.ts && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\'sock\')" && ls -l',
      });
      expect(made.body.data.exitCode).toBe(0);
    });
    afterAll(() => t.close());

    it('read and edit tools refuse a FIFO at once', async () => {
      for (const [tool, input] of [
        ['read_file', { path: 'pipe' }],
        ['edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' }],
        ['write_file', { path: 'pipe', content: 'x' }],
      ] as const) {
        const res = await t.call(s, tool, input);
        expect(res.status, tool).toBe(422);
        expect(res.body.error.code, tool).toBe('NOT_A_FILE');
      }
    });

    it('walks skip or describe FIFOs and sockets without opening them', async () => {
      const list = await t.call(s, 'list_directory', { path: '.', depth: 2 });
      expect(list.status).toBe(200);
      const types = Object.fromEntries(
        list.body.data.entries.map((e: { path: string; type: string }) => [e.path, e.type]),
      );
      expect(types).toMatchObject({ pipe: 'other', sock: 'other', 'src/pipe.ts': 'other' });
      const glob = await t.call(s, 'glob', { pattern: '**/*' });
      expect(glob.status).toBe(200);
      expect(glob.body.data.files).not.toContain('pipe');
      for (const engine of engines) {
        const grep = await t.call(s, 'grep', { pattern: 'a', engine });
        expect(grep.status, engine).toBe(200);
        const direct = await t.call(s, 'grep', { pattern: 'a', path: 'pipe', engine });
        expect(direct.status, engine).toBe(200);
        expect(direct.body.data.totalMatches).toBe(0);
      }
      const info = await t.call(s, 'file_info', { path: 'pipe' });
      expect(info.body.data.type).toBe('other');
      const code = await t.call(s, 'search_code', { query: 'a' });
      expect(code.status).toBe(200);
      const overview = await t.call(s, 'get_project_overview', {});
      expect(overview.status).toBe(200);
      // A FIFO can still be deleted (nothing of it is kept for undo).
      const del = await t.call(s, 'delete_file', { path: 'sock' });
      expect(del.status).toBe(200);
    });

    it('a hard link made by a command: read works, an edit replaces that name only', async () => {
      const u = await t.createSession({ profile: 'full', files: { 'a.txt': 'shared\n' } });
      await t.call(u, 'run_command', { command: 'ln a.txt b.txt' }).expect(200);
      const read = await t.call(u, 'read_file', { path: 'b.txt' });
      expect(read.body.data.content).toBe('shared');
      // Writes are atomic replacements (temp file + rename): the edited name gets a new inode and the
      // other name keeps the old content, so a link can never carry a write to another file.
      await t.call(u, 'edit_file', { path: 'b.txt', old_string: 'shared', new_string: 'edited' }).expect(200);
      const after = await t.call(u, 'run_command', { command: 'cat a.txt b.txt; stat -c %h a.txt' });
      expect(after.body.data.stdout).toBe('shared\nedited\n1\n');
      if (sandbox === 'auto' && t.app.services.runner.status.isolated) {
        // A host file cannot even be named from inside: no hard link to it can be made.
        const host = await t.call(u, 'run_command', { command: 'ln /etc/shadow x 2>&1; ls x 2>&1' });
        expect(host.body.data.stdout).toMatch(
          /No such file|cannot|Operation not permitted|Invalid cross-device/,
        );
      }
    });

    it('write tools move the mtime to a later second, so mtime+size caches see a same-size edit', async () => {
      const u = await t.createSession({ profile: 'full', files: { 'mod.py': 'X = 1\n' } });
      const first = await t.call(u, 'run_command', { command: 'stat -c %Y mod.py' });
      await t.call(u, 'edit_file', { path: 'mod.py', old_string: 'X = 1', new_string: 'X = 2' }).expect(200);
      const second = await t.call(u, 'run_command', { command: 'stat -c %Y mod.py' });
      expect(Number(second.body.data.stdout)).toBeGreaterThan(Number(first.body.data.stdout));
      await t.call(u, 'write_file', { path: 'mod.py', content: 'X = 3\n' }).expect(200);
      const third = await t.call(u, 'run_command', { command: 'stat -c %Y mod.py' });
      expect(Number(third.body.data.stdout)).toBeGreaterThan(Number(second.body.data.stdout));
      // And Python runs what the tools wrote.
      const run = await t.call(u, 'run_command', { command: 'python3 -c "import mod; print(mod.X)"' });
      expect(run.body.data.stdout).toBe('3\n');
    });
  },
);
