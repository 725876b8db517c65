/* global module, require */
// The layer check (`npm run lint:layers`): src/ is layered bottom to top, and a module may import only from
// its own layer or a lower one. Type-only imports count too: a type imported from above is still an
// upward dependency. No import circle at module level, with no exceptions.
//
//   1 lib           src/lib/                      leaf library; imports nothing of ours
//   2 config        src/config.ts, src/config/, and every subsystem's config section: src/**/config.ts
//   3 subsystems    src/{store,runtime,sandbox,jobs,snapshots,transfer,code,edit,project,todos,ops,search,network,cpu,preview}/
//   4 contract      src/contract/                 defineTool, context, registry, validation, plugins
//   5 tools         src/{tools,sources}/, src/policies/ (but not the policies' routes.ts)
//   6 engine        src/engine/                   the call pipeline, batch scheduling, events
//   7 evals         src/evals/                    datasets and their runner: drive the service as a client
//   8 edges         src/{protocols,http,routes,console}/, src/policies/*/routes.ts
//   9 top           src/app.ts, src/services.ts (the composition root) and src/app-services.ts (the shape of what it
//                   builds), src/server.ts, src/migrations.ts (every store's and policy's tables)
//
// A config section (src/<folder>/config.ts) lives beside its subsystem but belongs to the config layer: the
// root src/config.ts composes every section, and everything imports the root's Config, so a section may
// import only src/lib/, src/config/ and other sections (typebox, node:path), never the code of its own
// folder. Its subsystem imports it from above, as it imports src/config.ts.
//
// The code that runs inside the sandbox (src/runtime/inside/, bundled on its own) is stricter still: it and
// the modules it shares with the service (the runtime's protocol, op types, frame writer, prlimit; the
// network's splice forwarder, which the sandbox's egress relay runs too) import
// only src/lib/, src/search/ (the pure search policy: .gitignore rules, globs, orders, languages) and each
// other; src/search/ itself imports only src/lib/.

/** A subsystem's config section: in its folder, in the config layer (see above). */
const CONFIG_SECTION = '^src/.+/config\\.ts$';

/** Each layer as a path pattern (relative to the repository root); index 0 is the bottom. */
const LAYERS = [
  { name: 'lib', path: '^src/lib/' },
  { name: 'config', path: ['^src/config(\\.ts$|/)', CONFIG_SECTION] },
  {
    name: 'subsystems',
    path: '^src/(store|runtime|sandbox|jobs|snapshots|transfer|code|edit|project|todos|ops|search|network|cpu|preview)/',
  },
  { name: 'contract', path: '^src/contract/' },
  { name: 'tools', path: '^src/(tools|sources|policies)/', pathNot: '^src/policies/[^/]+/routes\\.ts$' },
  { name: 'engine', path: '^src/engine/' },
  { name: 'evals', path: '^src/evals/' },
  { name: 'edges', path: ['^src/(protocols|http|routes|console)/', '^src/policies/[^/]+/routes\\.ts$'] },
  { name: 'top', path: '^src/(app|app-services|services|server|migrations)\\.ts$' },
];

/** The sandboxed code and the modules it shares with the service. */
const SANDBOXED = [
  '^src/runtime/inside/',
  '^src/runtime/ops/',
  '^src/runtime/(protocol|frame-writer)\\.ts$',
  '^src/runtime/runner/(prlimit|types)\\.ts$',
  '^src/network/splice-forwarder\\.ts$',
];

// The optional dependencies of package.json, by name: npm ci leaves one out where it cannot be installed
// (better-sqlite3 12 compiles, and a box with only Node has no compiler), so an import of it may not
// resolve there; src/store/sqlite-driver.ts says which driver loads where.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file
const OPTIONAL_DEPENDENCIES = `^(${Object.keys(require('./package.json').optionalDependencies ?? {}).join('|')})$`;

/** One rule per layer (but the top): it may not import any layer above it. */

const CONFIG_LAYER = LAYERS.findIndex((layer) => layer.name === 'config');
const upwardRules = LAYERS.slice(0, -1).map((layer, i) => {
  // A folder's pattern above the config layer also matches its config section, which is not of that layer:
  // the rule neither checks the section as that layer's code nor forbids importing it from lower down.
  const sectionsNot = (index) => (index > CONFIG_LAYER ? [CONFIG_SECTION] : []);
  return {
    name: `layer-${layer.name}`,
    comment: `${layer.name} (layer ${i + 1}) imports only from itself and the layers below it`,
    severity: 'error',
    from: { path: layer.path, pathNot: [layer.pathNot ?? [], sectionsNot(i)].flat() },
    to: { path: LAYERS.slice(i + 1).flatMap((above) => above.path), pathNot: sectionsNot(i + 1) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upwardRules,
    {
      name: 'no-circular',
      comment: 'no import circle at module level, no exceptions',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'sandboxed-code',
      comment:
        'src/runtime/inside runs inside the sandbox: it imports only src/lib, src/search and the modules it shares',
      severity: 'error',
      from: { path: SANDBOXED },
      to: { path: '^src/', pathNot: ['^src/lib/', '^src/search/', ...SANDBOXED] },
    },
    {
      name: 'search-is-pure',
      comment: 'src/search is shared by the service and the sandboxed runtime: it imports only src/lib',
      severity: 'error',
      from: { path: '^src/search/' },
      to: { path: '^src/', pathNot: ['^src/lib/', '^src/search/'] },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'every import resolves (a typo in a path would hide an edge from the rules above); an optional ' +
        'dependency may be absent (better-sqlite3 12, the Node 20 driver, on a box without a compiler)',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true, pathNot: OPTIONAL_DEPENDENCIES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
