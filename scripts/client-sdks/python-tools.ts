// Renders clients/python/toolgate/_tools.py: a TypedDict per tool result (nested objects get their own),
// and one typed method per built-in tool, in a sync and an async mixin that the Session classes extend.
// Keyword-only arguments, the required ones without a default; an argument left at None is not sent, so
// the service applies its own default (the defaults are in the docstrings, as the service states them).
import type { JsonSchema, OpenApiDocument, ToolOperation } from './tool-operations.js';
import { toolOperations } from './tool-operations.js';

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Names the generated methods may not take: the Session's own members. */
export const PY_SESSION_MEMBERS = new Set([
  'call',
  'stream',
  'batch',
  'tools',
  'handle',
  'close',
  'delete',
  'info',
  'upload',
  'download',
  'upload_archive',
  'download_archive',
  'create_checkpoint',
  'list_checkpoints',
  'restore_checkpoint',
  'delete_checkpoint',
  'id',
  'token',
]);

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

const identifier = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PY_KEYWORDS.has(name);

const pyLiteral = (value: unknown): string =>
  value === null ? 'None' : typeof value === 'boolean' ? (value ? 'True' : 'False') : JSON.stringify(value);

/** Text inside a """docstring""": backslashes and triple quotes escaped. */
const docText = (text: string) => text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');

/** Collects the TypedDicts a module needs, each emitted before the ones that use it. */
class TypedDicts {
  readonly blocks: string[] = [];
  private readonly names = new Set<string>();

  typeOf(schema: JsonSchema, name: string): string {
    if (schema.const !== undefined) return `Literal[${pyLiteral(schema.const)}]`;
    if (schema.enum) return `Literal[${schema.enum.map(pyLiteral).join(', ')}]`;
    const union = schema.anyOf ?? schema.oneOf;
    if (union) return this.union(union.map((member, i) => this.typeOf(member, `${name}${i + 1}`)));
    if (Array.isArray(schema.type)) {
      return this.union(schema.type.map((type) => this.typeOf({ ...schema, type }, name)));
    }
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${schema.items ? this.typeOf(schema.items, `${name}Item`) : 'Any'}]`;
      case 'object':
        if (schema.properties && Object.keys(schema.properties).length > 0)
          return this.typedDict(schema, name);
        if (typeof schema.additionalProperties === 'object') {
          return `Dict[str, ${this.typeOf(schema.additionalProperties, `${name}Value`)}]`;
        }
        return 'Dict[str, Any]';
      default:
        return 'Any';
    }
  }

  private union(types: string[]): string {
    const unique = [...new Set(types)];
    if (unique.includes('Any')) return 'Any';
    return unique.length === 1 ? unique[0] : `Union[${unique.join(', ')}]`;
  }

  private typedDict(schema: JsonSchema, name: string): string {
    if (this.names.has(name)) throw new Error(`two TypedDicts named ${name}`);
    this.names.add(name);
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([key, property]) => {
      const type = this.typeOf(property, `${name}${pascal(key)}`);
      return { key, type: required.has(key) ? type : `NotRequired[${type}]`, doc: property.description };
    });
    const doc = schema.description ? `    """${docText(schema.description)}"""\n\n` : '';
    // The class form reads best; keys that are not identifiers (`from`) need the functional form.
    this.blocks.push(
      fields.every((field) => identifier(field.key))
        ? `class ${name}(TypedDict):\n${doc}${fields
            .map((f) => `    ${f.key}: ${f.type}${f.doc ? `\n    """${docText(f.doc)}"""` : ''}`)
            .join('\n')}\n`
        : `${name} = TypedDict(\n    "${name}",\n    {\n${fields.map((f) => `        ${JSON.stringify(f.key)}: ${f.type},`).join('\n')}\n    },\n)\n`,
    );
    return name;
  }
}

interface Param {
  wire: string;
  python: string;
  type: string;
  required: boolean;
  doc: string;
}

function paramsOf(tool: ToolOperation, dicts: TypedDicts): Param[] {
  const required = new Set(tool.input.required ?? []);
  const params = Object.entries(tool.input.properties ?? {}).map(([wire, schema]) => {
    const python = identifier(wire) ? wire : `${wire}_`;
    if (python === 'idempotency_key' || python === 'self') throw new Error(`${tool.name}: parameter ${wire}`);
    const described = (schema.description ?? '').trim();
    const sentence = described && !/[.!?]$/.test(described) ? `${described}.` : described;
    const defaultText = schema.default === undefined ? '' : ` Default: ${JSON.stringify(schema.default)}.`;
    return {
      wire,
      python,
      type: dicts.typeOf(schema, `${pascal(tool.name)}${pascal(wire)}`),
      required: required.has(wire),
      doc: `${sentence}${defaultText}`.trim(),
    };
  });
  return [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
}

function method(tool: ToolOperation, params: Param[], resultType: string, isAsync: boolean): string {
  const signature = [
    'self',
    '*',
    ...params.map((p) => (p.required ? `${p.python}: ${p.type}` : `${p.python}: Optional[${p.type}] = None`)),
    'idempotency_key: Optional[str] = None',
  ].join(', ');
  const args = `{${params.map((p) => `${JSON.stringify(p.wire)}: ${p.python}`).join(', ')}}`;
  const argsDoc = params.map((p) => `            ${p.python}: ${docText(p.doc || p.wire)}`).join('\n');
  const doc = `        """${docText(tool.description)}\n\n        Args:\n${argsDoc}${argsDoc ? '\n' : ''}            idempotency_key: sent as Idempotency-Key (one is made when omitted, so a retry never runs the tool twice).\n        """`;
  const call = `self._tool(${JSON.stringify(tool.name)}, ${args}, idempotency_key)`;
  return `    ${isAsync ? 'async ' : ''}def ${tool.name}(${signature}) -> ${resultType}:\n${doc}\n        return ${isAsync ? 'await ' : ''}${call}  # type: ignore[no-any-return]\n`;
}

export function renderPythonTools(document: OpenApiDocument): string {
  const tools = toolOperations(document);
  const dicts = new TypedDicts();
  const rendered = tools.map((tool) => {
    if (PY_SESSION_MEMBERS.has(tool.name))
      throw new Error(`tool ${tool.name} collides with a Session member`);
    const params = paramsOf(tool, dicts);
    const result = dicts.typeOf(tool.data, `${pascal(tool.name)}Result`);
    return { tool, params, result };
  });
  const mixin = (isAsync: boolean) =>
    `class ${isAsync ? 'AsyncToolMethods' : 'ToolMethods'}:\n    """One method per built-in tool; each returns the call's data (raises ToolgateError on failure)."""\n\n    ${isAsync ? 'async ' : ''}def _tool(self, name: str, args: Dict[str, Any], idempotency_key: Optional[str]) -> Any:\n        raise NotImplementedError\n\n${rendered.map((r) => method(r.tool, r.params, r.result, isAsync)).join('\n')}`;
  return [
    '# Generated by scripts/write-client-sdks.ts from openapi/openapi.json (npm run openapi). Do not edit.',
    '# fmt: off',
    '"""Typed methods for the built-in tools and the TypedDicts of their results."""',
    'from __future__ import annotations',
    '',
    'from typing import Any, Dict, List, Optional, Union',
    '',
    'from typing_extensions import Literal, NotRequired, TypedDict',
    '',
    `API_VERSION = ${JSON.stringify(document.info.version)}`,
    '',
    `TOOL_NAMES = (${tools.map((t) => JSON.stringify(t.name)).join(', ')},)`,
    '',
    '',
    dicts.blocks.join('\n\n'),
    '',
    mixin(false),
    '',
    mixin(true),
  ].join('\n');
}
