// Start-up faults: each ends the process with exit code 1 and exactly one line on stderr that names
// the thing at fault and what to do (a process supervisor's log shows it whole). The corrupt-database
// message keeps SQLite's own words ("file is not a database").
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { REPO_ROOT } from './child-server.js';
import { writeConfigFile } from './with-config.js';

const isRoot = process.getuid?.() === 0;

interface Outcome {
  code: number | null;
  stderrLines: string[];
}

/** Starts the server and waits for it to exit (it must: each case is a fault it cannot start with). */
function startExpectingExit(env: Record<string, string>): Promise<Outcome> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: '0',
      TOOLGATE_SANDBOX: 'none',
      TOOLGATE_API_KEY: 'tga_startup_fault_key_0123456789',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderrLines: stderr.split('\n').filter(Boolean) });
    }),
  );
}

function expectOneLine(outcome: Outcome, pattern: RegExp): void {
  expect(outcome.code).toBe(1);
  expect(outcome.stderrLines).toHaveLength(1);
  expect(outcome.stderrLines[0]).toMatch(/^toolgate: /);
  expect(outcome.stderrLines[0]).toMatch(pattern);
}

describe('start-up faults: one clear line and exit code 1', () => {
  const mounts: string[] = [];
  let busy: Server | undefined;
  afterAll(() => {
    busy?.close();
    for (const dir of mounts) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  });

  it('a data dir that is a file', async () => {
    const file = path.join(tempDir('toolgate-startup-'), 'data');
    writeFileSync(file, 'not a directory');
    expectOneLine(
      await startExpectingExit({ TOOLGATE_DATA_DIR: file }),
      /data dir .*data is not usable: .*not a directory/,
    );
  }, 40_000);

  it('a data dir on a read-only file system (root) or without write permission (others)', async (context) => {
    const base = tempDir('toolgate-startup-');
    const target = path.join(base, 'ro');
    mkdirSync(target);
    if (isRoot) {
      // A read-only bind mount of an empty directory: root's permissions cannot write through it. Root in
      // a container may not mount (no CAP_SYS_ADMIN), and ignores file modes: nothing to test there.
      try {
        execFileSync('mount', ['--bind', target, target], { stdio: 'pipe' });
      } catch (err) {
        const line = `skipped the read-only data dir test: root may not mount here (${String((err as { stderr?: unknown }).stderr ?? err).trim()})`;
        if (process.env.TOOLGATE_TEST_REQUIRE_ALL === '1')
          throw new Error(`TOOLGATE_TEST_REQUIRE_ALL=1: ${line}`);
        console.warn(line);
        context.skip();
      }
      mounts.push(target);
      execFileSync('mount', ['-o', 'remount,bind,ro', target]);
      const outcome = await startExpectingExit({ TOOLGATE_DATA_DIR: path.join(target, 'data') });
      expectOneLine(outcome, /data dir .* is not usable: .* is on a read-only file system/);
    } else {
      chmodSync(target, 0o500);
      const outcome = await startExpectingExit({ TOOLGATE_DATA_DIR: path.join(target, 'data') });
      expectOneLine(outcome, /data dir .* is not usable: .* is not writable by this user/);
    }
  }, 40_000);

  it('a corrupt database keeps SQLite’s words and names the file', async () => {
    const dataDir = tempDir('toolgate-startup-');
    writeFileSync(path.join(dataDir, 'toolgate.db'), Buffer.alloc(8192, 0x5a));
    expectOneLine(
      await startExpectingExit({ TOOLGATE_DATA_DIR: dataDir }),
      /database .*toolgate\.db: file is not a database; restore it from a backup/,
    );
  }, 40_000);

  it('a port in use', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    expectOneLine(
      await startExpectingExit({ TOOLGATE_DATA_DIR: tempDir('toolgate-startup-'), PORT: String(port) }),
      new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use; .*set PORT`),
    );
  }, 40_000);

  it('a config file with a bad key', async () => {
    const config = writeConfigFile({ limits: { readMaxBytez: 10 } });
    expectOneLine(
      await startExpectingExit({ TOOLGATE_DATA_DIR: tempDir('toolgate-startup-'), TOOLGATE_CONFIG: config }),
      /TOOLGATE_CONFIG .* is invalid: \/limits: unknown key\(s\) "readMaxBytez"/,
    );
  }, 40_000);
});
