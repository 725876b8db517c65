// Uploads written by the service straight into the temp file the runtime opened (reopened through
// /proc/<pid>/fd; src/runtime/reopen-descriptor.ts), with both runtimes: the path is taken, the bytes and
// hash come out right, a file that changed behind the service's back is refused, and only a regular file
// on the workspace's own file system is ever reopened. The disk-full case needs root (a tmpfs data dir).
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { reopenForWriting } from '../../src/runtime/reopen-descriptor.js';
import { Workspace } from '../../src/runtime/workspace.js';
import type { SessionRuntime } from '../../src/runtime/session-runtime.js';
import { needs, sandboxesFor } from '../helpers/requires.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const isRoot = !needs('root', 'an upload that fills the disk (it mounts a tmpfs)');

describe.each(sandboxesFor('the runtime-descriptor upload tests'))(
  'uploads through the runtime descriptor (TOOLGATE_SANDBOX=%s)',
  (sandbox) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ TOOLGATE_SANDBOX: sandbox });
    });
    afterAll(() => t.close());

    /** A session with a running runtime, and that runtime. */
    const sessionWithRuntime = async () => {
      const s = await t.createSession({ profile: 'full' });
      await t.call(s, 'list_directory', {}).expect(200);
      return { s, runtime: t.app.services.runtimes.get(s.id) as SessionRuntime };
    };
    const listing = async (s: { id: string; token: string }) =>
      (await t.call(s, 'run_command', { command: 'ls -A' }).expect(200)).body.data.stdout as string;

    it('writes the body into the file the runtime opened, and the runtime hashes and commits it', async () => {
      const { s, runtime } = await sessionWithRuntime();
      const workspace = new Workspace(runtime);
      const opened = (await workspace.call('uploadOpen', { path: 'out/blob.bin', maxBytes: 1 << 30 })).result;
      const bytes = randomBytes(3 * 1024 * 1024 + 5);
      const written = await runtime.writeThroughDescriptor(runtime.generation, opened.fd, async (handle) => {
        await handle.write(bytes, 0, bytes.length, 0);
        return { bytes: bytes.length };
      });
      // The fast path is there with this backend (else uploads silently fall back to frames).
      expect(written).toEqual({ value: { bytes: bytes.length } });
      const done = (await workspace.call('streamFinish', { stream: opened.stream, written: written!.value }))
        .result;
      expect(done).toMatchObject({ relative: 'out/blob.bin', created: true, sha256: sha(bytes) });
      const back = await t.http
        .get(`/v1/sessions/${s.id}/files/out/blob.bin`)
        .set('authorization', `Bearer ${s.token}`)
        .buffer(true)
        .parse((res, cb) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => cb(null, Buffer.concat(parts)));
        });
      expect(back.status).toBe(200);
      expect(back.headers.etag).toBe(`"${sha(bytes)}"`);
      expect(Buffer.compare(back.body as Buffer, bytes)).toBe(0);
    });

    it('refuses a temp file that holds more than the service wrote, and leaves nothing behind', async () => {
      const { s, runtime } = await sessionWithRuntime();
      const workspace = new Workspace(runtime);
      const opened = (await workspace.call('uploadOpen', { path: 'grown.txt', maxBytes: 1 << 30 })).result;
      // What a command appending to the temp file meanwhile would do: the file is longer than reported.
      const written = await runtime.writeThroughDescriptor(runtime.generation, opened.fd, async (handle) => {
        await handle.write(Buffer.from('reported+appended'), 0, 17, 0);
        return { bytes: 8 };
      });
      const finish = workspace.call('streamFinish', { stream: opened.stream, written: written!.value });
      await expect(finish).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await listing(s)).toBe('');
    });

    it('over the size limit through this path: 413, nothing written', async () => {
      const { s, runtime } = await sessionWithRuntime();
      const workspace = new Workspace(runtime);
      const opened = (await workspace.call('uploadOpen', { path: 'big.bin', maxBytes: 1000 })).result;
      expect(opened.allowance).toBe(1000);
      const finish = workspace.call('streamFinish', { stream: opened.stream, written: { bytes: 1001 } });
      await expect(finish).rejects.toMatchObject({ code: 'BODY_TOO_LARGE' });
      expect(await listing(s)).toBe('');
    });

    it('does not reopen a descriptor named by a runtime that has since restarted', async () => {
      const { runtime } = await sessionWithRuntime();
      const workspace = new Workspace(runtime);
      const opened = (await workspace.call('uploadOpen', { path: 'late.bin', maxBytes: 1 << 30 })).result;
      const generation = runtime.generation;
      await runtime.stop();
      await workspace.call('ping', {});
      expect(runtime.generation).toBe(generation + 1);
      let ran = false;
      const written = await runtime.writeThroughDescriptor(generation, opened.fd, async () => {
        ran = true;
        return {};
      });
      expect(written).toBeUndefined();
      expect(ran).toBe(false);
    });
  },
);

describe('reopenForWriting', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-reopen-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reopens a regular file on the expected device, and nothing else', async () => {
    const file = path.join(dir, 'f.bin');
    writeFileSync(file, '');
    const fd = openSync(file, 'r');
    const devNull = openSync('/dev/null', 'r');
    try {
      const device = statSync(dir).dev;
      // The file itself, though this process opened it read-only: the reopen is write-only.
      const handle = await reopenForWriting(process.pid, fd, device);
      expect(handle).toBeDefined();
      await handle!.write(Buffer.from('via proc'), 0, 8, 0);
      await handle!.close();
      expect(statSync(file).size).toBe(8);
      // The same file, but said to be on another file system.
      expect(await reopenForWriting(process.pid, fd, device + 1)).toBeUndefined();
      // A device, a descriptor that is not open, and numbers that are not descriptors.
      expect(await reopenForWriting(process.pid, devNull, statSync('/dev/null').dev)).toBeUndefined();
      expect(await reopenForWriting(process.pid, 987_654, device)).toBeUndefined();
      expect(await reopenForWriting(process.pid, -1, device)).toBeUndefined();
      expect(await reopenForWriting(0, fd, device)).toBeUndefined();
    } finally {
      closeSync(fd);
      closeSync(devNull);
    }
  });
});

describe.skipIf(!isRoot)('an upload that fills the disk', () => {
  let dataDir: string | null = null;
  let t: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-upload-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { stdio: 'ignore' });
      dataDir = dir;
    } catch {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    t = await startApp({}, { dataDir });
  });
  afterAll(async () => {
    if (!dataDir) return;
    await t.close({ keepData: true });
    execFileSync('umount', ['-l', dataDir], { stdio: 'ignore' });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets 507, leaves no temp file, and the service goes on serving', async (context) => {
    if (!dataDir) {
      console.info('upload disk-full test skipped: cannot mount a tmpfs here');
      context.skip();
    }
    const s = await t.createSession({ profile: 'full' });
    const put = (name: string, body: Buffer) =>
      t.http
        .put(`/v1/sessions/${s.id}/files/${name}`)
        .set('authorization', `Bearer ${s.token}`)
        .set('content-type', 'application/octet-stream')
        .send(body);
    const full = await put('huge.bin', randomBytes(32 * 1024 * 1024));
    expect(full.status).toBe(507);
    expect(full.body.error.code).toBe('INSUFFICIENT_STORAGE');
    const left = await t.call(s, 'run_command', { command: 'ls -A' }).expect(200);
    expect(left.body.data.stdout).toBe('');
    const small = await put('small.txt', Buffer.from('fits'));
    expect(small.status).toBe(201);
    const read = await t.call(s, 'read_file', { path: 'small.txt' }).expect(200);
    expect(read.body.data.content).toBe('fits');
  });
});
