// The reads behind the code index and the project tools, inside the runtime (see ../ops/source.ts).
import path from 'node:path';
import type { SourceFilter, SourceOps } from '../ops/source.js';
import { reply, type Handlers } from './handler.js';
import { openRegular } from './stat.js';
import { readMany } from './read-many.js';
import { walkSourceFiles } from './workspace-walk.js';

const accepts = (filter: SourceFilter) => {
  const extensions = filter.extensions && new Set(filter.extensions.map((e) => e.toLowerCase()));
  const excluded = filter.excludeSuffixes ?? [];
  return (relative: string) =>
    (!extensions || extensions.has(path.posix.extname(relative).toLowerCase())) &&
    !excluded.some((suffix) => relative.endsWith(suffix));
};

/** Files read at once: enough to keep the disk busy, few enough to bound memory. */

export const sourceHandlers: Handlers<SourceOps> = {
  async walkSource({ path: input, filter, maxFiles }, _payload, { paths, signal }) {
    const dir = await paths.resolve(input);
    const result = await walkSourceFiles({
      root: paths.root,
      dir: dir.absolute,
      signal,
      accept: accepts(filter),
      maxFiles,
    });
    return reply(result);
  },

  async readFiles({ paths: wanted, maxBytesEach }, _payload, { paths }) {
    const { sizes, payload } = await readMany(wanted.length, async (i) => {
      try {
        const target = await paths.resolve(wanted[i]);
        const { handle, stat } = await openRegular(target.absolute, target.relative);
        try {
          return stat.size <= maxBytesEach ? await handle.readFile() : null;
        } finally {
          await handle.close();
        }
      } catch {
        // Missing, outside, not a regular file or unreadable: reported as null.
        return null;
      }
    });
    return reply({ sizes }, payload);
  },
};
