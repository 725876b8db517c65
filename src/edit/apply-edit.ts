// Applies one old_string → new_string edit to LF text with the strategy cascade, and turns "not found"
// and "found several times" into errors a model can act on (closest region, line numbers).
import { toolgateError } from '../lib/errors.js';
import { STRATEGIES, type Region, type StrategyName } from './edit-strategies.js';
import { closestRegion } from './similarity.js';

export interface Edit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface EditOutcome {
  text: string;
  replacements: number;
  strategy: StrategyName;
}

const MAX_SUGGESTION_CHARS = 1500;

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** Splices replacements into `text` by position, so `$&`, `$$` and the like stay literal. */
function splice(text: string, regions: Region[], replacementFor: (matched: string) => string): string {
  let out = '';
  let last = 0;
  for (const region of regions) {
    out += text.slice(last, region.start) + replacementFor(text.slice(region.start, region.end));
    last = region.end;
  }
  return out + text.slice(last);
}

function notFound(text: string, edit: Edit, displayPath: string, context: string): never {
  const closest = closestRegion(text.split('\n'), edit.old_string);
  const shown = closest
    ? closest.text.length > MAX_SUGGESTION_CHARS
      ? `${closest.text.slice(0, MAX_SUGGESTION_CHARS)}…`
      : closest.text
    : '';
  throw toolgateError('EDIT_NOT_FOUND', `old_string was not found in ${displayPath}${context}`, {
    suggestion: closest
      ? `The closest text (lines ${closest.startLine}-${closest.endLine}, ${Math.round(closest.similarity * 100)}% similar) is:\n${shown}\nRead the file again and copy old_string exactly.`
      : `${displayPath} is empty; use write_file or an empty old_string to give it content.`,
    details: closest
      ? {
          closest: {
            startLine: closest.startLine,
            endLine: closest.endLine,
            similarity: Number(closest.similarity.toFixed(3)),
          },
        }
      : {},
  });
}

/** `context` names the edit in a multi_edit ("" for edit_file). */
export function applyEdit(text: string, edit: Edit, displayPath: string, context = ''): EditOutcome {
  if (edit.old_string === edit.new_string) {
    throw toolgateError('NO_CHANGES', `old_string and new_string are identical${context}`, {
      suggestion: 'Pass the text you want in new_string.',
    });
  }
  if (edit.old_string === '') {
    if (text !== '') {
      throw toolgateError('BAD_REQUEST', `old_string is empty but ${displayPath} is not${context}`, {
        suggestion:
          'An empty old_string only creates content in an empty or missing file; quote the text to replace.',
      });
    }
    return { text: edit.new_string, replacements: 1, strategy: 'exact' };
  }
  for (const strategy of STRATEGIES) {
    const regions = strategy.find(text, edit.old_string);
    if (regions.length === 0) continue;
    if (regions.length > 1 && !(edit.replace_all && strategy.allowsMany)) {
      const lines = regions.map((r) => lineOf(text, r.start));
      const how = strategy.name === 'exact' ? '' : ` (matched by the ${strategy.name} rule)`;
      throw toolgateError(
        'EDIT_AMBIGUOUS',
        `old_string matches ${regions.length} places in ${displayPath}${how}, at lines ${lines.join(', ')}${context}`,
        {
          suggestion: strategy.allowsMany
            ? 'Add surrounding lines to old_string so it matches once, or pass replace_all: true.'
            : 'Add surrounding lines to old_string so it matches exactly one place.',
          details: { lines, strategy: strategy.name },
        },
      );
    }
    const replaced = splice(text, regions, (matched) =>
      strategy.adapt(edit.new_string, edit.old_string, matched),
    );
    if (replaced === text) {
      throw toolgateError('NO_CHANGES', `The edit would not change ${displayPath}${context}`, {
        suggestion: `old_string matched (${strategy.name}) text that already reads as new_string.`,
      });
    }
    return { text: replaced, replacements: regions.length, strategy: strategy.name };
  }
  return notFound(text, edit, displayPath, context);
}
