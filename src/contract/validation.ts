// Input validation for tool calls: compiled once per tool, defaults applied, and on failure one error
// that names every bad field, what was expected there, and a valid example, so a model can fix its call
// in one step.
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { toolgateError } from '../lib/errors.js';
import { exampleFor } from './example.js';
import type { AnyTool } from './tool.js';

export interface FieldProblem {
  /** Dotted path of the field, e.g. `edits[0].old_string`; "(input)" for the whole input. */
  field: string;
  problem: string;
  expected?: string;
}

export interface InputValidator {
  /** Returns the input with defaults applied, or throws VALIDATION_FAILED. */
  validate(input: unknown): unknown;
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

type JsonSchema = Record<string, unknown>;

export function compileValidator(tool: AnyTool): InputValidator {
  const schema = tool.input as TSchema;
  const check = Compile(schema);
  const example = () => tool.examples?.[0] ?? exampleFor(schema as JsonSchema);
  const applyDefaults = topLevelDefaults(schema as JsonSchema) ?? ((value) => Value.Default(schema, value));
  return {
    validate(input: unknown): unknown {
      // A missing body on a tool without required fields means "no arguments".
      const candidate = input === undefined || input === null ? {} : input;
      const withDefaults = applyDefaults(candidate);
      if (check.Check(withDefaults)) return withDefaults;
      const problems = describeErrors([...check.Errors(withDefaults)] as SchemaError[], schema as JsonSchema);
      const summary = problems.map((p) => `${p.field}: ${p.problem}`).join('; ');
      throw toolgateError('VALIDATION_FAILED', `Invalid input for ${tool.name}: ${summary}`, {
        suggestion: `Fix the listed fields and call again. A valid input looks like: ${JSON.stringify(example())}`,
        details: { errors: problems, example: example() },
      });
    },
  };
}

/**
 * Most tools' defaults are plain values on top-level properties (read_file's offset and limit): for such a
 * schema, what Value.Default does (fill each property that is undefined, in place) is a loop over them,
 * without walking the schema on every call. Undefined when the schema has defaults anywhere else (nested,
 * or objects and arrays that would need a copy each time): Value.Default handles those.
 */
function topLevelDefaults(schema: JsonSchema): ((value: unknown) => unknown) | undefined {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== 'object' || !properties || 'default' in schema) return undefined;
  const defaults: [string, unknown][] = [];
  for (const [key, property] of Object.entries(properties)) {
    const { default: value, ...rest } = property;
    if (hasDefault(rest)) return undefined;
    if (!('default' in property)) continue;
    if (value !== null && typeof value === 'object') return undefined;
    defaults.push([key, value]);
  }
  if (schema.additionalProperties && hasDefault(schema.additionalProperties)) return undefined;
  return (value) => {
    if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      for (const [key, fallback] of defaults) if (record[key] === undefined) record[key] = fallback;
    }
    return value;
  };
}

/** Whether a `default` keyword appears anywhere in a schema. */
const hasDefault = (schema: unknown): boolean =>
  typeof schema === 'object' &&
  schema !== null &&
  ('default' in schema || Object.values(schema).some((value) => hasDefault(value)));

const fieldName = (instancePath: string): string => {
  if (instancePath === '') return '(input)';
  return instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
};

const child = (parent: string, key: string) => (parent === '(input)' ? key : `${parent}.${key}`);

/** The sub-schema at an instance path (through properties and items), for the "expected" text. */
function schemaAt(schema: JsonSchema, instancePath: string): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (const seg of instancePath.split('/').slice(1)) {
    if (!current) return undefined;
    const props = current.properties as Record<string, JsonSchema> | undefined;
    if (props && seg in props) current = props[seg];
    else if (current.items && typeof current.items === 'object') current = current.items as JsonSchema;
    else if (current.additionalProperties && typeof current.additionalProperties === 'object') {
      current = current.additionalProperties as JsonSchema;
    } else return undefined;
  }
  return current;
}

export function describeSchema(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    if (variants.every((v) => 'const' in v))
      return `one of ${variants.map((v) => JSON.stringify(v.const)).join(', ')}`;
    return variants.map((v) => describeSchema(v)).join(' or ');
  }
  const parts: string[] = [];
  if (schema.type) parts.push(String(schema.type));
  if (schema.minimum !== undefined) parts.push(`>= ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`<= ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`at least ${schema.minLength} chars`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} chars`);
  if (schema.minItems !== undefined) parts.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (typeof schema.description === 'string') parts.push(`(${schema.description})`);
  return parts.length ? parts.join(', ') : undefined;
}

function describeErrors(errors: SchemaError[], schema: JsonSchema): FieldProblem[] {
  const problems = new Map<string, FieldProblem>();
  const add = (problem: FieldProblem) => {
    if (!problems.has(problem.field)) problems.set(problem.field, problem);
  };
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    const field = fieldName(error.instancePath);
    if (error.keyword === 'const' && anyOfPaths.has(error.instancePath)) continue;
    const here = schemaAt(schema, error.instancePath);
    switch (error.keyword) {
      case 'required':
        for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
          add({
            field: child(field, name),
            problem: 'is required',
            expected: describeSchema(schemaAt(schema, `${error.instancePath}/${name}`)),
          });
        }
        break;
      case 'additionalProperties': {
        const allowed = Object.keys((here?.properties as object | undefined) ?? {});
        for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
          add({
            field: child(field, name),
            problem: 'is not a known field',
            expected: allowed.length ? `only ${allowed.join(', ')}` : 'no fields',
          });
        }
        break;
      }
      case 'boolean':
        // Typebox reports `additionalProperties: false` twice; the additionalProperties entry names them all.
        break;
      // A const error under an anyOf was skipped above: the anyOf entry lists all allowed values at once.
      default:
        add({ field, problem: error.message, expected: describeSchema(here) });
    }
  }
  return [...problems.values()];
}
