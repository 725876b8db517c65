// The walks behind list_directory, glob, grep and file_info, inside the runtime, on the one workspace
// walker (workspace-walk.ts). Symlinks are never followed; FIFOs, sockets and devices are listed as
// "other" and never opened.
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import picomatch from 'picomatch';
import { fromFsError, toolgateError } from '../../lib/errors.js';
import type { FileScan, ListedEntry, WalkOps } from '../ops/walk.js';
import { globPattern } from '../../search/globs.js';
import { VCS_DIRS } from '../../search/ignored-dirs.js';
import { walkWorkspace } from './workspace-walk.js';
import { ripgrepAvailable, runGrep } from './grep/select.js';
import { compilePattern } from './grep/javascript.js';
import { reply, type Handlers } from './handler.js';
import { looksBinary } from '../../lib/text.js';

const directoryStat = async (absolute: string, relative: string) => {
  const stat = await fs.stat(absolute).catch((err) => {
    throw fromFsError(err, relative);
  });
  if (!stat.isDirectory()) {
    throw toolgateError('NOT_A_DIRECTORY', `${relative} is not a directory`, {
      suggestion: 'Use read_file.',
    });
  }
};

/** Whether rg runs here: asked once per runtime. */
let ripgrep: Promise<boolean> | undefined;

/** One pass over a regular file through its descriptor: hash, line breaks, binary, BOM. */
async function scanFile(handle: fs.FileHandle, signal: AbortSignal): Promise<FileScan> {
  const hash = createHash('sha256');
  const scan = { binary: false, newlines: 0, crlf: 0, endsWithNewline: false, bom: false };
  let previous = -1;
  let first = true;
  for await (const raw of handle.createReadStream({ highWaterMark: 1024 * 1024, signal, autoClose: false })) {
    const chunk = raw as Buffer;
    hash.update(chunk);
    if (first) {
      scan.binary = looksBinary(chunk);
      scan.bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      first = false;
    }
    if (scan.binary) continue;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      scan.newlines++;
      if ((at > 0 ? chunk[at - 1] : previous) === 13) scan.crlf++;
    }
    if (chunk.length) {
      previous = chunk[chunk.length - 1];
      scan.endsWithNewline = previous === 10;
    }
  }
  return { ...scan, sha256: hash.digest('hex') };
}

export const walkHandlers: Handlers<WalkOps> = {
  async listDirectory({ path: input, depth, ignore, heavy, max }, _payload, { paths, signal }) {
    const root = await paths.resolve(input);
    await directoryStat(root.absolute, root.relative);
    const ignored = ignore.length ? picomatch(ignore, { dot: true }) : () => false;
    const entries: ListedEntry[] = [];
    const skipped: string[] = [];
    let truncated = false;
    const heavyNames = new Set(heavy);
    // Breadth-first so a cap keeps the top of the tree rather than one deep branch.
    for await (const entry of walkWorkspace({
      root: paths.root,
      dir: root.absolute,
      signal,
      gitignore: false,
      skipDirs: heavyNames,
      exclude: ({ path: relative, name }) => ignored(relative) || ignored(name),
      maxDepth: depth,
      breadthFirst: true,
      cancelled: 'The listing was cancelled',
    })) {
      if (entries.length >= max) {
        truncated = true;
        break;
      }
      const size =
        entry.type === 'file' ? (await fs.lstat(entry.absolute).catch(() => ({ size: 0 }))).size : 0;
      entries.push({ path: entry.path, type: entry.type, size });
      if (entry.type === 'directory' && heavyNames.has(entry.name)) skipped.push(entry.path);
    }
    return reply({ relative: root.relative, entries, truncated, skipped });
  },

  async glob({ path: input, pattern, includeIgnored }, _payload, { paths, signal }) {
    const dir = await paths.resolve(input);
    await directoryStat(dir.absolute, dir.relative);
    const { matches, mayEnter } = globPattern(pattern);
    const found: { path: string; mtimeMs: number }[] = [];
    for await (const entry of walkWorkspace({
      root: paths.root,
      dir: dir.absolute,
      signal,
      gitignore: !includeIgnored,
      skipDirs: VCS_DIRS,
      exclude: ({ inWalk, type }) => type === 'directory' && !mayEnter(inWalk),
      cancelled: 'The search was cancelled',
    })) {
      if ((entry.type !== 'file' && entry.type !== 'symlink') || !matches(entry.inWalk)) continue;
      let stat = await fs.lstat(entry.absolute).catch(() => undefined);
      if (entry.type === 'symlink') {
        const real = await fs.realpath(entry.absolute).catch(() => undefined);
        stat = real && paths.contains(real) ? await fs.stat(real).catch(() => undefined) : undefined;
      }
      if (!stat?.isFile()) continue;
      found.push({ path: entry.path, mtimeMs: stat.mtimeMs });
    }
    return reply({ relative: dir.relative, found });
  },

  async grep(args, _payload, { paths, signal }) {
    const target = await paths.resolve(args.path);
    const stat = await fs.stat(target.absolute).catch(() => null);
    if (!stat) throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${target.relative}`);
    ripgrep ??= ripgrepAvailable();
    const hasRipgrep = await ripgrep;
    // An invalid pattern is a 400 INVALID_REGEX whichever engine runs, and before anything else can fail:
    // where the JavaScript engine would judge it (no rg here, or asked for), it is compiled up front, so
    // a missing ripgrep or a FIFO that is never searched does not answer an invalid regex differently.
    if (args.engine === 'javascript' || !hasRipgrep) compilePattern(args);
    if (args.engine === 'ripgrep' && !hasRipgrep) {
      throw toolgateError('TOOL_FAILED', 'ripgrep is not installed here', {
        suggestion: 'Use engine: "auto" (the JavaScript engine gives the same results).',
      });
    }
    // A FIFO, socket or device is never searched (opening one could block).
    if (!stat.isDirectory() && !stat.isFile()) {
      return reply({
        relative: target.relative,
        hits: [],
        capped: false,
        engine: hasRipgrep && args.engine !== 'javascript' ? 'ripgrep' : 'javascript',
      });
    }
    const result = await runGrep(
      {
        pattern: args.pattern,
        fixedStrings: args.fixedStrings,
        caseInsensitive: args.caseInsensitive,
        multiline: args.multiline,
        context: args.context,
        globs: args.globs,
        workspaceRoot: paths.root,
        searchPath: target.absolute,
        maxHits: args.maxHits,
        countOnly: args.countOnly,
        pageMatches: args.pageMatches,
        signal,
      },
      args.engine,
      hasRipgrep,
    ).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT')
        throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${target.relative}`);
      if (signal.aborted) throw toolgateError('TIMEOUT', 'The search was cancelled');
      throw err;
    });
    return reply({ relative: target.relative, ...result });
  },

  async fileInfo({ path: input }, _payload, { paths, signal }) {
    const target = await paths.resolve(input, { followFinalSymlink: false });
    const stat = await fs.lstat(target.absolute).catch((err) => {
      throw fromFsError(err, target.relative);
    });
    const base = {
      relative: target.relative,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      mode: stat.mode & 0o7777,
    };
    if (stat.isSymbolicLink()) {
      const real = await fs.realpath(target.absolute).catch(() => undefined);
      const linkTarget = real && paths.contains(real) ? paths.toRelative(real) : null;
      return reply({ ...base, type: 'symlink' as const, linkTarget });
    }
    if (stat.isDirectory()) return reply({ ...base, type: 'directory' as const, size: 0 });
    if (!stat.isFile()) return reply({ ...base, type: 'other' as const });
    const handle = await fs.open(target.absolute, constants.O_RDONLY | constants.O_NONBLOCK).catch((err) => {
      throw fromFsError(err, target.relative);
    });
    try {
      const now = await handle.stat();
      if (!now.isFile()) return reply({ ...base, type: 'other' as const });
      return reply({ ...base, type: 'file' as const, scan: await scanFile(handle, signal) });
    } finally {
      await handle.close();
    }
  },
};
