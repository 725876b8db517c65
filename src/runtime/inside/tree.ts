// Packing and unpacking directories for the history (see ../ops/tree.ts). Never follows a symlink: links
// are recorded as links; FIFOs, sockets and devices are skipped (they cannot be kept as content).
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { fromFsError, toolgateError } from '../../lib/errors.js';
import type { TreeEntry, TreeOps } from '../ops/tree.js';
import { reply, type Handlers } from './handler.js';
import { readRegular } from './files.js';
import { makeDirs } from '../../lib/make-dirs.js';
import { walkWorkspace } from './workspace-walk.js';

export const treeHandlers: Handlers<TreeOps> = {
  async packTree({ path: input, maxBytes }, _payload, { paths, signal }) {
    const root = await paths.resolve(input, { followFinalSymlink: false });
    const entries: TreeEntry[] = [];
    const chunks: Buffer[] = [];
    let bytes = 0;
    const add = async (absolute: string, relative: string, stat: Stats): Promise<void> => {
      const mode = stat.mode & 0o7777;
      if (stat.isSymbolicLink())
        entries.push({ path: relative, type: 'symlink', mode, linkTarget: await fs.readlink(absolute) });
      else if (stat.isDirectory()) entries.push({ path: relative, type: 'directory', mode });
      else if (stat.isFile()) {
        const file = await readRegular(absolute, relative, maxBytes - bytes);
        bytes += file.bytes.length;
        chunks.push(file.bytes);
        entries.push({ path: relative, type: 'file', mode, size: file.bytes.length });
      }
    };
    // The directory, then everything under it through the one walker (nothing skipped or ignored; a
    // directory always comes before its entries, which is all unpacking needs).
    const visit = async (): Promise<void> => {
      const stat = await fs.lstat(root.absolute);
      await add(root.absolute, '', stat);
      if (!stat.isDirectory()) return;
      for await (const entry of walkWorkspace({
        root: paths.root,
        dir: root.absolute,
        signal,
        gitignore: false,
        skipDirs: new Set(),
        strict: true,
        cancelled: 'Packing was cancelled',
      })) {
        await add(entry.absolute, entry.inWalk, await fs.lstat(entry.absolute));
      }
    };
    try {
      await visit();
    } catch (err) {
      if (err instanceof Error && err.name === 'ToolgateError') {
        if ((err as { code?: string }).code === 'FILE_TOO_LARGE') {
          throw toolgateError('FILE_TOO_LARGE', `${root.relative} holds more than ${maxBytes} bytes`);
        }
        throw err;
      }
      throw fromFsError(err, root.relative);
    }
    return reply({ relative: root.relative, entries, bytes }, Buffer.concat(chunks));
  },

  async unpackTree({ path: input, entries }, payload, { paths, usage }) {
    const root = await paths.resolve(input, { followFinalSymlink: false });
    if (await fs.lstat(root.absolute).catch(() => null))
      throw toolgateError('ALREADY_EXISTS', `${root.relative} already exists`);
    let offset = 0;
    try {
      await makeDirs(path.dirname(root.absolute));
      for (const entry of entries) {
        // Entry paths come from our own pack; still, none may climb out of the directory.
        const parts = entry.path.split('/');
        if (parts.includes('..') || path.isAbsolute(entry.path))
          throw toolgateError('INVALID_PATH', 'Bad entry in a packed tree');
        const absolute = entry.path === '' ? root.absolute : path.join(root.absolute, ...parts);
        if (entry.type === 'directory') await fs.mkdir(absolute, { mode: entry.mode });
        else if (entry.type === 'symlink') await fs.symlink(entry.linkTarget ?? '', absolute);
        else {
          const size = entry.size ?? 0;
          await fs.writeFile(absolute, payload.subarray(offset, offset + size), {
            mode: entry.mode,
            flag: 'wx',
          });
          offset += size;
        }
      }
      for (const entry of entries.filter((e) => e.type === 'directory')) {
        await fs.chmod(
          entry.path === '' ? root.absolute : path.join(root.absolute, ...entry.path.split('/')),
          entry.mode,
        );
      }
    } catch (err) {
      if (err instanceof Error && err.name === 'ToolgateError') throw err;
      throw fromFsError(err, root.relative);
    } finally {
      usage.invalidate();
    }
    return reply({ relative: root.relative });
  },
};
