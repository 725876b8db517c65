// Workspace templates: directories under TOOLGATE_TEMPLATES_DIR (the operator's, read-only to us), named
// by POST /v1/sessions `template`. A template is streamed as a tar into the new session's runtime, which
// extracts it under the same rules as any uploaded archive; the service reads the operator's directory,
// never the workspace. Symlinks are kept as symlinks, other special files left out.
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { toolgateError } from '../lib/errors.js';

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The template's directory, or 400/404 with what to do. */
export async function templateDir(templatesDir: string | undefined, name: string): Promise<string> {
  if (!templatesDir)
    throw toolgateError('BAD_REQUEST', 'Templates are not configured on this server', {
      suggestion: 'The operator sets TOOLGATE_TEMPLATES_DIR to a directory of template directories.',
    });
  if (!TEMPLATE_NAME.test(name))
    throw toolgateError('VALIDATION_FAILED', `"${name.slice(0, 80)}" is not a template name`, {
      suggestion: 'A template is named by its directory: letters, digits, ".", "_" and "-".',
    });
  const dir = path.join(templatesDir, name);
  const stat = await fs.stat(dir).catch(() => null);
  if (!stat?.isDirectory()) {
    const known = await fs.readdir(templatesDir).catch(() => [] as string[]);
    throw toolgateError('NOT_FOUND', `No template named ${name}`, {
      suggestion: `Known templates: ${
        known
          .filter((n) => TEMPLATE_NAME.test(n))
          .slice(0, 20)
          .join(', ') || 'none'
      }.`,
    });
  }
  return dir;
}

/** The template directory as a tar stream, walked as it is read. */
export function templateTar(dir: string): Readable {
  const pack = tar.pack();
  const add = (header: Partial<tar.Header> & { name: string }, body: Buffer = Buffer.alloc(0)) =>
    new Promise<void>((resolve, reject) =>
      pack.entry(header, body, (err) => (err ? reject(err) : resolve())),
    );
  const addFile = async (name: string, file: string, stat: Stats) => {
    let settle!: (err?: Error | null) => void;
    const written = new Promise<void>(
      (resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())),
    );
    const entry = pack.entry({ name, size: stat.size, mode: stat.mode & 0o7777, mtime: stat.mtime }, settle);
    const handle = await fs.open(file);
    try {
      const content =
        stat.size === 0 ? [] : handle.createReadStream({ autoClose: false, start: 0, end: stat.size - 1 });
      for await (const chunk of content) {
        if (!entry.write(chunk as Buffer))
          await new Promise<void>((resolve) => entry.once('drain', () => resolve()));
      }
    } finally {
      await handle.close();
    }
    entry.end(undefined as never);
    await written;
  };
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const dirent of (await fs.readdir(at, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const file = path.join(at, dirent.name);
      const name = `${prefix}${dirent.name}`;
      const stat = await fs.lstat(file);
      if (stat.isDirectory()) {
        await add({ name: `${name}/`, type: 'directory', mode: stat.mode & 0o7777 });
        await walk(file, `${name}/`);
      } else if (stat.isSymbolicLink())
        await add({ name, type: 'symlink', linkname: await fs.readlink(file) });
      else if (stat.isFile()) await addFile(name, file, stat);
    }
  };
  walk(dir, '').then(
    () => pack.finalize(),
    (err: Error) => pack.destroy(err),
  );
  return pack as unknown as Readable;
}
