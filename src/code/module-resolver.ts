// Turns an import's module specifier into the workspace files it loads: relative JS/TS paths (with the
// usual extension and index-file rules), Python modules and packages, Go packages (via go.mod), Rust
// crate/self/super paths and `mod` files, Java classes and packages. Anything outside the workspace
// (npm packages, the standard library) resolves to nothing.
import path from 'node:path';
import type { FileSummary } from './schema.js';

const posix = path.posix;
const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
// `import './x.js'` in TypeScript names the compiled file; the source is x.ts.
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};
// Where Python code commonly lives besides the repository root.
const PYTHON_ROOTS = ['', 'src', 'lib'];

export interface GoModule {
  /** Workspace-relative directory of the go.mod ('' for the root). */
  readonly dir: string;
  /** The `module` path it declares. */
  readonly path: string;
}

export class ModuleResolver {
  private readonly dirs = new Map<string, string[]>();

  constructor(
    private readonly files: ReadonlyMap<string, FileSummary>,
    private readonly goModules: readonly GoModule[] = [],
  ) {
    for (const file of files.keys()) {
      const dir = posix.dirname(file);
      const list = this.dirs.get(dir);
      if (list) list.push(file);
      else this.dirs.set(dir, [file]);
    }
  }

  resolve(from: FileSummary, source: string): string[] {
    switch (from.language) {
      case 'typescript':
      case 'tsx':
      case 'javascript':
        return this.javascript(from.path, source);
      case 'python':
        return this.python(from.path, source);
      case 'go':
        return this.go(source);
      case 'rust':
        return this.rust(from.path, source);
      case 'java':
        return this.java(source);
    }
  }

  /** The file of a Python submodule `name` of the package a module resolved to (`from . import x`). */
  pythonSubmodule(packageFile: string, name: string): string | undefined {
    if (!packageFile.endsWith('__init__.py')) return undefined;
    return this.first([
      `${posix.dirname(packageFile)}/${name}.py`,
      `${posix.dirname(packageFile)}/${name}/__init__.py`,
    ]);
  }

  private first(candidates: string[]): string | undefined {
    return candidates.map((c) => posix.normalize(c).replace(/^\.\//, '')).find((c) => this.files.has(c));
  }

  private javascript(from: string, source: string): string[] {
    if (!source.startsWith('./') && !source.startsWith('../') && source !== '.' && source !== '..') return [];
    const base = posix.join(posix.dirname(from), source);
    if (base.startsWith('..')) return [];
    const ext = posix.extname(base);
    const candidates = [base];
    for (const replacement of JS_TO_TS[ext] ?? []) candidates.push(base.slice(0, -ext.length) + replacement);
    for (const e of JS_EXTENSIONS) candidates.push(base + e);
    for (const e of JS_EXTENSIONS) candidates.push(`${base}/index${e}`);
    const found = this.first(candidates);
    return found ? [found] : [];
  }

  private python(from: string, source: string): string[] {
    const dots = /^\.*/.exec(source)?.[0].length ?? 0;
    const rest = source.slice(dots).split('.').filter(Boolean).join('/');
    const moduleCandidates = (dir: string) =>
      rest ? [`${dir}/${rest}.py`, `${dir}/${rest}/__init__.py`] : [`${dir}/__init__.py`];
    if (dots > 0) {
      let dir = posix.dirname(from);
      for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
      const found = this.first(moduleCandidates(dir));
      return found ? [found] : [];
    }
    // Absolute imports resolve against the usual roots, then the importing script's own directories.
    const roots = [...PYTHON_ROOTS.map((r) => r || '.')];
    for (let dir = posix.dirname(from); dir !== '.' && !roots.includes(dir); dir = posix.dirname(dir))
      roots.push(dir);
    for (const root of roots) {
      const found = this.first(moduleCandidates(root));
      if (found) return [found];
    }
    return [];
  }

  private go(source: string): string[] {
    for (const module of this.goModules) {
      if (source !== module.path && !source.startsWith(`${module.path}/`)) continue;
      const dir = posix.join(module.dir || '.', source.slice(module.path.length).replace(/^\//, ''));
      return (this.dirs.get(dir) ?? []).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
    }
    return [];
  }

  /** The directory holding a Rust file's child modules: `a/` for a.rs, its own directory for mod.rs/lib.rs/main.rs. */
  private rustModuleDir(file: string): string {
    const base = posix.basename(file);
    if (base === 'mod.rs' || base === 'lib.rs' || base === 'main.rs') return posix.dirname(file);
    return file.slice(0, -'.rs'.length);
  }

  /** The crate's root module directory: the nearest `src/` with lib.rs or main.rs, else the nearest such directory. */
  private rustCrateRoot(file: string): string {
    let nearest: string | undefined;
    for (let dir = posix.dirname(file); ; dir = posix.dirname(dir)) {
      if (this.files.has(`${dir}/lib.rs`) || this.files.has(`${dir}/main.rs`)) {
        if (posix.basename(dir) === 'src') return dir;
        nearest ??= dir;
      }
      if (dir === '.' || dir === posix.dirname(dir)) return nearest ?? posix.dirname(file);
    }
  }

  private rust(from: string, source: string): string[] {
    const segments = source.split('::');
    let dir: string;
    if (segments[0] === 'crate') dir = this.rustCrateRoot(from);
    else if (segments[0] === 'self') dir = this.rustModuleDir(from);
    else if (segments[0] === 'super') dir = posix.dirname(this.rustModuleDir(from));
    else return [];
    let rest = segments.slice(1);
    while (rest[0] === 'super') {
      dir = posix.dirname(dir);
      rest = rest.slice(1);
    }
    // The longest prefix that is a module file wins: `crate::a::b` may be module b or item b of module a.
    for (let n = rest.length; n > 0; n--) {
      const modulePath = [dir, ...rest.slice(0, n)].join('/');
      const found = this.first([`${modulePath}.rs`, `${modulePath}/mod.rs`]);
      if (found) return [found];
    }
    const root = this.first([`${dir}/lib.rs`, `${dir}/main.rs`, `${dir}/mod.rs`]);
    return root && root !== from ? [root] : [];
  }

  private java(source: string): string[] {
    const asPath = source.split('.').join('/');
    const out: string[] = [];
    for (const file of this.files.keys()) {
      if (!file.endsWith('.java')) continue;
      if (file === `${asPath}.java` || file.endsWith(`/${asPath}.java`)) out.push(file);
    }
    if (out.length) return out;
    // A package import (`import a.b.*`): every class file directly in that package's directory.
    for (const [dir, files] of this.dirs) {
      if (dir === asPath || dir.endsWith(`/${asPath}`)) out.push(...files.filter((f) => f.endsWith('.java')));
    }
    return out;
  }
}
