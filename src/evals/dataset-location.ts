// Where in a dataset's text something is: the line of a JSON syntax error (JSON.parse gives an offset,
// counted from the start of the text it was handed), of a YAML syntax error, and of a field of a case
// (a JSON pointer like /expect/status) in a YAML or JSON file. Dataset errors name the line, so a person
// can open the file at it.
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export interface SyntaxProblem {
  /** 1-based, in the text handed in. */
  readonly line: number;
  readonly message: string;
}

/**
 * The line of a JSON.parse error, and its message without V8's position and quoted snippet (which may
 * span lines). V8 does not always give a position ("Unexpected token '}', ...snippet... is not valid
 * JSON"), so the offset comes from jsonc-parser's strict scan of the same text: its first error.
 */
export function jsonSyntaxProblem(err: unknown, text: string): SyntaxProblem {
  const raw = err instanceof Error ? err.message : String(err);
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const position = /at position (\d+)/.exec(raw);
  const offset = errors[0]?.offset ?? (position ? Number(position[1]) : text.length);
  const message = raw
    .split('\n')[0]
    .replace(/\s*in JSON at position \d+.*$/, '')
    .replace(/, (\.\.\.)?".*$/, '');
  return { line: lineAt(text, offset), message };
}

const lineAt = (text: string, offset: number): number => {
  let line = 1;
  for (let i = 0; i < Math.min(offset, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  // An offset just past a final newline still belongs to the line that newline ends.
  return offset >= text.length && text.endsWith('\n') && line > 1 ? line - 1 : line;
};

/** A YAML or JSON text as a document that can say where each case and field is. */
export interface LocatedList {
  /** The value (what JSON.parse or the YAML parser gives), or the first syntax problem. */
  readonly value?: unknown;
  readonly problem?: SyntaxProblem;
  /** The line of a case's field (a JSON pointer into the case; '' for the case itself), if known. */
  lineOf(caseIndex: number, pointer: string): number | undefined;
}

export function locateList(text: string, format: 'yaml' | 'json'): LocatedList {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const caseNodes = (): readonly unknown[] => {
    const root: unknown = doc.contents;
    if (isSeq(root)) return root.items;
    const cases: unknown = isMap(root) ? root.get('cases', true) : undefined;
    return isSeq(cases) ? cases.items : [];
  };
  const lineOf = (caseIndex: number, pointer: string): number | undefined => {
    let node = caseNodes()[caseIndex] as Node | undefined;
    // The deepest node on the pointer's path that exists: a missing field is reported at its parent.
    for (const segment of pointerSegments(pointer)) {
      const child: unknown = isMap(node) || isSeq(node) ? node.get(segment, true) : undefined;
      if (child === undefined || child === null) break;
      node = child as Node;
    }
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  if (format === 'json') {
    try {
      return { value: JSON.parse(text) as unknown, lineOf };
    } catch (err) {
      return { problem: jsonSyntaxProblem(err, text), lineOf };
    }
  }
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0].line ?? 1;
    return {
      problem: { line, message: error.message.split('\n')[0].replace(/ at line \d+, column \d+:$/, '') },
      lineOf,
    };
  }
  return { value: doc.toJS() as unknown, lineOf };
}

/** "/calls/0/tool" → ["calls", 0, "tool"] (RFC 6901 escapes undone). */
const pointerSegments = (pointer: string): (string | number)[] =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
