// Renders changes between two snapshots as a git patch that `git apply` accepts: `diff --git` headers,
// new/deleted file modes, mode changes, exact renames, text hunks (jsdiff's structuredPatch), and binary
// files (or text too large or slow to diff) as a GIT binary patch with full index lines. Also counts
// the lines added and removed per file for the JSON summary.
import { createHash } from 'node:crypto';
import { structuredPatch } from 'diff';
import { literalHunk } from './base85.js';
import type { FileChange } from './changes.js';
import { gitMode, type ManifestEntry } from './manifest.js';

/** Text files larger than this are shown as binary literals: a line diff of them costs too much here. */
const MAX_TEXT_DIFF_BYTES = 4 * 1024 * 1024;
/** A line diff that takes longer than this is abandoned for a binary literal (still exact). */
const DIFF_TIMEOUT_MS = 2000;
const ZERO_ID = '0'.repeat(40);

export interface FileStats {
  readonly binary: boolean;
  readonly additions: number;
  readonly deletions: number;
}

export interface RenderedChange extends FileStats {
  readonly text: string;
}

/** The content of one side of a change (a symlink's content is its target). */
export type ContentOf = (entry: ManifestEntry) => Promise<Buffer>;

const gitBlobId = (content: Uint8Array) =>
  createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text as git decides it (no NUL in the first 8000 bytes), and valid UTF-8 so the patch stays UTF-8. */
function asText(content: Buffer): string | undefined {
  if (content.length > MAX_TEXT_DIFF_BYTES) return undefined;
  if (content.subarray(0, 8000).includes(0)) return undefined;
  try {
    return utf8.decode(content);
  } catch {
    return undefined;
  }
}

const ESCAPES: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

const needsQuoting = (ch: string) => ch === '"' || ch === '\\' || ch.charCodeAt(0) < 0x20 || ch === '\u007f';

/** A path as git writes it: C-quoted when it holds quotes, backslashes or control characters. */
export function quotePath(name: string): string {
  if (![...name].some(needsQuoting)) return name;
  const body = [...name]
    .map((ch) =>
      needsQuoting(ch) ? (ESCAPES[ch] ?? `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`) : ch,
    )
    .join('');
  return `"${body}"`;
}

const side = (prefix: 'a/' | 'b/', entry: ManifestEntry | undefined) =>
  entry ? quotePath(prefix + entry.path) : '/dev/null';

function textHunks(
  oldText: string,
  newText: string,
): { text: string; additions: number; deletions: number } | undefined {
  const patch = structuredPatch('', '', oldText, newText, undefined, undefined, {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return undefined;
  let additions = 0;
  let deletions = 0;
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
      lines.push(line);
    }
  }
  return { text: lines.length > 0 ? `${lines.join('\n')}\n` : '', additions, deletions };
}

/** One file's part of the patch (a type change is a deletion followed by an addition). */
export async function renderChange(change: FileChange, contentOf: ContentOf): Promise<RenderedChange> {
  if (change.status === 'type_changed') {
    const removed = await renderChange({ status: 'deleted', before: change.before }, contentOf);
    const added = await renderChange({ status: 'added', after: change.after }, contentOf);
    return {
      text: removed.text + added.text,
      binary: removed.binary || added.binary,
      additions: added.additions,
      deletions: removed.deletions,
    };
  }
  const { before, after } = change;
  const header = [`diff --git ${side('a/', before ?? after)} ${side('b/', after ?? before)}`];
  if (!before) header.push(`new file mode ${gitMode(after!)}`);
  else if (!after) header.push(`deleted file mode ${gitMode(before)}`);
  else if (gitMode(before) !== gitMode(after))
    header.push(`old mode ${gitMode(before)}`, `new mode ${gitMode(after)}`);
  if (change.status === 'renamed') {
    header.push(
      'similarity index 100%',
      `rename from ${quotePath(before!.path)}`,
      `rename to ${quotePath(after!.path)}`,
    );
  }
  const oldContent = before ? await contentOf(before) : Buffer.alloc(0);
  const newContent = after ? await contentOf(after) : Buffer.alloc(0);
  if (before && after && oldContent.equals(newContent)) {
    // Only the mode, or a rename of identical content: the header says it all.
    return { text: `${header.join('\n')}\n`, binary: false, additions: 0, deletions: 0 };
  }
  const sameMode = before && after && gitMode(before) === gitMode(after);
  const oldId = before ? gitBlobId(oldContent) : ZERO_ID;
  const newId = after ? gitBlobId(newContent) : ZERO_ID;
  header.push(`index ${oldId}..${newId}${sameMode ? ` ${gitMode(after!)}` : ''}`);
  const oldText = asText(oldContent);
  const newText = asText(newContent);
  const hunks = oldText !== undefined && newText !== undefined ? textHunks(oldText, newText) : undefined;
  if (hunks) {
    const names = hunks.text ? `--- ${side('a/', before)}\n+++ ${side('b/', after)}\n` : '';
    const { additions, deletions } = hunks;
    return { text: `${header.join('\n')}\n${names}${hunks.text}`, binary: false, additions, deletions };
  }
  const binary = `GIT binary patch\n${literalHunk(newContent)}${literalHunk(oldContent)}`;
  return { text: `${header.join('\n')}\n${binary}`, binary: true, additions: 0, deletions: 0 };
}
