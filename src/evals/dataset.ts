// Datasets as data: JSONL (one case per line), YAML (a list of cases) or JSON (an array), each case
// checked against EvalCaseSchema with an error naming the file, the case and the field. A case's id is
// "<dataset>/<name>", unique within a run: reports compare runs by it.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Compile } from 'typebox/compile';
import { parse as parseYaml } from 'yaml';
import { toolgateError } from '../lib/errors.js';
import { EvalCaseSchema, type EvalCase } from './case-schema.js';

export interface Dataset {
  name: string;
  cases: EvalCase[];
}

const DATASET_FILE = /\.(jsonl|ya?ml|json)$/;
// Compiled on first use: nothing runs at import.
let compiled: ReturnType<typeof compileCaseCheck> | undefined;
const compileCaseCheck = () => Compile(EvalCaseSchema);

const invalid = (message: string) =>
  toolgateError('VALIDATION_FAILED', message, {
    suggestion: 'See docs/evals.md for the case format (the EvalCase schema in the OpenAPI document).',
  });

/** The first problem of a value that is not a case, as "field: message". */
function caseProblem(value: unknown): string | undefined {
  const check = (compiled ??= compileCaseCheck());
  if (check.Check(value)) return undefined;
  type Problem = { instancePath: string; message: string; keyword: string };
  const errors = [...check.Errors(value)] as unknown as Problem[];
  // `additionalProperties: false` reports an unknown key at its own path as "schema is false".
  const unknown = errors.find((e) => e.keyword === 'boolean');
  if (unknown) return `${unknown.instancePath}: unknown field`;
  const first = errors[0];
  return `${first.instancePath || '/'}: ${first.message}`;
}

/** The cases of one dataset's text; `name` names it in errors (the file's base name, or "inline"). */
export function parseDataset(name: string, text: string, format: 'jsonl' | 'yaml' | 'json'): Dataset {
  let items: { value: unknown; where: string }[];
  try {
    if (format === 'jsonl') {
      items = text.split('\n').flatMap((line, i) => {
        const trimmed = line.trim();
        if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//')) return [];
        return [{ value: JSON.parse(trimmed) as unknown, where: `line ${i + 1}` }];
      });
    } else {
      const parsed: unknown = format === 'yaml' ? parseYaml(text) : JSON.parse(text);
      const list = Array.isArray(parsed) ? parsed : (parsed as { cases?: unknown } | null)?.cases;
      if (!Array.isArray(list)) throw new Error('expected a list of cases (or {cases: [...]})');
      items = list.map((value: unknown, i) => ({ value, where: `case ${i + 1}` }));
    }
  } catch (err) {
    throw invalid(`Dataset ${name} cannot be read: ${(err as Error).message}`);
  }
  const seen = new Set<string>();
  const cases = items.map(({ value, where }) => {
    const problem = caseProblem(value);
    const label = (value as { name?: unknown } | null)?.name;
    const at = typeof label === 'string' ? `${where} (${label})` : where;
    if (problem) throw invalid(`Dataset ${name}, ${at}: ${problem}`);
    const evalCase = value as EvalCase;
    if (evalCase.calls === undefined && evalCase.tool === undefined) {
      throw invalid(`Dataset ${name}, ${at}: a case needs "tool" (one call) or "calls" (a sequence)`);
    }
    if (seen.has(evalCase.name)) throw invalid(`Dataset ${name}, ${at}: the name is used twice`);
    seen.add(evalCase.name);
    return evalCase;
  });
  return { name, cases };
}

export const datasetFormatOf = (file: string): 'jsonl' | 'yaml' | 'json' => {
  const ext = path.extname(file).slice(1);
  return ext === 'jsonl' ? 'jsonl' : ext === 'json' ? 'json' : 'yaml';
};

/** A dataset file, named after the file without its extension. */
export async function loadDatasetFile(file: string): Promise<Dataset> {
  if (!DATASET_FILE.test(file)) throw invalid(`${file} is not a dataset (.jsonl, .yaml, .yml or .json)`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw invalid(`Dataset ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parseDataset(path.basename(file).replace(DATASET_FILE, ''), text, datasetFormatOf(file));
}

/** Every dataset file of a folder (not recursive), by name. */
export async function listDatasetFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => DATASET_FILE.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}
