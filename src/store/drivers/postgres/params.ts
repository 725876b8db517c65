// Parameters in SQLite's spelling (`?` positional, `@name` named: what the stores write) rewritten to
// PostgreSQL's `$n`. The scan skips string literals, quoted identifiers, dollar-quoted bodies and
// comments, so a `?` or `@` inside one stays as it is. Each SQL text is rewritten once and the result
// kept: the stores use a small, fixed set of texts.
import type { SqlParams, SqlValue } from '../../sql.js';

export interface Rewritten {
  /** The text with `$1`, `$2`, … in place of the parameters. */
  readonly text: string;
  /** For named parameters: the name bound to `$i+1` (a name used twice shares one `$n`); else null. */
  readonly names: readonly string[] | null;
  /** How many `?` the text had (positional); 0 for named. */
  readonly positional: number;
}

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;

/** The index just past a quoted run that starts at `start` with `quote` ('' or "" inside escape one). */
function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}

/** The index just past the comment at `start` (`--` to the line end, or `/* … *\/`), or start if none. */
function skipComment(sql: string, start: number): number {
  if (sql.startsWith('--', start)) {
    const end = sql.indexOf('\n', start);
    return end === -1 ? sql.length : end + 1;
  }
  if (sql.startsWith('/*', start)) {
    const end = sql.indexOf('*/', start + 2);
    return end === -1 ? sql.length : end + 2;
  }
  return start;
}

export function rewriteParameters(sql: string): Rewritten {
  let text = '';
  let positional = 0;
  const names: string[] = [];
  let i = 0;
  let copiedTo = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      i = skipQuoted(sql, i, char);
      continue;
    }
    // A dollar-quoted body ($$ … $$, $tag$ … $tag$: a function in a migration) is skipped whole.
    const dollarTag = char === '$' ? /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64)) : null;
    if (dollarTag && !IDENTIFIER_PART.test(sql[i - 1] ?? '')) {
      const end = sql.indexOf(dollarTag[0], i + dollarTag[0].length);
      i = end === -1 ? sql.length : end + dollarTag[0].length;
      continue;
    }
    const afterComment = skipComment(sql, i);
    if (afterComment !== i) {
      i = afterComment;
      continue;
    }
    if (char === '?') {
      text += `${sql.slice(copiedTo, i)}$${++positional}`;
      copiedTo = ++i;
      continue;
    }
    // `@name` only: `@` before anything else is an operator (`@>`, `<@`, `@@`) and stays.
    if (char === '@' && IDENTIFIER_START.test(sql[i + 1] ?? '')) {
      let end = i + 2;
      while (end < sql.length && IDENTIFIER_PART.test(sql[end]!)) end++;
      const name = sql.slice(i + 1, end);
      let index = names.indexOf(name);
      if (index === -1) index = names.push(name) - 1;
      text += `${sql.slice(copiedTo, i)}$${index + 1}`;
      copiedTo = i = end;
      continue;
    }
    i++;
  }
  text += sql.slice(copiedTo);
  if (positional > 0 && names.length > 0) {
    throw new Error(`SQL mixes ? and @name parameters (use one spelling): ${sql}`);
  }
  return { text, names: names.length > 0 ? names : null, positional };
}

/** The values in `$n` order. A name the statement uses but `params` lacks is an error, as on SQLite. */
export function bindValues(rewritten: Rewritten, params: SqlParams | undefined): SqlValue[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params as SqlValue[];
  const named = params as Readonly<Record<string, SqlValue | undefined>>;
  return (rewritten.names ?? []).map((name) => {
    if (!(name in named)) throw new RangeError(`Missing named parameter "${name}"`);
    return named[name] ?? null;
  });
}

/** rewriteParameters with a bounded cache (texts built from varying clauses would otherwise grow it). */
export class ParameterCache {
  private readonly texts = new Map<string, Rewritten>();
  constructor(private readonly size = 500) {}

  get(sql: string): Rewritten {
    let rewritten = this.texts.get(sql);
    if (!rewritten) {
      rewritten = rewriteParameters(sql);
      if (this.texts.size >= this.size) this.texts.clear();
      this.texts.set(sql, rewritten);
    }
    return rewritten;
  }
}
