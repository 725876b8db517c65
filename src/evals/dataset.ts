// Datasets as data: JSONL (one case per line), YAML (a list of cases) or JSON (an array), each case
// checked against EvalCaseSchema with an error naming the file, the case and the field. A case's id is
// "<dataset>/<name>", unique within a run: reports compare runs by it.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Compile } from 'typebox/compile';
import { toolgateError } from '../lib/errors.js';
import { EvalCaseSchema, type EvalCase } from './case-schema.js';
import { jsonSyntaxProblem, locateList } from './dataset-location.js';

export interface Dataset {
  name: string;
  cases: EvalCase[];
  /** Where the cases came from, for errors found after loading (a tool the target does not have). */
  source?: DatasetSource;
}

export interface DatasetSource {
  /** The file's path as given, or the dataset's name for text sent inline. */
  readonly label: string;
  /** The line of a case's field (a JSON pointer into the case; '' for the case itself), if known. */
  lineOf(caseIndex: number, pointer: string): number | undefined;
}

const DATASET_FILE = /\.(jsonl|ya?ml|json)$/;
// Compiled on first use: nothing runs at import.
let compiled: ReturnType<typeof compileCaseCheck> | undefined;
const compileCaseCheck = () => Compile(EvalCaseSchema);

/**
 * A dataset that cannot be used, as one line naming the file (or dataset), the line and the field:
 * `Dataset evals/x.yaml, line 12, case 3 (name): /expect/status: …`. details carry the same parts, so
 * the CLI can tell a broken dataset from failing cases (docs/evals.md, exit codes).
 */
export function datasetError(
  source: string,
  problem: string,
  where: { line?: number; caseIndex?: number; label?: string; field?: string } = {},
) {
  const parts = [`Dataset ${source}`];
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.caseIndex !== undefined) parts.push(`case ${where.caseIndex + 1}`);
  const at = parts.join(', ') + (where.label !== undefined ? ` (${where.label})` : '');
  return toolgateError('VALIDATION_FAILED', `${at}: ${where.field ? `${where.field}: ` : ''}${problem}`, {
    suggestion: 'See docs/evals.md for the case format (the EvalCase schema in the OpenAPI document).',
    details: { dataset: source, line: where.line, field: where.field },
  });
}

/** The first problem of a value that is not a case: the field (a JSON pointer) and what is wrong. */
function caseProblem(value: unknown): { field: string; message: string } | undefined {
  const check = (compiled ??= compileCaseCheck());
  if (check.Check(value)) return undefined;
  type Problem = { instancePath: string; message: string; keyword: string };
  const errors = [...check.Errors(value)] as unknown as Problem[];
  // `additionalProperties: false` reports an unknown key at its own path as "schema is false".
  const unknown = errors.find((e) => e.keyword === 'boolean');
  if (unknown) return { field: unknown.instancePath, message: 'unknown field' };
  const first = errors[0];
  return { field: first.instancePath || '/', message: first.message };
}

interface Item {
  value: unknown;
  /** JSONL: the line; YAML and JSON: the case's index in the list. */
  line?: number;
  caseIndex?: number;
}

/** JSONL: one case per line; a syntax error names its line (JSON.parse counts from the line's start). */
function jsonlItems(source: string, text: string): Item[] {
  return text.split('\n').flatMap((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//')) return [];
    try {
      return [{ value: JSON.parse(trimmed) as unknown, line: i + 1 }];
    } catch (err) {
      const { message } = jsonSyntaxProblem(err, trimmed);
      throw datasetError(source, `cannot be read as JSON: ${message}`, { line: i + 1 });
    }
  });
}

/**
 * The cases of one dataset's text; `name` names the dataset, `file` (the path as given) names it in
 * errors when it came from a file.
 */
export function parseDataset(
  name: string,
  text: string,
  format: 'jsonl' | 'yaml' | 'json',
  file?: string,
): Dataset {
  const label = file ?? name;
  let items: Item[];
  let lineOf: DatasetSource['lineOf'];
  if (format === 'jsonl') {
    items = jsonlItems(label, text);
    const lines = items.map((item) => item.line);
    lineOf = (caseIndex) => lines[caseIndex];
  } else {
    const located = locateList(text, format);
    if (located.problem) {
      const what = format === 'json' ? 'JSON' : 'YAML';
      throw datasetError(label, `cannot be read as ${what}: ${located.problem.message}`, {
        line: located.problem.line,
      });
    }
    const parsed = located.value;
    const list = Array.isArray(parsed) ? parsed : (parsed as { cases?: unknown } | null)?.cases;
    if (!Array.isArray(list)) throw datasetError(label, 'expected a list of cases (or {cases: [...]})');
    items = list.map((value: unknown, i) => ({ value, caseIndex: i }));
    // JSON sent to the service (POST /v1/evals cases) is one line of serialized text: its lines say nothing.
    lineOf = file === undefined && format === 'json' ? () => undefined : located.lineOf;
  }
  const seen = new Set<string>();
  const cases = items.map(({ value, line, caseIndex }, i) => {
    const caseName = (value as { name?: unknown } | null)?.name;
    const where = (field?: string) => ({
      line: line ?? lineOf(i, field ?? ''),
      caseIndex,
      label: typeof caseName === 'string' ? caseName : undefined,
      field,
    });
    const problem = caseProblem(value);
    if (problem) throw datasetError(label, problem.message, where(problem.field));
    const evalCase = value as EvalCase;
    if (evalCase.calls === undefined && evalCase.tool === undefined) {
      throw datasetError(label, 'a case needs "tool" (one call) or "calls" (a sequence)', where());
    }
    if (seen.has(evalCase.name)) throw datasetError(label, 'the name is used twice', where('/name'));
    seen.add(evalCase.name);
    return evalCase;
  });
  return { name, cases, source: { label, lineOf } };
}

export const datasetFormatOf = (file: string): 'jsonl' | 'yaml' | 'json' => {
  const ext = path.extname(file).slice(1);
  return ext === 'jsonl' ? 'jsonl' : ext === 'json' ? 'json' : 'yaml';
};

/** A dataset file, named after the file without its extension; errors name the file as given. */
export async function loadDatasetFile(file: string): Promise<Dataset> {
  if (!DATASET_FILE.test(file)) {
    throw datasetError(file, 'not a dataset file (.jsonl, .yaml, .yml or .json)');
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw datasetError(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})`);
  }
  return parseDataset(path.basename(file).replace(DATASET_FILE, ''), text, datasetFormatOf(file), file);
}

/** Every dataset file of a folder (not recursive), by name. */
export async function listDatasetFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => DATASET_FILE.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}
