// Parses one file and turns the tag query's matches into its definitions, references, imports and exports.
import { docOf, signatureOf } from './docs.js';
import { IMPORT_EXTRACTORS } from './imports/index.js';
import type { ModuleFacts } from './imports/types.js';
import type { LoadedLanguage, SyntaxNode } from './parser.js';
import type { Definition, FileSummary, Reference } from './schema.js';
import { DEFINITION_KINDS, REFERENCE_KINDS } from './schema.js';
import { forwardNames } from './forward-refs.js';
import { LocalScopes } from './scopes.js';
import { field, lineOf, endLineOf, namedChildren } from './syntax.js';
import type { LanguageId } from './languages.js';

type DefinitionKind = Definition['kind'];
type ReferenceKind = Reference['kind'];

// Nodes whose name becomes the `container` of the definitions inside them.
const CONTAINERS = new Set([
  'class_declaration',
  'abstract_class_declaration',
  'class',
  'interface_declaration',
  'class_definition',
  'trait_item',
  'impl_item',
  'enum_declaration',
  'record_declaration',
  'internal_module',
  'module',
]);
const CONTAINER_KINDS = new Set<DefinitionKind>(['class', 'interface', 'trait', 'struct', 'enum', 'module']);
// When two patterns tag the same name, the more specific reference kind wins.
const REFERENCE_PRIORITY: Record<ReferenceKind, number> = {
  call: 5,
  class: 4,
  implementation: 3,
  macro: 3,
  type: 2,
  name: 1,
};

// `a.b.name`: the object is kept as the use's qualifier when it is a plain (dotted) name.
const QUALIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/** A Python assignment inside a function or class body binds a local or an attribute, not a module name. */
function inPythonBody(node: SyntaxNode): boolean {
  for (let up = node.parent; up; up = up.parent)
    if (up.type === 'function_definition' || up.type === 'class_definition') return true;
  return false;
}

const isDefinitionKind = (kind: string): kind is DefinitionKind =>
  (DEFINITION_KINDS as readonly string[]).includes(kind);
const isReferenceKind = (kind: string): kind is ReferenceKind =>
  (REFERENCE_KINDS as readonly string[]).includes(kind);

function containerOf(node: SyntaxNode): SyntaxNode | undefined {
  // The root is never a container (Python's root node is called `module`, like a TS namespace).
  for (let up = node.parent; up?.parent; up = up.parent) if (CONTAINERS.has(up.type)) return up;
  return undefined;
}

function containerName(container: SyntaxNode): string | undefined {
  if (container.type === 'impl_item') {
    const type = field(container, 'type');
    // `impl<T> Shape for Point<T>`: the container is Point.
    return (type?.type === 'generic_type' ? field(type, 'type') : type)?.text;
  }
  return field(container, 'name')?.text;
}

/** Go has no nesting: a method's container is its receiver type, an interface method's is the interface. */
function goContainer(node: SyntaxNode): string | undefined {
  if (node.type === 'method_elem') {
    for (let up = node.parent; up; up = up.parent)
      if (up.type === 'type_spec') return field(up, 'name')?.text;
    return undefined;
  }
  const receiver = field(node, 'receiver')?.namedChild(0);
  const type = receiver ? field(receiver, 'type') : null;
  return type?.text.replace(/^\*/, '').replace(/\[.*$/, '');
}

function isExported(node: SyntaxNode, name: string, language: LanguageId, container?: Definition): boolean {
  switch (language) {
    case 'go':
      return /^[A-Z]/.test(name);
    case 'rust':
      return (
        namedChildren(node).some((c) => c.type === 'visibility_modifier') ||
        (container?.kind === 'trait' && container.exported)
      );
    case 'java': {
      if (container?.kind === 'interface') return container.exported;
      const modifiers = namedChildren(node).find((c) => c.type === 'modifiers');
      return modifiers ? /\bpublic\b/.test(modifiers.text) : false;
    }
    case 'python':
      return !name.startsWith('_') && (container ? container.exported : true);
    default:
      // JS/TS: decided from the file's export list once it is known (see applyJsExports).
      return false;
  }
}

function refineKind(
  kind: DefinitionKind,
  name: string,
  container: Definition | undefined,
  language: LanguageId,
) {
  if (kind === 'function' && container && language !== 'go') {
    if (language === 'python' && name === '__init__') return 'constructor';
    if (language !== 'javascript' || container.kind === 'class') return 'method';
  }
  if ((kind === 'variable' || kind === 'field') && /^[A-Z][A-Z0-9_]+$/.test(name)) return 'constant';
  return kind;
}

/** Marks JS/TS top-level definitions named in the export list, and their members. */
function applyJsExports(definitions: Definition[], facts: ModuleFacts): void {
  const exported = new Set<string>();
  for (const e of facts.exports) if (!e.source) exported.add(e.local ?? e.name);
  for (const def of definitions) {
    def.exported = def.container ? exported.has(def.container.split('.')[0]) : exported.has(def.name);
  }
}

export function extractFile(path: string, source: string, lang: LoadedLanguage): FileSummary {
  const tree = lang.parser.parse(source);
  if (!tree) throw new Error(`tree-sitter could not parse ${path}`);
  try {
    const facts: ModuleFacts = { imports: [], exports: [] };
    const extractImports = IMPORT_EXTRACTORS[lang.id];
    const definitionNodes: { node: SyntaxNode; nameNode: SyntaxNode; kind: DefinitionKind; order: number }[] =
      [];
    const references = new Map<number, Reference & { priority: number }>();
    // What makes an identifier not a use of a module-level name: a binding, a keyword argument's name,
    // an import's own names, or a local of an enclosing function.
    const bindings: SyntaxNode[] = [];
    const globals: SyntaxNode[] = [];
    const scopeNodes: SyntaxNode[] = [];
    const skipped: { start: number; end: number }[] = [];
    const skippedNames = new Set<number>();
    const importScopes: { from: number; to: number; offset: number }[] = [];
    for (const match of lang.tagQuery.matches(tree.rootNode)) {
      let nameNode: SyntaxNode | undefined;
      let qualifier: string | undefined;
      let tagged: { node: SyntaxNode; role: string; kind: string } | undefined;
      let importCall: { node?: SyntaxNode; callee?: string; source?: string } | undefined;
      for (const capture of match.captures) {
        const [role, kind] = capture.name.split('.');
        if (capture.name === 'name') nameNode = capture.node;
        else if (role === 'forward') {
          for (const { offset, ...ref } of forwardNames(capture.node, kind === 'annotation'))
            if (!references.has(offset)) references.set(offset, { ...ref, kind: 'type', priority: 2 });
        } else if (capture.name === 'qualifier') {
          const text = capture.node.text;
          if (QUALIFIER.test(text)) qualifier = text;
        } else if (role === 'definition' || role === 'reference') tagged = { node: capture.node, role, kind };
        else if (role === 'local') {
          if (kind === 'definition') bindings.push(capture.node);
          else if (kind === 'global') globals.push(capture.node);
          else if (kind === 'scope') scopeNodes.push(capture.node);
          else if (capture.node.namedChildCount === 0) skippedNames.add(capture.node.startIndex);
          else skipped.push({ start: capture.node.startIndex, end: capture.node.endIndex });
        } else if (capture.name === 'import.statement') {
          const from = facts.imports.length;
          extractImports({ statement: capture.node }, facts);
          importScopes.push({ from, to: facts.imports.length, offset: capture.node.startIndex });
        } else if (capture.name === 'import.package') extractImports({ packageNode: capture.node }, facts);
        else if (role === 'import') {
          importCall ??= {};
          if (kind === 'call') importCall.node = capture.node;
          else if (kind === 'function') importCall.callee = capture.node.text;
          else if (kind === 'source') importCall.source = capture.node.text;
        }
      }
      if (importCall?.node && importCall.callee && importCall.source !== undefined) {
        const { node, callee, source: spec } = importCall;
        extractImports({ call: { node, callee, source: spec } }, facts);
      }
      if (!nameNode || !tagged) continue;
      if (tagged.role === 'definition' && isDefinitionKind(tagged.kind)) {
        if (lang.id === 'python' && tagged.kind === 'variable' && inPythonBody(tagged.node)) continue;
        definitionNodes.push({ node: tagged.node, nameNode, kind: tagged.kind, order: match.patternIndex });
      } else if (tagged.role === 'reference' && isReferenceKind(tagged.kind)) {
        const priority = REFERENCE_PRIORITY[tagged.kind];
        const existing = references.get(nameNode.startIndex);
        if (existing) {
          // The same name tagged again (`f()` is a call and an identifier): the more specific kind wins.
          if (existing.priority < priority) Object.assign(existing, { kind: tagged.kind, priority });
          if (qualifier && !existing.qualifier) existing.qualifier = qualifier;
        } else {
          references.set(nameNode.startIndex, {
            name: nameNode.text,
            kind: tagged.kind,
            line: lineOf(nameNode),
            column: nameNode.startPosition.column + 1,
            ...(qualifier ? { qualifier } : {}),
            priority,
          });
        }
      }
    }

    const scopes = new LocalScopes(scopeNodes);
    for (const node of bindings) {
      scopes.bind(node);
      references.delete(node.startIndex);
    }
    for (const node of globals) scopes.unbind(node);
    for (const [offset, ref] of references) {
      if (
        skippedNames.has(offset) ||
        skipped.some((r) => offset >= r.start && offset < r.end) ||
        scopes.isLocal(ref.name, offset)
      )
        references.delete(offset);
    }
    // An import inside a function binds its names there only.
    for (const { from, to, offset } of importScopes) {
      const scope = scopes.linesAround(offset);
      if (scope) for (let i = from; i < to; i++) facts.imports[i].scope = scope;
    }

    // Outer definitions first, so a container is known before what it contains.
    definitionNodes.sort((a, b) => a.node.startIndex - b.node.startIndex || a.order - b.order);
    const byNode = new Map<number, Definition>();
    const definitions: Definition[] = [];
    const seenNames = new Set<number>();
    for (const { node, nameNode, kind } of definitionNodes) {
      if (seenNames.has(nameNode.startIndex)) continue;
      seenNames.add(nameNode.startIndex);
      references.delete(nameNode.startIndex);
      const containerNode = lang.id === 'go' ? undefined : containerOf(node);
      const container = containerNode ? byNode.get(containerNode.startIndex) : undefined;
      const containerLabel =
        lang.id === 'go' ? goContainer(node) : containerNode && containerName(containerNode);
      const name = nameNode.text;
      const def: Definition = {
        name,
        kind: refineKind(
          kind,
          name,
          container ?? (containerLabel ? containerStub(containerNode) : undefined),
          lang.id,
        ),
        line: lineOf(nameNode),
        startLine: lineOf(node),
        endLine: endLineOf(node),
        signature: signatureOf(node, source),
        exported: false,
        ...(containerLabel ? { container: containerLabel } : {}),
      };
      const doc = docOf(node, lang.id);
      if (doc) def.doc = doc;
      def.exported = isExported(node, name, lang.id, container);
      definitions.push(def);
      if (CONTAINER_KINDS.has(def.kind) || containerNode?.startIndex === node.startIndex)
        byNode.set(node.startIndex, def);
    }
    if (lang.id === 'typescript' || lang.id === 'tsx' || lang.id === 'javascript')
      applyJsExports(definitions, facts);
    else {
      for (const def of definitions) {
        if (def.exported && !def.container) facts.exports.push({ name: def.name, line: def.line });
      }
    }
    const refs = [...references.values()]
      .sort((a, b) => a.line - b.line || a.column - b.column)
      .map(({ priority: _priority, ...ref }) => ref);
    return {
      path,
      language: lang.id,
      lines: tree.rootNode.endPosition.row + 1,
      definitions,
      references: refs,
      imports: facts.imports,
      exports: facts.exports,
      ...(facts.packageName ? { packageName: facts.packageName } : {}),
    };
  } finally {
    tree.delete();
  }
}

// An impl block is a container without a definition of its own: methods inside it are still methods.
const containerStub = (node: SyntaxNode | undefined): Definition | undefined =>
  node
    ? { name: '', kind: 'struct', line: 0, startLine: 0, endLine: 0, signature: '', exported: false }
    : undefined;
