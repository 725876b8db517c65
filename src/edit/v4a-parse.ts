// Parses V4A patches, the format OpenAI's models write for apply_patch ("*** Begin Patch", "*** Add /
// Delete / Update File:", "*** Move to:", "@@ context" hints, "*** End of File", "*** End Patch"), into
// file operations. Pure text work, no I/O: v4a-apply.ts places the chunks, v4a-plan.ts reads the files.
// As lenient as models need (padded markers, a heredoc or code-fence wrapper, a git-style "@@ -1,3 +1,4 @@"
// header, blank context lines without their space) and strict where leniency could lose data: a patch
// without "*** End Patch" may have been cut off, so it is refused.
import { toolgateError } from '../lib/errors.js';
import { toLf } from './text-file.js';

export type ChunkOp = ' ' | '-' | '+';

export interface ChunkLine {
  op: ChunkOp;
  text: string;
}

export interface V4aChunk {
  /** The "@@ <line>" hints above the chunk, outermost first (e.g. "class A", then "def run(self):"). */
  anchors: string[];
  lines: ChunkLine[];
  /** "*** End of File": the chunk's old lines end the file. */
  eof: boolean;
  /** 1-based line of the patch where the chunk starts, for errors. */
  patchLine: number;
}

export type V4aOperation =
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: V4aChunk[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File:';
const DELETE = '*** Delete File:';
const UPDATE = '*** Update File:';
const MOVE = '*** Move to:';
const EOF_MARK = '*** End of File';
const FILE_HEADERS = [ADD, DELETE, UPDATE];

/** True when `text` is a V4A patch rather than a unified diff: its first line (inside a wrapper) is a marker. */
export function isV4aPatch(text: string): boolean {
  const lines = toLf(text).trimStart().split('\n', 2);
  const first = /^(apply_patch\s+)?<<|^```/.test(lines[0].trim()) ? (lines[1] ?? '') : lines[0];
  return /^\s*\*\*\* (Begin Patch|Add File:|Delete File:|Update File:)/.test(first);
}

const failure = (message: string, suggestion: string, line?: number) =>
  toolgateError('PATCH_FAILED', line === undefined ? message : `Patch line ${line}: ${message}`, {
    suggestion,
    details: line === undefined ? { format: 'v4a' } : { format: 'v4a', patchLine: line },
  });

const GRAMMAR =
  'A V4A patch is "*** Begin Patch", then per file "*** Add File: <path>" with "+" lines, ' +
  '"*** Delete File: <path>", or "*** Update File: <path>" (optionally "*** Move to: <path>") with ' +
  '"@@ <line near the change>" and lines starting with " " (context), "-" (removed) or "+" (added), ' +
  'and "*** End Patch" last.';

/** Drops a wrapper models put around patches: a heredoc (`<<'EOF'` … `EOF`) or a markdown code fence. */
function unwrap(lines: string[]): string[] {
  const first = lines[0]?.trim() ?? '';
  const last = lines.at(-1)?.trim() ?? '';
  if (/^(apply_patch\s+)?<<\s*(['"]?)EOF\2$/.test(first) && last.endsWith('EOF')) return lines.slice(1, -1);
  if (first.startsWith('```') && last === '```') return lines.slice(1, -1);
  return lines;
}

/** The patch's lines between the Begin and End markers (Begin may be missing; End may not). */
function body(text: string): { lines: string[]; offset: number } {
  let lines = toLf(text).split('\n');
  while (lines.length && lines.at(-1)!.trim() === '') lines.pop();
  let offset = lines.findIndex((line) => line.trim() !== '');
  if (offset < 0) offset = lines.length;
  lines = lines.slice(offset);
  const unwrapped = unwrap(lines);
  if (unwrapped !== lines) offset++;
  lines = unwrapped;
  if (lines.at(-1)?.trim() !== END) {
    throw failure(
      'The patch does not end with "*** End Patch" (was it cut off?); nothing was changed',
      `Send the whole patch, ending with a "*** End Patch" line. ${GRAMMAR}`,
    );
  }
  lines = lines.slice(0, -1);
  if (lines[0]?.trim() === BEGIN) return { lines: lines.slice(1), offset: offset + 1 };
  return { lines, offset };
}

/**
 * The marker a line is, if any. Padding is forgiven, but not a leading " ", "+" or "-": that is a line
 * of a file's content (a document about patches may hold "*** Add File:" as a context line).
 */
const headerOf = (line: string): string | undefined => {
  if (line[0] === ' ' || line[0] === '+' || line[0] === '-') return undefined;
  const trimmed = line.trim();
  return [...FILE_HEADERS, MOVE, EOF_MARK, BEGIN, END].find((h) => trimmed.startsWith(h));
};

const pathAfter = (line: string, header: string, at: number): string => {
  const path = line.trim().slice(header.length).trim();
  if (!path) throw failure(`"${header}" needs a path`, `Write it as "${header} src/file.ts".`, at);
  return path;
};

/** A git-style hunk header inside a V4A patch ("@@ -12,5 +12,6 @@ fn x"): its trailing text is the hint. */
const GIT_HUNK = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@\s?(.*)$/;

function anchorOf(line: string): string | null {
  const hint = line.trim() === '@@' ? '' : line.replace(/^\s*@@ ?/, '');
  const git = GIT_HUNK.exec(hint.trim());
  const text = git ? git[1] : hint;
  return text.trim() === '' ? null : text;
}

/**
 * The chunks of an update: the lines after "*** Update File:" (and "*** Move to:") up to the next file
 * header. `first` is the patch line number of lines[0]. Also reads the `diff` of an OpenAI
 * apply_patch_call's update_file operation, which is exactly this part.
 */
export function parseUpdateBody(lines: string[], first: number, path: string): V4aChunk[] {
  const chunks: V4aChunk[] = [];
  let current: V4aChunk | undefined;
  let anchors: string[] = [];
  /** The first "@@" line of the chunk being opened, if it had one. */
  let hintLine: number | undefined;
  const open = (at: number) => {
    current = { anchors, lines: [], eof: false, patchLine: hintLine ?? at };
    chunks.push(current);
    anchors = [];
    hintLine = undefined;
  };
  lines.forEach((line, index) => {
    const at = first + index;
    if (line.trimStart().startsWith('@@')) {
      // A "@@" after lines starts a new chunk; consecutive "@@" lines nest (outer scope first).
      if (current && current.lines.length) current = undefined;
      hintLine ??= at;
      const anchor = anchorOf(line);
      if (anchor !== null) anchors.push(anchor);
      return;
    }
    if (headerOf(line) === EOF_MARK) {
      if (!current || !current.lines.length) {
        throw failure('"*** End of File" must follow the lines of a chunk', GRAMMAR, at);
      }
      current.eof = true;
      current = undefined;
      return;
    }
    // Blank lines before a chunk, or between "@@" hints and lines, separate; they are no context.
    if (line.trim() === '' && !current) return;
    const op = line[0];
    if (op !== ' ' && op !== '-' && op !== '+' && line !== '') {
      throw failure(
        `"${line.slice(0, 80)}" in the update of ${path} starts with neither " ", "-" nor "+"`,
        'Every line of an update starts with " " (unchanged context), "-" (removed) or "+" (added); ' +
          "a context line keeps its leading space before the file's own indentation.",
        at,
      );
    }
    if (!current) open(at);
    // An empty line is a blank context line whose space was lost (editors strip trailing spaces).
    current!.lines.push(line === '' ? { op: ' ', text: '' } : { op: op as ChunkOp, text: line.slice(1) });
  });
  if (anchors.length) {
    throw failure(
      `The "@@ ${anchors.at(-1)}" line in the update of ${path} is not followed by any lines`,
      GRAMMAR,
      hintLine,
    );
  }
  for (const chunk of chunks) {
    // Blank context lines at a chunk's end are usually the gap before the next "@@": not needed to match.
    while (chunk.lines.length > 1 && chunk.lines.at(-1)!.op === ' ' && chunk.lines.at(-1)!.text === '') {
      chunk.lines.pop();
    }
  }
  return chunks;
}

/** The content of an added file from its "+" lines (a bare empty line counts as an empty line). */
export function parseAddBody(lines: string[], first: number, path: string): string {
  const content: string[] = [];
  lines.forEach((line, index) => {
    if (line === '' || line.startsWith('+')) content.push(line.slice(1));
    else {
      throw failure(
        `"${line.slice(0, 80)}" in the new file ${path} does not start with "+"`,
        'Every line of an added file starts with "+", followed by the line as it should be.',
        first + index,
      );
    }
  });
  return content.length ? `${content.join('\n')}\n` : '';
}

export function parseV4aPatch(text: string): V4aOperation[] {
  const { lines, offset } = body(text);
  const operations: V4aOperation[] = [];
  let index = 0;
  const lineNo = (i: number) => offset + i + 1;
  while (index < lines.length) {
    const line = lines[index];
    if (line.trim() === '') {
      index++;
      continue;
    }
    const header = headerOf(line.trimStart());
    if (!header || !FILE_HEADERS.includes(header)) {
      throw failure(
        `Expected a file header ("*** Add File:", "*** Delete File:" or "*** Update File:"), got "${line.slice(0, 80)}"`,
        GRAMMAR,
        lineNo(index),
      );
    }
    const path = pathAfter(line, header, lineNo(index));
    let end = index + 1;
    // Content lines of an update may hold marker text behind their " ", "+" or "-"; an added file's
    // lines all start with "+", and a deletion has none, so after those a padded header is a header.
    const headerAt = header === UPDATE ? headerOf : (l: string) => headerOf(l.trimStart());
    while (end < lines.length && !FILE_HEADERS.includes(headerAt(lines[end]) ?? '')) end++;
    const section = lines.slice(index + 1, end);
    if (header === DELETE) {
      const extra = section.findIndex((l) => l.trim() !== '');
      if (extra >= 0) {
        throw failure(
          `"*** Delete File: ${path}" is followed by lines; a deletion takes none`,
          GRAMMAR,
          lineNo(index + 1 + extra),
        );
      }
      operations.push({ kind: 'delete', path });
    } else if (header === ADD) {
      while (section.length && section.at(-1) === '') section.pop();
      operations.push({ kind: 'add', path, content: parseAddBody(section, lineNo(index + 1), path) });
    } else {
      const moveAt = section.findIndex((l) => l.trim() !== '');
      const moveTo =
        moveAt >= 0 && headerOf(section[moveAt]) === MOVE
          ? pathAfter(section[moveAt], MOVE, lineNo(index + 1 + moveAt))
          : undefined;
      const rest = moveTo === undefined ? section : section.slice(moveAt + 1);
      const restStart = lineNo(index + 1 + (moveTo === undefined ? 0 : moveAt + 1));
      const chunks = parseUpdateBody(rest, restStart, path);
      if (!chunks.length && moveTo === undefined) {
        throw failure(`"*** Update File: ${path}" has no changes`, GRAMMAR, lineNo(index));
      }
      operations.push({ kind: 'update', path, ...(moveTo !== undefined ? { moveTo } : {}), chunks });
    }
    index = end;
  }
  if (!operations.length) {
    throw failure('The patch changes no file', GRAMMAR);
  }
  return operations;
}
