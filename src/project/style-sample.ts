// Measures formatting habits in a sample of source files: indentation, line endings, final newlines,
// quotes and semicolons (JS/TS), line length.
import path from 'node:path';
import { isJsOrTsExtension } from '../search/languages.js';

export interface StyleCounts {
  tabs: number;
  spaces: number;
  /** Indentation steps seen (increase from one non-blank line to the next), by width. */
  steps: Map<number, number>;
  crlf: number;
  lf: number;
  finalNewline: number;
  files: number;
  lineLengths: number[];
  quotes: Map<string, { single: number; double: number }>;
  semicolon: { with: number; without: number };
}

export const emptyCounts = (): StyleCounts => ({
  tabs: 0,
  spaces: 0,
  steps: new Map(),
  crlf: 0,
  lf: 0,
  finalNewline: 0,
  files: 0,
  lineLengths: [],
  quotes: new Map(),
  semicolon: { with: 0, without: 0 },
});

const COMMENT = /^\s*(\/\/|\/\*|\*|#)/;
// Lines that cannot end a statement: they open or continue something.
const CONTINUES = /[{([,=+\-*/&|?:<>.!]$|=>$|^\s*[}\])]|^\s*(import|export)\s*\{?\s*$|^@/;
const MAX_LINES_PER_FILE = 2000;

function quoteFamily(file: string): string | undefined {
  const ext = path.posix.extname(file);
  if (isJsOrTsExtension(ext)) return 'javascript/typescript';
  if (ext === '.py') return 'python';
  return undefined;
}

export function measure(file: string, text: string, counts: StyleCounts): void {
  counts.files++;
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const newlines = text.match(/\n/g)?.length ?? 0;
  counts.crlf += crlf;
  counts.lf += newlines - crlf;
  if (text.endsWith('\n')) counts.finalNewline++;
  const family = quoteFamily(file);
  const isJs = isJsOrTsExtension(path.posix.extname(file));
  const quotes = family ? (counts.quotes.get(family) ?? { single: 0, double: 0 }) : undefined;
  let previousIndent = 0;
  let inBlockComment = false;
  const lines = text.split(/\r?\n/, MAX_LINES_PER_FILE);
  for (const line of lines) {
    if (!line.trim()) continue;
    counts.lineLengths.push(line.length);
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent.startsWith('\t')) counts.tabs++;
    else if (indent.length) counts.spaces++;
    const width = indent.replace(/\t/g, '    ').length;
    if (!indent.includes('\t') && width > previousIndent) {
      const step = width - previousIndent;
      counts.steps.set(step, (counts.steps.get(step) ?? 0) + 1);
    }
    previousIndent = width;
    if (line.includes('/*')) inBlockComment = !line.includes('*/');
    else if (inBlockComment && line.includes('*/')) inBlockComment = false;
    if (inBlockComment || COMMENT.test(line)) continue;
    if (quotes) {
      // JSX attributes are double-quoted by convention whatever the code style; leave them out.
      const code = line.replace(/\w+="[^"]*"/g, '');
      quotes.single += code.match(/'(?:[^'\\\n]|\\.)*'/g)?.length ?? 0;
      quotes.double += code.match(/"(?:[^"\\\n]|\\.)*"/g)?.length ?? 0;
    }
    if (isJs) {
      const trimmed = line.trimEnd();
      if (trimmed.endsWith(';')) counts.semicolon.with++;
      else if (!CONTINUES.test(trimmed) && /[\w)\]'"`]$/.test(trimmed)) counts.semicolon.without++;
    }
  }
  if (family && quotes) counts.quotes.set(family, quotes);
}

export const majority = (a: number, b: number, aName: string, bName: string): string => {
  if (a + b === 0) return 'unknown';
  if (a / (a + b) >= 0.8) return aName;
  if (b / (a + b) >= 0.8) return bName;
  return 'mixed';
};

/** The most common indentation step among 2, 4 and 8 (other widths are alignment, not indentation). */
export function indentUnit(steps: Map<number, number>): number | undefined {
  let best: number | undefined;
  for (const width of [2, 4, 8, 3]) {
    if ((steps.get(width) ?? 0) > (best === undefined ? 0 : (steps.get(best) ?? 0))) best = width;
  }
  return best;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
