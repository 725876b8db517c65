// get_project_overview: a one-call orientation — name and description, size by language, key files,
// entry points and a directory summary, cut to a token budget.
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { codeSnapshot } from '../../code/tool-shared.js';
import { detectProject } from '../../project/detect.js';
import { findEntryPoints } from '../../project/entry-points.js';
import { inventory, languageName, languageSizes, readText, type Inventory } from '../../project/inventory.js';

const Input = Type.Object(
  {
    max_tokens: Type.Integer({
      minimum: 100,
      maximum: 16_000,
      default: 1500,
      description: 'Budget for the rendered overview (about 4 characters per token)',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  totalFiles: Type.Integer(),
  totalBytes: Type.Integer(),
  languages: Type.Array(
    Type.Object({
      language: Type.String(),
      files: Type.Integer(),
      bytes: Type.Integer(),
      lines: Type.Optional(Type.Integer({ description: 'For languages the code index parses' })),
    }),
  ),
  keyFiles: Type.Array(Type.Object({ path: Type.String(), role: Type.String() })),
  entryPoints: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
  directories: Type.Array(
    Type.Object({
      path: Type.String(),
      files: Type.Integer(),
      bytes: Type.Integer(),
      languages: Type.Array(Type.String()),
    }),
  ),
  truncated: Type.Boolean({ description: 'Directories were left out to fit max_tokens' }),
});
type Overview = Static<typeof Output>;

const KEY_FILES: [RegExp, string][] = [
  [/^readme(\.\w+)?$/i, 'readme'],
  [/^(license|licence|copying)(\.\w+)?$/i, 'license'],
  [/^changelog(\.\w+)?$/i, 'changelog'],
  [/^contributing(\.\w+)?$/i, 'contributing guide'],
  [/^(agents|claude)\.md$/i, 'agent instructions'],
  [/^\.env\.example$/, 'environment template'],
];

function describeReadme(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const paragraph = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p && !p.startsWith('#') && !p.startsWith('[![') && !p.startsWith('<'));
  return paragraph ? paragraph.replace(/\s+/g, ' ').slice(0, 300) : undefined;
}

function directorySummary(inv: Inventory): Overview['directories'] {
  const dirs = new Map<string, { files: number; bytes: number; languages: Map<string, number> }>();
  for (const file of inv.files) {
    const parts = file.path.split('/');
    // Top-level directories, and one level deeper, so src/ shows its parts.
    for (const depth of [1, 2]) {
      if (parts.length <= depth) continue;
      const dir = parts.slice(0, depth).join('/');
      const entry = dirs.get(dir) ?? { files: 0, bytes: 0, languages: new Map() };
      entry.files++;
      entry.bytes += file.size;
      const language = languageName(file.path);
      if (language) entry.languages.set(language, (entry.languages.get(language) ?? 0) + 1);
      dirs.set(dir, entry);
    }
  }
  return [...dirs]
    .map(([dir, e]) => ({
      path: dir,
      files: e.files,
      bytes: e.bytes,
      languages: [...e.languages]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([l]) => l),
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

function render(data: Overview): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const lines = [`${data.name ?? '(unnamed project)'}${data.description ? ` — ${data.description}` : ''}`];
  lines.push(`${data.totalFiles} files, ${kb(data.totalBytes)}`);
  lines.push(
    `languages: ${data.languages.map((l) => `${l.language} ${l.files} files${l.lines ? ` / ${l.lines} lines` : ''}`).join(', ')}`,
  );
  lines.push(`key files: ${data.keyFiles.map((k) => `${k.path} (${k.role})`).join(', ') || '(none)'}`);
  lines.push(
    `entry points: ${data.entryPoints.map((e) => `${e.path} (${e.reason})`).join(', ') || '(none found)'}`,
  );
  lines.push('directories:');
  for (const d of data.directories) {
    const indent = '  '.repeat(d.path.split('/').length);
    lines.push(
      `${indent}${path.posix.basename(d.path)}/  ${d.files} files, ${kb(d.bytes)}  ${d.languages.join(', ')}`,
    );
  }
  if (data.truncated) lines.push('  … (more directories; raise max_tokens)');
  return lines.join('\n');
}

export default defineTool({
  name: 'get_project_overview',
  category: 'project',
  description:
    'A compact overview of the repository: name and description (from manifests and README), file count ' +
    'and size by language, key files (README, license, manifests, CI, Dockerfile), entry points, and a ' +
    'two-level directory summary, cut to max_tokens. A good first call in a new workspace.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ max_tokens: 1500 }],
  async execute(input, ctx) {
    const inv = await inventory(ctx);
    const snapshot = await codeSnapshot(ctx);
    const found = await detectProject(ctx, inv);
    let name: string | undefined;
    let description: string | undefined;
    if (inv.byPath.has('package.json')) {
      try {
        const pkg = JSON.parse((await readText(ctx, 'package.json')) ?? '{}') as Record<string, unknown>;
        if (typeof pkg.name === 'string') name = pkg.name;
        if (typeof pkg.description === 'string') description = pkg.description;
      } catch {
        // A broken package.json still leaves the rest of the overview.
      }
    }
    for (const manifest of ['pyproject.toml', 'Cargo.toml']) {
      if (name || !inv.byPath.has(manifest)) continue;
      name = /^name\s*=\s*"([^"]+)"/m.exec((await readText(ctx, manifest)) ?? '')?.[1];
    }
    if (!name && inv.byPath.has('go.mod'))
      name = /^module\s+(\S+)/m.exec((await readText(ctx, 'go.mod')) ?? '')?.[1];
    const readme = inv.files.find((f) => !f.path.includes('/') && /^readme(\.\w+)?$/i.test(f.path));
    description ??= describeReadme(readme ? await readText(ctx, readme.path) : undefined);

    const lines = new Map<string, number>();
    for (const file of snapshot.files) {
      const language = languageName(file.path);
      if (language) lines.set(language, (lines.get(language) ?? 0) + file.lines);
    }
    const keyFiles = inv.files
      .filter((f) => !f.path.includes('/'))
      .flatMap((f) =>
        KEY_FILES.filter(([pattern]) => pattern.test(f.path)).map(([, role]) => ({ path: f.path, role })),
      );
    for (const manifest of found.manifests) keyFiles.push({ path: manifest, role: 'manifest' });
    for (const container of found.containers) keyFiles.push({ path: container, role: 'container' });
    for (const ci of found.ci) keyFiles.push({ path: ci.path, role: `CI (${ci.system})` });

    const data: Overview = {
      ...(name ? { name } : {}),
      ...(description ? { description } : {}),
      totalFiles: inv.files.length,
      totalBytes: inv.files.reduce((sum, f) => sum + f.size, 0),
      languages: languageSizes(inv, true).map((l) =>
        lines.has(l.language) ? { ...l, lines: lines.get(l.language)! } : l,
      ),
      keyFiles,
      entryPoints: await findEntryPoints(ctx, inv, snapshot),
      directories: directorySummary(inv),
      truncated: false,
    };
    // Over budget: drop second-level directories first, then the largest-path tail.
    const budgetChars = input.max_tokens * 4;
    if (render(data).length > budgetChars) {
      data.truncated = true;
      data.directories = data.directories.filter((d) => !d.path.includes('/'));
      while (data.directories.length && render(data).length > budgetChars) data.directories.pop();
    }
    return data;
  },
  render,
});
