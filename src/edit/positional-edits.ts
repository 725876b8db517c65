// Edits given by position (a language server's TextEdits: 0-based line and UTF-16 character ranges)
// applied to a file's text, all at once; overlapping edits are refused rather than guessed at.
import { toolgateError } from '../lib/errors.js';

export interface PositionalEdit {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  newText: string;
}

/** The text with every edit applied (positions refer to the text before any of them). */
export function applyPositionalEdits(
  text: string,
  edits: readonly PositionalEdit[],
  displayPath: string,
): string {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const offset = ({ line, character }: { line: number; character: number }): number => {
    if (line >= lineStarts.length) return text.length;
    const lineEnd = line + 1 < lineStarts.length ? lineStarts[line + 1] - 1 : text.length;
    return Math.min(lineStarts[line] + character, lineEnd);
  };
  const spans = edits
    .map((edit) => ({ start: offset(edit.range.start), end: offset(edit.range.end), text: edit.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Infinity;
  for (const span of spans) {
    if (span.end > limit || span.end < span.start) {
      throw toolgateError('EDIT_NOT_FOUND', `The language server's edits of ${displayPath} overlap`, {
        suggestion: 'Rename with edit_file or multi_edit instead.',
      });
    }
    out = out.slice(0, span.start) + span.text + out.slice(span.end);
    limit = span.start;
  }
  return out;
}
