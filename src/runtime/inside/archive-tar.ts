// tar.gz packing by the system's GNU tar, run inside the runtime (so inside the sandbox), for speed: tar
// reads and archives and gzip (or pigz) compresses in processes of their own, as `tar czf` does, instead
// of both in the runtime's one JS thread. What goes in is still decided by the runtime's walk
// (archive-pack.ts): it hands tar the names one by one (NUL-separated, on stdin) and tar archives exactly
// those, without recursing, following no symlink (-h is never given), storing hard-linked files as
// plain files, with uid/gid 0 and no owner names, like the tar-stream packer it stands in for. Without
// GNU tar the runtime packs with tar-stream (see archive-pack.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { toolgateError } from '../../lib/errors.js';

const firstExisting = (paths: string[]) => paths.find((p) => existsSync(p));

let found: { tar: string; compressor: string } | null | undefined;

/** GNU tar and a gzip compressor (pigz preferred: same format and default level 6), or null. */
export function systemTar(): { tar: string; compressor: string } | null {
  if (found !== undefined) return found;
  const tarPath = firstExisting(['/usr/bin/tar', '/bin/tar']);
  const compressor = firstExisting(['/usr/bin/pigz', '/usr/bin/gzip', '/bin/gzip']);
  const gnu =
    tarPath !== undefined &&
    /GNU tar/.test(spawnSync(tarPath, ['--version'], { encoding: 'utf8' }).stdout ?? '');
  found = gnu && compressor ? { tar: tarPath, compressor } : null;
  return found;
}

export interface TarProcess {
  /** Queues one name (relative to the directory tar runs in); waits while tar is behind. */
  add(name: string): Promise<void>;
  /** No more names. */
  end(): void;
  /** The tar.gz; ends only after tar exited successfully, fails with tar's complaint otherwise. */
  readonly output: PassThrough;
  /** Stops tar (the reader went away or the walk failed). */
  kill(err?: Error): void;
}

/** Starts `tar --create` of the names to come, relative to `directory`, compressed like `tar czf`. */
export function startTar(tools: { tar: string; compressor: string }, directory: string): TarProcess {
  const child = spawn(
    tools.tar,
    [
      '--create',
      '--file=-',
      `--directory=${directory}`,
      `--use-compress-program=${tools.compressor}`,
      '--no-recursion',
      '--null',
      '--verbatim-files-from',
      '--no-unquote',
      '--files-from=-',
      '--hard-dereference',
      '--numeric-owner',
      '--owner=0',
      '--group=0',
      // A file that vanished after the walk saw it is left out, as the tar-stream packer leaves it.
      '--ignore-failed-read',
      '--warning=no-file-changed',
      '--warning=no-file-removed',
      '--warning=no-failed-read',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } },
  );
  // Big reads of tar's output: fewer, fuller chunks to the service.
  const output = new PassThrough({ highWaterMark: 1024 * 1024 });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < 4096) stderr += text;
  });
  const stopped = () =>
    toolgateError(
      'TOOL_FAILED',
      `tar stopped before the walk ended${stderr.trim() ? `: ${stderr.trim()}` : ''}`,
    );
  // Once tar is gone (or stopped), nothing may wait on its stdin any more.
  const gone = new AbortController();
  child.stdin!.on('error', () => undefined);
  child.on('error', (err) => {
    gone.abort();
    output.destroy(err);
  });
  child.stdout!.pipe(output, { end: false });
  // 'close' comes after stdout ended (all of it piped on) and tar exited.
  child.once('close', (code, signal) => {
    gone.abort();
    // Exit 1 is "some file changed while read": the archive is complete, as tar-stream's would be.
    if (code === 0 || code === 1) output.end();
    else if (!output.destroyed)
      output.destroy(
        toolgateError('TOOL_FAILED', `tar failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`),
      );
  });
  return {
    output,
    async add(name) {
      if (gone.signal.aborted || child.stdin!.destroyed) throw stopped();
      if (child.stdin!.write(`${name}\0`)) return;
      // tar can exit (a directory swapped away under it) before its 'close' is seen: the wait then ends
      // with an EPIPE on its stdin instead of the abort, and either way the answer is that tar stopped,
      // with its complaint, not a failed file operation.
      await once(child.stdin!, 'drain', { signal: gone.signal }).catch(() => {
        throw stopped();
      });
    },
    end: () => child.stdin!.end(),
    kill(err) {
      if (!gone.signal.aborted) child.kill('SIGKILL');
      gone.abort();
      output.destroy(err);
    },
  };
}
