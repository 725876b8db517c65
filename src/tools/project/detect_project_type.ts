// detect_project_type: languages, package managers, frameworks and build/test commands of the workspace,
// read from its manifest files (package.json, pyproject/requirements, go.mod, Cargo.toml, pom/gradle,
// Makefile, Dockerfile, CI config).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { detectProject } from '../../project/detect.js';
import { inventory, languageSizes } from '../../project/inventory.js';

const Input = Type.Object({}, { additionalProperties: false });

const Command = Type.Object({
  kind: Type.Enum(['build', 'test', 'lint', 'format', 'run']),
  command: Type.String(),
  cwd: Type.String({ description: 'Directory to run it in, workspace-relative' }),
  source: Type.String({ description: 'The manifest it comes from' }),
});

const Output = Type.Object({
  ecosystems: Type.Array(Type.String(), { description: 'node, typescript, python, go, rust, java' }),
  languages: Type.Array(
    Type.Object({ language: Type.String(), files: Type.Integer(), bytes: Type.Integer() }),
    { description: 'Programming languages by size, largest first' },
  ),
  packageManagers: Type.Array(Type.String()),
  frameworks: Type.Array(Type.Object({ name: Type.String(), evidence: Type.String() })),
  commands: Type.Array(Command),
  manifests: Type.Array(Type.String()),
  containers: Type.Array(Type.String(), { description: 'Dockerfiles and compose files' }),
  ci: Type.Array(Type.Object({ system: Type.String(), path: Type.String() })),
});

export default defineTool({
  name: 'detect_project_type',
  category: 'project',
  description:
    'What kind of project this is: ecosystems and languages, package managers (from lockfiles), ' +
    'frameworks and test runners (from dependencies), and the commands to build, test, lint and run it ' +
    '(from package.json scripts, Makefile targets, go.mod, Cargo.toml, pom.xml/gradle, pyproject), with ' +
    'the directory to run each in; also Dockerfiles and CI configuration. Call it before running commands.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{}],
  async execute(_input, ctx) {
    const inv = await inventory(ctx);
    const found = await detectProject(ctx, inv);
    return {
      ecosystems: [...found.ecosystems],
      languages: languageSizes(inv),
      packageManagers: [...found.packageManagers],
      frameworks: [...found.frameworks].map(([name, evidence]) => ({ name, evidence })),
      commands: found.commands,
      manifests: found.manifests,
      containers: found.containers,
      ci: found.ci,
    };
  },
  render(data) {
    const list = (items: string[]) => (items.length ? items.join(', ') : '(none)');
    const lines = [
      `ecosystems: ${list(data.ecosystems)}`,
      `languages: ${list(data.languages.map((l) => `${l.language} (${l.files} files)`))}`,
      `package managers: ${list(data.packageManagers)}`,
      `frameworks: ${list(data.frameworks.map((f) => f.name))}`,
      'commands:',
      ...data.commands.map(
        (c) => `  ${c.kind}: ${c.cwd === '.' ? '' : `(cd ${c.cwd}) `}${c.command}   [${c.source}]`,
      ),
      `manifests: ${list(data.manifests)}`,
      `containers: ${list(data.containers)}`,
      `ci: ${list(data.ci.map((c) => `${c.system} (${c.path})`))}`,
    ];
    return lines.join('\n');
  },
});
