// The JavaScript engine, used when ripgrep is not installed: walks the tree like rg (hidden files
// included, .git and .gitignore'd entries skipped by the one .gitignore policy, symlinks never
// followed, binary files skipped) and
// streams each file line by line, with rg's context semantics. Multiline searches read whole files.
import { createReadStream, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { toolgateError } from '../../../lib/errors.js';
import { grepGlobFilters } from '../../../search/globs.js';
import { VCS_DIRS } from '../../../search/ignored-dirs.js';
import { walkWorkspace } from '../workspace-walk.js';

/** ripgrep's first read buffer: a NUL byte in it makes the file binary and skipped. */
export const BINARY_SAMPLE_BYTES = 64 * 1024;
const isBinary = (bytes: Buffer) => bytes.subarray(0, BINARY_SAMPLE_BYTES).includes(0);
import { normalizeHitText, type EngineResult, type GrepHit, type GrepQuery } from './types.js';

/** Files up to this size are read in one piece; larger ones are streamed in chunks of this size. */
const WHOLE_FILE_BYTES = 256 * 1024;
/** Files searched at the same time. */
const PARALLEL_FILES = 16;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compilePattern(
  query: Pick<GrepQuery, 'pattern' | 'fixedStrings' | 'caseInsensitive' | 'multiline'>,
): RegExp {
  const source = query.fixedStrings ? escapeRegExp(query.pattern) : query.pattern;
  const flags = `${query.multiline ? 'gms' : ''}${query.caseInsensitive ? 'i' : ''}`;
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw toolgateError('INVALID_REGEX', `Invalid pattern: ${(err as Error).message}`, {
      suggestion: 'Fix the regular expression, or pass fixed_strings: true to search literally.',
    });
  }
}

/**
 * A cheap "can this file match at all?" check over a whole file. A literal, case-sensitive pattern is
 * looked up in the raw bytes (no decoding); otherwise the pattern runs with line anchors over the text.
 * It only errs towards "maybe": the per-line search decides.
 */
function wholeFileCheck(query: GrepQuery, regex: RegExp): (bytes: Buffer) => boolean {
  if (!query.caseInsensitive && (query.fixedStrings || !/[\\^$.|?*+()[\]{}]/.test(query.pattern))) {
    const needle = Buffer.from(query.pattern, 'utf8');
    return (bytes) => bytes.includes(needle);
  }
  const anchored = new RegExp(regex.source, `${regex.flags}m`);
  return (bytes) => anchored.test(bytes.toString('utf8'));
}

/** The files to search, in a stable order, on the one workspace walker (.git and .gitignore'd entries left out). */
async function* walk(query: GrepQuery): AsyncGenerator<string> {
  const { override } = grepGlobFilters(query.globs);
  for await (const entry of walkWorkspace({
    root: query.workspaceRoot,
    dir: query.searchPath,
    signal: query.signal,
    gitignore: true,
    skipDirs: VCS_DIRS,
    override: ({ inWalk, type }) => override(inWalk, type === 'directory'),
    cancelled: 'The search was cancelled',
  })) {
    if (entry.type === 'file') yield entry.absolute;
  }
}

/** Per-line search with rg's context rules: up to N lines before and after each match, never twice. */
async function searchStreaming(
  file: string,
  relative: string,
  regex: RegExp,
  query: GrepQuery,
  hits: GrepHit[],
  prefilter?: (bytes: Buffer) => boolean,
): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const before: { line: number; text: string }[] = [];
  let afterLeft = 0;
  let lineNumber = 0;
  let partial = '';
  let first = true;
  const onLine = (text: string) => {
    lineNumber++;
    if (regex.test(text)) {
      for (const b of before.splice(0))
        hits.push({ path: relative, line: b.line, text: normalizeHitText(b.text), context: true });
      hits.push({ path: relative, line: lineNumber, text: normalizeHitText(text), context: false });
      afterLeft = query.context;
    } else if (afterLeft > 0) {
      hits.push({ path: relative, line: lineNumber, text: normalizeHitText(text), context: true });
      afterLeft--;
    } else if (query.context > 0) {
      before.push({ line: lineNumber, text });
      if (before.length > query.context) before.shift();
    }
  };
  // Most files are small: read them whole and skip them at once when nothing can match (the prefilter
  // only errs towards "maybe"; the per-line test decides). Large files are streamed.
  const { size } = await fs.stat(file);
  const whole = size <= WHOLE_FILE_BYTES;
  const chunks = whole ? [readFileSync(file)] : createReadStream(file, { highWaterMark: WHOLE_FILE_BYTES });
  for await (const raw of chunks) {
    const chunk = raw as Buffer;
    if (first && isBinary(chunk)) return;
    if (first && whole && prefilter && !prefilter(chunk)) return;
    first = false;
    const text = partial + decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    partial = text.slice(start);
  }
  partial += decoder.end();
  if (partial.length) onLine(partial);
}

/** Multiline search over the whole file; matches sharing a line are reported as one hit, like rg. */
async function searchWhole(
  file: string,
  relative: string,
  regex: RegExp,
  query: GrepQuery,
  hits: GrepHit[],
): Promise<void> {
  const bytes = await fs.readFile(file);
  if (isBinary(bytes)) return;
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const lineAt: number[] = [];
  for (let i = 0, offset = 0; i < lines.length; i++) {
    lineAt.push(offset);
    offset += lines[i].length + 1;
  }
  const lineOf = (index: number) => {
    let lo = 0;
    let hi = lineAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineAt[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const ranges: [number, number][] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    if (m[0].length === 0) {
      regex.lastIndex++;
      if (m.index >= text.length) break;
    }
    const start = lineOf(m.index);
    const end = lineOf(Math.max(m.index, m.index + m[0].length - 1));
    const last = ranges[ranges.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  let emittedUpTo = -1;
  ranges.forEach(([start, end], i) => {
    const nextStart = i + 1 < ranges.length ? ranges[i + 1][0] : lines.length;
    for (let l = Math.max(emittedUpTo + 1, start - query.context); l < start; l++) {
      hits.push({ path: relative, line: l + 1, text: normalizeHitText(lines[l]), context: true });
    }
    hits.push({
      path: relative,
      line: start + 1,
      text: normalizeHitText(lines.slice(start, end + 1).join('\n')),
      context: false,
    });
    const afterEnd = Math.min(end + query.context, nextStart - 1, lines.length - 1);
    for (let l = end + 1; l <= afterEnd; l++) {
      hits.push({ path: relative, line: l + 1, text: normalizeHitText(lines[l]), context: true });
    }
    emittedUpTo = Math.max(end, afterEnd);
  });
}

export async function javascriptEngine(query: GrepQuery): Promise<EngineResult> {
  const regex = compilePattern(query);
  // The pattern with line anchors over a whole file: a cheap "can anything match here?" check.
  const prefilter = query.multiline ? undefined : wholeFileCheck(query, regex);
  const hits: GrepHit[] = [];
  const stat = await fs.stat(query.searchPath);
  const files = stat.isDirectory() ? walk(query) : [query.searchPath];
  // Small files are I/O bound: keep several in flight. Hits are sorted by the caller, so their
  // interleaving does not matter. Tasks never reject; the first failure is rethrown after the rest.
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  for await (const file of files) {
    if (failure !== undefined || hits.length >= query.maxHits) break;
    if (query.signal.aborted) throw query.signal.reason;
    const relative = path.relative(query.workspaceRoot, file).split(path.sep).join('/');
    const search = query.multiline
      ? searchWhole(file, relative, regex, query, hits)
      : searchStreaming(file, relative, regex, query, hits, prefilter);
    const task: Promise<void> = search
      .catch((err: NodeJS.ErrnoException) => {
        if (query.signal.aborted || !['EACCES', 'ENOENT', 'EISDIR'].includes(err.code ?? '')) failure ??= err;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
    if (inFlight.size >= PARALLEL_FILES) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  if (query.signal.aborted) throw query.signal.reason;
  if (failure !== undefined) throw failure;
  if (hits.length >= query.maxHits) return { hits: hits.slice(0, query.maxHits), capped: true };
  return { hits, capped: false };
}
