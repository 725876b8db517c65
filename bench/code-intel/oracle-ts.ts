// The TypeScript oracle: the compiler's own language service over a project's sources. Top-level
// declarations are the symbols; findReferences gives their uses (definitions and import/export
// specifiers left out: those are bindings, which get_imports_exports reports, not uses).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { OracleSymbol } from './sample.js';

const SPECIFIERS = new Set([
  ts.SyntaxKind.ImportSpecifier,
  ts.SyntaxKind.ImportClause,
  ts.SyntaxKind.NamespaceImport,
  ts.SyntaxKind.ExportSpecifier,
  ts.SyntaxKind.ImportEqualsDeclaration,
]);

function tokenAt(file: ts.SourceFile, position: number): ts.Node | undefined {
  const find = (node: ts.Node): ts.Node | undefined =>
    position >= node.getStart(file) && position < node.getEnd()
      ? (ts.forEachChild(node, find) ?? node)
      : undefined;
  return find(file);
}

export function typescriptOracle(root: string, files: readonly string[]) {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  const absolute = files.map((f) => path.join(root, f));
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => absolute,
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) =>
      ts.sys.fileExists(name) ? ts.ScriptSnapshot.fromString(readFileSync(name, 'utf8')) : undefined,
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const program = service.getProgram()!;
  const relative = (name: string) => path.relative(root, name).split(path.sep).join('/');
  const inProject = new Set(absolute);

  /** Top-level declarations with a name: functions, classes, interfaces, types, enums, variables. */
  function symbols(): Omit<OracleSymbol, 'uses'>[] {
    const out: Omit<OracleSymbol, 'uses'>[] = [];
    for (const name of absolute) {
      const file = program.getSourceFile(name);
      if (!file) continue;
      const seen = new Set<string>();
      const add = (id: ts.Identifier) => {
        if (seen.has(id.text)) return;
        seen.add(id.text);
        const { line, character } = file.getLineAndCharacterOfPosition(id.getStart(file));
        out.push({ name: id.text, path: relative(name), line: line + 1, column: character + 1 });
      };
      for (const statement of file.statements) {
        if (
          (ts.isFunctionDeclaration(statement) ||
            ts.isClassDeclaration(statement) ||
            ts.isInterfaceDeclaration(statement) ||
            ts.isTypeAliasDeclaration(statement) ||
            ts.isEnumDeclaration(statement)) &&
          statement.name
        )
          add(statement.name);
        else if (ts.isVariableStatement(statement)) {
          for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) add(d.name);
        }
      }
    }
    return out;
  }

  /** Where a file declares `name` at top level: more than one place for merged declarations. */
  function declarations(file: ts.SourceFile, name: string): number[] {
    const out: number[] = [];
    for (const statement of file.statements) {
      const named = (statement as { name?: ts.Node }).name;
      if (named && ts.isIdentifier(named) && named.text === name) out.push(named.getStart(file));
      if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.name.text === name) out.push(d.name.getStart(file));
    }
    return out;
  }

  /**
   * The uses of every top-level declaration of the name in that file: an interface and the namespace
   * merged with it (`X.Member`) are one name to a caller, as they are to find_references.
   */
  function uses(symbol: Omit<OracleSymbol, 'uses'>): string[] {
    const name = path.join(root, symbol.path);
    const file = program.getSourceFile(name)!;
    const found = new Set<string>();
    const groups = declarations(file, symbol.name).flatMap((at) => service.findReferences(name, at) ?? []);
    for (const group of groups) {
      for (const ref of group.references) {
        if (ref.isDefinition || !inProject.has(ref.fileName)) continue;
        const source = program.getSourceFile(ref.fileName)!;
        const token = tokenAt(source, ref.textSpan.start);
        if (token?.parent && SPECIFIERS.has(token.parent.kind)) continue;
        const { line, character } = source.getLineAndCharacterOfPosition(ref.textSpan.start);
        found.add(`${relative(ref.fileName)}:${line + 1}:${character + 1}`);
      }
    }
    return [...found];
  }

  return { symbols, uses };
}
